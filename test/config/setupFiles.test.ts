import { describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../src/errors/configError.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { forgetCredential, modelsFileWithDefault, setDefaultModel } from "../../src/config/setupFiles.ts";
import { tempDir } from "../support/tempDir.ts";

const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));

describe("setDefaultModel", () => {
  test("a new file in a new 0700 folder", () => {
    using home = tempDir();
    const paths = garudaPaths(home.path);
    expect(setDefaultModel(paths.models, "claude-sonnet-5")).toBe(true);
    expect(readJson(paths.models)).toEqual({ default: "claude-sonnet-5" });
    expect(statSync(paths.dir).mode & 0o777).toBe(0o700);
  });

  test("keeps every other field, its order, and the file's mode; the same default changes nothing", () => {
    using home = tempDir();
    const paths = garudaPaths(home.path);
    mkdirSync(paths.dir);
    const before = {
      providers: { gw: { type: "anthropic", apiKeyEnv: "GW_KEY" } },
      default: "claude-opus-5",
      models: { "gw/x": { maxTokens: 10 } },
    };
    writeFileSync(paths.models, JSON.stringify(before), { mode: 0o640 });
    expect(setDefaultModel(paths.models, "gw/x")).toBe(true);
    const after = readJson(paths.models);
    expect(after).toEqual({ ...before, default: "gw/x" });
    expect(Object.keys(after)).toEqual(["providers", "default", "models"]);
    expect(statSync(paths.models).mode & 0o777).toBe(0o640);
    const text = readFileSync(paths.models, "utf8");
    expect(setDefaultModel(paths.models, "gw/x")).toBe(false);
    expect(readFileSync(paths.models, "utf8")).toBe(text);
  });

  test("writes through a symbolic link, which stays a link", () => {
    using home = tempDir();
    const paths = garudaPaths(home.path);
    mkdirSync(paths.dir);
    const real = join(home.path, "dotfiles-models.json");
    writeFileSync(real, "{}");
    symlinkSync(real, paths.models);
    setDefaultModel(paths.models, "claude-haiku-4-5");
    expect(lstatSync(paths.models).isSymbolicLink()).toBe(true);
    expect(readJson(real)).toEqual({ default: "claude-haiku-4-5" });
  });

  test("a malformed, non-object or invalid file is an error naming it, and is left as it was", () => {
    using home = tempDir();
    const paths = garudaPaths(home.path);
    mkdirSync(paths.dir);
    for (const content of ['{"default": ', "[]", '{"default": "x", "extra": 1}', '{"models": {"nowhere/m": {}}}']) {
      writeFileSync(paths.models, content);
      expect(() => setDefaultModel(paths.models, "claude-sonnet-5")).toThrow(ConfigError);
      expect(() => setDefaultModel(paths.models, "claude-sonnet-5")).toThrow(paths.models);
      expect(readFileSync(paths.models, "utf8")).toBe(content);
    }
  });

  test("a default naming an unknown provider is refused before writing", () => {
    using home = tempDir();
    const paths = garudaPaths(home.path);
    expect(() => modelsFileWithDefault(paths.models, "nowhere/model")).toThrow('unknown provider "nowhere"');
    expect(() => setDefaultModel(paths.models, "nowhere/model")).toThrow(ConfigError);
    expect(existsSync(paths.models)).toBe(false);
  });
});

describe("forgetCredential", () => {
  test("removes one key and keeps the others at 0600; the last key removes the file", () => {
    using home = tempDir();
    const paths = garudaPaths(home.path);
    mkdirSync(paths.dir, { mode: 0o700 });
    writeFileSync(paths.credentials, JSON.stringify({ A_KEY: "a", B_KEY: "b" }), { mode: 0o600 });
    expect(forgetCredential(paths.credentials, "A_KEY")).toBe("removed");
    expect(readJson(paths.credentials)).toEqual({ B_KEY: "b" });
    expect(statSync(paths.credentials).mode & 0o777).toBe(0o600);
    expect(forgetCredential(paths.credentials, "A_KEY")).toBe("absent");
    expect(forgetCredential(paths.credentials, "B_KEY")).toBe("removed-file");
    expect(existsSync(paths.credentials)).toBe(false);
    expect(forgetCredential(paths.credentials, "B_KEY")).toBe("absent");
  });

  test("an unsafe credentials file is an error, not rewritten", () => {
    using home = tempDir();
    const paths = garudaPaths(home.path);
    mkdirSync(paths.dir);
    writeFileSync(paths.credentials, JSON.stringify({ A_KEY: "a" }), { mode: 0o644 });
    expect(() => forgetCredential(paths.credentials, "A_KEY")).toThrow("can be read by other users");
    expect(readJson(paths.credentials)).toEqual({ A_KEY: "a" });
  });
});
