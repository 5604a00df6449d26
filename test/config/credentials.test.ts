import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readCredentials, saveCredential, writeCredentials } from "../../src/config/credentials.ts";
import { ConfigError } from "../../src/errors/configError.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { tempDir } from "../support/tempDir.ts";

function readError(path: string): string {
  try {
    readCredentials(path);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("~/.garuda/credentials", () => {
  test("written 0600 in a 0700 folder, atomically, and read back", () => {
    using home = tempDir();
    const paths = garudaPaths(home.path);
    writeCredentials(paths.credentials, { ANTHROPIC_API_KEY: "sk-one" });
    expect(statSync(paths.credentials).mode & 0o777).toBe(0o600);
    expect(statSync(paths.dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(paths.dir)).toEqual(["credentials"]);
    expect(readCredentials(paths.credentials)).toEqual({ ANTHROPIC_API_KEY: "sk-one" });
  });

  test("saving one key keeps the others", () => {
    using home = tempDir();
    const { credentials } = garudaPaths(home.path);
    saveCredential(credentials, "ANTHROPIC_API_KEY", "sk-a");
    saveCredential(credentials, "OPENROUTER_API_KEY", "or-b");
    saveCredential(credentials, "ANTHROPIC_API_KEY", "sk-c");
    expect(readCredentials(credentials)).toEqual({ ANTHROPIC_API_KEY: "sk-c", OPENROUTER_API_KEY: "or-b" });
  });

  test("absent is fine", () => {
    using home = tempDir();
    expect(readCredentials(garudaPaths(home.path).credentials)).toBeUndefined();
  });

  test("a file other users can read is refused, with the fix", () => {
    using home = tempDir();
    const { credentials } = garudaPaths(home.path);
    writeCredentials(credentials, { ANTHROPIC_API_KEY: "sk-x" });
    chmodSync(credentials, 0o644);
    expect(readError(credentials)).toBe(
      `${credentials}: can be read by other users (mode 644). Run: chmod 600 ${credentials}.`,
    );
    // Negative control: the same file at 0600 is read.
    chmodSync(credentials, 0o600);
    expect(readCredentials(credentials)).toEqual({ ANTHROPIC_API_KEY: "sk-x" });
  });

  test("a symbolic link is refused, not followed", () => {
    using home = tempDir();
    const { credentials, dir } = garudaPaths(home.path);
    const target = join(home.path, "elsewhere.json");
    writeFileSync(target, JSON.stringify({ ANTHROPIC_API_KEY: "sk-planted" }), { mode: 0o600 });
    expect(readCredentials(target)).toEqual({ ANTHROPIC_API_KEY: "sk-planted" });
    mkdirSync(dir, { recursive: true });
    symlinkSync(target, credentials);
    expect(readError(credentials)).toContain("is a symbolic link");
  });

  test("malformed content names the file and never shows a key", () => {
    using home = tempDir();
    const { credentials, dir } = garudaPaths(home.path);
    mkdirSync(dir, { recursive: true });
    writeFileSync(credentials, '{"ANTHROPIC_API_KEY": sk-ant-secret-value}', { mode: 0o600 });
    const message = readError(credentials);
    expect(message).toStartWith(`${credentials}: is not valid JSON`);
    expect(message).not.toContain("sk-ant-secret-value");
    writeFileSync(credentials, '["sk-ant-secret-value"]', { mode: 0o600 });
    expect(readError(credentials)).toContain("must be a JSON object");
    writeFileSync(credentials, '{"ANTHROPIC_API_KEY": 42}', { mode: 0o600 });
    expect(readError(credentials)).toContain("the value of ANTHROPIC_API_KEY must be a string");
  });

  test("a failed write leaves the old file whole and no temp file behind", () => {
    using home = tempDir();
    const { credentials, dir } = garudaPaths(home.path);
    writeCredentials(credentials, { ANTHROPIC_API_KEY: "sk-old" });
    // A folder where the file should go makes the final rename fail.
    const blocked = join(dir, "blocked");
    mkdirSync(join(blocked, "inside"), { recursive: true });
    expect(() => writeCredentials(blocked, { ANTHROPIC_API_KEY: "sk-new" })).toThrow();
    expect(readdirSync(dir).sort()).toEqual(["blocked", "credentials"]);
    expect(readCredentials(credentials)).toEqual({ ANTHROPIC_API_KEY: "sk-old" });
  });
});
