import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { keepProviderKeys, ProviderKeys } from "../../src/config/providerKeys.ts";

function childSees(name: string): string {
  // Inherits process.env as it is now, as every command Garuda starts does (the executor passes
  // process.env explicitly: Bun.spawn with no `env` would pass the environment of start-up).
  return execFileSync("sh", ["-c", `printf %s "\${${name}-unset}"`]).toString();
}

describe("keepProviderKeys", () => {
  test("provider keys leave the process environment, so no child inherits them", () => {
    process.env.ANTHROPIC_API_KEY = "sk-ant-test";
    process.env.GARUDA_TEST_UNRELATED = "kept";
    try {
      // Negative control: before the keys are taken, a child sees them.
      expect(childSees("ANTHROPIC_API_KEY")).toBe("sk-ant-test");
      const keys = keepProviderKeys(process.env);
      expect(keys.fromEnvironment("ANTHROPIC_API_KEY")).toBe("sk-ant-test");
      expect(process.env.ANTHROPIC_API_KEY).toBeUndefined();
      expect(childSees("ANTHROPIC_API_KEY")).toBe("unset");
      expect(childSees("GARUDA_TEST_UNRELATED")).toBe("kept");
      expect(keys.secrets()).toEqual(["sk-ant-test"]);
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
      delete process.env.GARUDA_TEST_UNRELATED;
    }
  });

  test("an empty value is removed and counts as not set", () => {
    const env: Record<string, string | undefined> = { ANTHROPIC_API_KEY: "" };
    const keys = keepProviderKeys(env);
    expect("ANTHROPIC_API_KEY" in env).toBe(false);
    expect(keys.fromEnvironment("ANTHROPIC_API_KEY")).toBeUndefined();
  });

  test("taking more names later keeps what was taken", () => {
    const env: Record<string, string | undefined> = { ANTHROPIC_API_KEY: "a", MY_GATEWAY_KEY: "g" };
    const keys = new ProviderKeys().take(env, ["ANTHROPIC_API_KEY"]);
    expect(env.MY_GATEWAY_KEY).toBe("g");
    keys.take(env, ["MY_GATEWAY_KEY", "ANTHROPIC_API_KEY"]);
    expect(keys.fromEnvironment("ANTHROPIC_API_KEY")).toBe("a");
    expect(keys.fromEnvironment("MY_GATEWAY_KEY")).toBe("g");
    expect(env).toEqual({});
  });
});
