// Forgetting provider keys, shared by `garuda setup --forget` and ACP's logout: which names the
// model in use signs in with, and their removal from ~/.garuda/credentials (atomic rewrite, 0600,
// every other key kept) and from this process's environment keys (still redacted after).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { forgetKeys, logout, modelKeyNames } from "../../src/config/forgetKeys.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { ProviderKeys } from "../../src/config/providerKeys.ts";
import { tempDir } from "../support/tempDir.ts";

function context(home: string, models?: unknown, credentials?: Record<string, string>, env = {}) {
  const paths = garudaPaths(home);
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  if (models !== undefined) writeFileSync(paths.models, JSON.stringify(models));
  if (credentials) writeFileSync(paths.credentials, JSON.stringify(credentials), { mode: 0o600 });
  const environment: Record<string, string | undefined> = { ...env };
  const keys = new ProviderKeys().take(environment, ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "GW_KEY"]);
  return { paths, env: environment, keys };
}

const GATEWAY = { default: "gw/claude-sonnet-5", providers: { gw: { type: "anthropic", apiKeyEnv: "GW_KEY" } } };

describe("modelKeyNames", () => {
  test("the model in use: its provider's key, and the bearer token for an Anthropic provider", () => {
    using home = tempDir();
    expect(modelKeyNames(context(home.path, GATEWAY))).toEqual({ names: ["GW_KEY", "ANTHROPIC_AUTH_TOKEN"] });
    expect(modelKeyNames(context(home.path, GATEWAY), "claude-opus-5")).toEqual({
      names: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
    });
    expect(
      modelKeyNames(context(home.path, undefined, undefined, { GARUDA_MODEL: "openrouter/openai/gpt-5" })),
    ).toEqual({
      names: ["OPENROUTER_API_KEY"],
    });
    expect(modelKeyNames(context(home.path), "ollama/llama3")).toEqual({ keyless: "ollama/llama3" });
  });

  test("no model set: Anthropic's", () => {
    using home = tempDir();
    expect(modelKeyNames(context(home.path))).toEqual({ names: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"] });
  });
});

describe("forgetKeys and logout", () => {
  test("remove the names from the file, keep the rest, and forget them in this process", () => {
    using home = tempDir();
    const ctx = context(
      home.path,
      GATEWAY,
      { GW_KEY: "gw-secret", ANTHROPIC_AUTH_TOKEN: "tok-secret", OPENAI_API_KEY: "sk-kept" },
      { GW_KEY: "gw-from-env" },
    );
    expect(logout(ctx)).toEqual([
      { name: "GW_KEY", file: "removed", inEnvironment: true },
      { name: "ANTHROPIC_AUTH_TOKEN", file: "removed", inEnvironment: false },
    ]);
    expect(JSON.parse(readFileSync(ctx.paths.credentials, "utf8"))).toEqual({ OPENAI_API_KEY: "sk-kept" });
    expect(statSync(ctx.paths.credentials).mode & 0o777).toBe(0o600);
    expect(ctx.keys.fromEnvironment("GW_KEY")).toBeUndefined();
    // Forgotten, but a value that may still show somewhere is still redacted.
    expect(ctx.keys.secrets()).toContain("gw-from-env");
    expect(logout(ctx)).toEqual([
      { name: "GW_KEY", file: "absent", inEnvironment: false },
      { name: "ANTHROPIC_AUTH_TOKEN", file: "absent", inEnvironment: false },
    ]);
  });

  test("the last key removes the file; a keyless model has nothing to forget", () => {
    using home = tempDir();
    const ctx = context(home.path, undefined, { ANTHROPIC_API_KEY: "sk-last" });
    expect(forgetKeys(ctx, ["ANTHROPIC_API_KEY"])).toEqual([
      { name: "ANTHROPIC_API_KEY", file: "removed-file", inEnvironment: false },
    ]);
    expect(existsSync(ctx.paths.credentials)).toBe(false);
    expect(logout(ctx, "ollama/llama3")).toEqual([]);
  });
});
