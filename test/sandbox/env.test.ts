import { describe, expect, test } from "bun:test";
import { ENV_ALLOWLIST, childEnv, proxyEnv, proxyUrl } from "../../src/sandbox/env.ts";

describe("childEnv", () => {
  const base = {
    PATH: "/usr/bin",
    HOME: "/home/real",
    LANG: "C.UTF-8",
    ANTHROPIC_API_KEY: "sk-ant-leaked",
    OPENAI_API_KEY: "sk-leaked",
    AWS_SECRET_ACCESS_KEY: "x",
    JAVA_HOME: "/opt/jdk",
  };

  test("only allowlisted names pass; HOME and TMPDIR are the executor's", () => {
    const env = childEnv({ base, home: "/home/ada", tmpDir: "/tmp/s" });
    expect(env).toEqual({ PATH: "/usr/bin", HOME: "/home/ada", LANG: "C.UTF-8", TMPDIR: "/tmp/s" });
    expect(ENV_ALLOWLIST).not.toContain("ANTHROPIC_API_KEY");
  });

  test("settings' env.allow adds names; the request's own variables are set as given", () => {
    const env = childEnv({
      base,
      allow: ["JAVA_HOME", "NOT_SET"],
      home: "/h",
      tmpDir: "/t",
      extra: { GARUDA_HOOK_EVENT: "preToolUse" },
    });
    expect(env.JAVA_HOME).toBe("/opt/jdk");
    expect("NOT_SET" in env).toBe(false);
    expect(env.GARUDA_HOOK_EVENT).toBe("preToolUse");
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
  });

  test("negative control: a key passes only when a caller names it", () => {
    expect(childEnv({ base, allow: ["ANTHROPIC_API_KEY"], home: "/h", tmpDir: "/t" }).ANTHROPIC_API_KEY).toBe(
      "sk-ant-leaked",
    );
  });

  test("a missing PATH gets a sane default", () => {
    expect(childEnv({ base: {}, home: "/h", tmpDir: "/t" }).PATH).toContain("/usr/bin");
  });
});

describe("proxyEnv", () => {
  test("both spellings of the proxy variables, localhost excluded, Node told to use them", () => {
    const url = proxyUrl("tok", 3128);
    expect(url).toBe("http://garuda:tok@127.0.0.1:3128");
    expect(proxyEnv(url)).toEqual({
      HTTP_PROXY: url,
      HTTPS_PROXY: url,
      http_proxy: url,
      https_proxy: url,
      ALL_PROXY: url,
      all_proxy: url,
      NO_PROXY: "localhost,127.0.0.1,::1",
      no_proxy: "localhost,127.0.0.1,::1",
      NODE_USE_ENV_PROXY: "1",
    });
  });
});
