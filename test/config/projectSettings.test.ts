import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../src/errors/configError.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { approveProjectSettings, describeLoosening, loadProjectSettings } from "../../src/config/projectSettings.ts";
import { TrustStore } from "../../src/config/trust.ts";
import { tempDir } from "../support/tempDir.ts";

function writeSettings(root: string, value: unknown): string {
  mkdirSync(join(root, ".garuda"), { recursive: true });
  const file = join(root, ".garuda", "settings.json");
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  return file;
}

function loadError(root: string, home: string): ConfigError {
  try {
    loadProjectSettings({ root, paths: garudaPaths(home) });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

const FULL = {
  permissions: { allow: ["bash(npm test*)"], ask: ["web_fetch"], deny: ["bash(rm -rf*)"] },
  sandbox: { writePaths: ["build-cache", "~/.cache/tool"], denyRead: ["secrets/**"] },
  network: { allow: ["npm", "api.example.com"] },
  env: { allow: ["NODE_ENV"] },
  limits: { maxSteps: 40, tokenBudget: 100000, processes: 256, memoryMB: 2048, cpuSeconds: 300 },
  profile: "strict",
  executor: "os",
};

describe("<root>/.garuda/settings.json", () => {
  test("no file: defaults, trusted, no notice", () => {
    using home = tempDir();
    using root = tempDir();
    const loaded = loadProjectSettings({ root: root.path, paths: garudaPaths(home.path) });
    expect(loaded.trusted).toBe(true);
    expect(loaded.loosening).toBeUndefined();
    expect(loaded.hash).toBeUndefined();
    expect(loaded.notices).toEqual([]);
    expect(loaded.settings).toEqual({
      rules: [],
      sandbox: { writePaths: [], denyRead: [] },
      network: { allow: [] },
      env: { allow: [] },
      limits: {},
      executor: "auto",
    });
  });

  test("an unknown key is an error naming the file and the key", () => {
    using home = tempDir();
    using root = tempDir();
    const file = writeSettings(root.path, { permissions: { alow: ["bash(ls)"] } });
    const error = loadError(root.path, home.path);
    expect(error.file).toBe(file);
    expect(error.message).toStartWith(`${file}: unknown key "permissions.alow"`);

    writeSettings(root.path, { model: "x" });
    expect(loadError(root.path, home.path).message).toContain('unknown key "model"');
    // Negative control: the right key loads.
    writeSettings(root.path, { permissions: { deny: ["bash(ls)"] } });
    expect(loadProjectSettings({ root: root.path, paths: garudaPaths(home.path) }).settings.rules).toHaveLength(1);
  });

  test("bad values and broken JSON are errors naming the file", () => {
    using home = tempDir();
    using root = tempDir();
    const file = writeSettings(root.path, { executor: "docker" });
    expect(loadError(root.path, home.path).message).toContain(`${file}: at executor:`);
    writeSettings(root.path, { permissions: { allow: ["bash(npm test"] } });
    expect(loadError(root.path, home.path).message).toContain("at permissions.allow.0: is not a rule");
    writeSettings(root.path, { network: { allow: ["https://example.com/x"] } });
    expect(loadError(root.path, home.path).message).toContain("at network.allow.0: must be a host");
    writeSettings(root.path, { limits: { maxSteps: 0 } });
    expect(loadError(root.path, home.path).message).toContain("at limits.maxSteps");
    writeSettings(root.path, { limits: { processes: 4 } });
    expect(loadError(root.path, home.path).message).toContain("at limits.processes: must be at least 8");
    writeSettings(root.path, "{ not json");
    expect(loadError(root.path, home.path).message).toContain(`${file}: is not valid JSON`);
    writeSettings(root.path, { profile: "strict", executor: "host" });
    expect(loadError(root.path, home.path).message).toContain('executor "host" cannot go with it');
  });

  test("loosening parts are ignored until pinned, with a notice that says what and how", () => {
    using home = tempDir();
    using root = tempDir();
    const paths = garudaPaths(home.path);
    const file = writeSettings(root.path, { ...FULL, profile: undefined, executor: "host" });
    const before = loadProjectSettings({ root: root.path, paths });
    expect(before.trusted).toBe(false);
    expect(before.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(before.settings.rules.map((rule) => `${rule.effect} ${rule.pattern}`)).toEqual([
      "deny bash(rm -rf*)",
      `deny read(${join(root.path, "secrets/**")})`,
      "ask web_fetch",
    ]);
    expect(before.settings.sandbox.writePaths).toEqual([]);
    expect(before.settings.network.allow).toEqual([]);
    expect(before.settings.env.allow).toEqual([]);
    expect(before.settings.executor).toBe("auto");
    expect(before.notices).toHaveLength(1);
    const notice = before.notices[0] as string;
    expect(notice).toStartWith(`${file} loosens safety, so these parts are ignored until you approve them:`);
    expect(notice).toContain("permissions.allow (run without asking): bash(npm test*)");
    expect(notice).toContain(
      `sandbox.writePaths (writable by commands): ${join(root.path, "build-cache")}, ${join(home.path, ".cache/tool")}`,
    );
    expect(notice).toContain("network.allow (hosts commands may reach): npm, api.example.com");
    expect(notice).toContain("env.allow (variables passed to commands): NODE_ENV");
    expect(notice).toContain('executor "host"');
    expect(notice).toContain("run `garuda` once in this folder");

    approveProjectSettings(before, new TrustStore(paths.trust), root.path);
    const after = loadProjectSettings({ root: root.path, paths });
    expect(after.trusted).toBe(true);
    expect(after.notices).toEqual([]);
    expect(after.settings.rules.map((rule) => `${rule.effect} ${rule.pattern}`)).toEqual([
      "deny bash(rm -rf*)",
      `deny read(${join(root.path, "secrets/**")})`,
      "ask web_fetch",
      "allow bash(npm test*)",
    ]);
    expect(after.settings.rules.every((rule) => rule.source === "project" && rule.file === file)).toBe(true);
    expect(after.settings.sandbox.writePaths).toEqual([join(root.path, "build-cache"), join(home.path, ".cache/tool")]);
    expect(after.settings.network.allow).toEqual(["npm", "api.example.com"]);
    expect(after.settings.env.allow).toEqual(["NODE_ENV"]);
    expect(after.settings.executor).toBe("host");
  });

  test("a changed loosening part needs a new yes; a changed tightening part does not", () => {
    using home = tempDir();
    using root = tempDir();
    const paths = garudaPaths(home.path);
    const trust = new TrustStore(paths.trust);
    writeSettings(root.path, { permissions: { allow: ["bash(npm test*)"] } });
    approveProjectSettings(loadProjectSettings({ root: root.path, paths }), trust, root.path);
    expect(loadProjectSettings({ root: root.path, paths }).trusted).toBe(true);

    // Tightening edits keep the approval.
    writeSettings(root.path, {
      permissions: { allow: ["bash(npm test*)"], deny: ["bash(curl*)"] },
      limits: { maxSteps: 5 },
    });
    const tightened = loadProjectSettings({ root: root.path, paths });
    expect(tightened.trusted).toBe(true);
    expect(tightened.settings.rules.map((rule) => rule.effect)).toEqual(["deny", "allow"]);

    // Widening the allow rule does not.
    writeSettings(root.path, { permissions: { allow: ["bash(*)"] } });
    const widened = loadProjectSettings({ root: root.path, paths });
    expect(widened.trusted).toBe(false);
    expect(widened.settings.rules).toEqual([]);
    expect(widened.notices[0]).toContain("changed since you approved it");
    expect(widened.notices[0]).toContain("bash(*)");
  });

  test("tightening parts apply without any approval", () => {
    using home = tempDir();
    using root = tempDir();
    writeSettings(root.path, {
      ...FULL,
      permissions: { ask: ["web_fetch"], deny: ["bash(rm -rf*)"] },
      sandbox: { denyRead: ["secrets/**", "/etc/shadow"] },
      network: undefined,
      env: undefined,
    });
    const loaded = loadProjectSettings({ root: root.path, paths: garudaPaths(home.path) });
    expect(loaded.loosening).toBeUndefined();
    expect(loaded.trusted).toBe(true);
    expect(loaded.notices).toEqual([]);
    // denyRead hides the same paths from the file tools: a deny read(…) rule each (a folder: also all within).
    expect(loaded.settings.rules.map((rule) => `${rule.effect} ${rule.pattern}`)).toEqual([
      "deny bash(rm -rf*)",
      `deny read(${join(root.path, "secrets/**")})`,
      "deny read(/etc/shadow)",
      "deny read(/etc/shadow/**)",
      "ask web_fetch",
    ]);
    expect(loaded.settings.sandbox.denyRead).toEqual([join(root.path, "secrets/**"), "/etc/shadow"]);
    expect(loaded.settings.limits).toEqual({
      maxSteps: 40,
      tokenBudget: 100000,
      processes: 256,
      memoryMB: 2048,
      cpuSeconds: 300,
    });
    expect(loaded.settings.profile).toBe("strict");
    expect(loaded.settings.executor).toBe("os");
  });

  test("tightening parts also apply while the loosening parts wait for a yes", () => {
    using home = tempDir();
    using root = tempDir();
    writeSettings(root.path, FULL);
    const loaded = loadProjectSettings({ root: root.path, paths: garudaPaths(home.path) });
    expect(loaded.trusted).toBe(false);
    expect(loaded.settings.sandbox.denyRead).toEqual([join(root.path, "secrets/**")]);
    expect(loaded.settings.limits).toEqual({
      maxSteps: 40,
      tokenBudget: 100000,
      processes: 256,
      memoryMB: 2048,
      cpuSeconds: 300,
    });
    expect(loaded.settings.profile).toBe("strict");
    expect(loaded.settings.executor).toBe("os");
  });

  test("a broken trust file: loosening ignored, and the notice says why", () => {
    using home = tempDir();
    using root = tempDir();
    const paths = garudaPaths(home.path);
    writeSettings(root.path, { env: { allow: ["NODE_ENV"] } });
    approveProjectSettings(loadProjectSettings({ root: root.path, paths }), new TrustStore(paths.trust), root.path);
    expect(loadProjectSettings({ root: root.path, paths }).settings.env.allow).toEqual(["NODE_ENV"]);
    writeFileSync(paths.trust, "{", { mode: 0o600 });
    const loaded = loadProjectSettings({ root: root.path, paths });
    expect(loaded.trusted).toBe(false);
    expect(loaded.settings.env.allow).toEqual([]);
    expect(loaded.notices[0]).toContain(`${paths.trust} is not valid JSON, so nothing in it is trusted`);
  });

  test("describeLoosening lists each loosening item, with hidden characters made visible", () => {
    using home = tempDir();
    using root = tempDir();
    const file = writeSettings(root.path, {
      permissions: { allow: ["bash(npm test\u202E*)"] },
      network: { allow: ["npm"] },
    });
    const loaded = loadProjectSettings({ root: root.path, paths: garudaPaths(home.path) });
    const text = describeLoosening(loaded.loosening!, file);
    expect(text.split("\n")).toEqual([
      `${file} asks for more than Garuda's safe defaults:`,
      "  • permissions.allow (run without asking): bash(npm test⟨U+202E⟩*)",
      "  • network.allow (hosts commands may reach): npm",
      "  (presets: npm = registry.npmjs.org registry.yarnpkg.com *.npmjs.org)",
    ]);
  });
});
