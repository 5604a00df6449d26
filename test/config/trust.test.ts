import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../src/errors/configError.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { readTrustFile, sha256Hex, TrustStore } from "../../src/config/trust.ts";
import { tempDir } from "../support/tempDir.ts";

const HASH_A = sha256Hex("content a");
const HASH_B = sha256Hex("content b");

describe("~/.garuda/trust.json", () => {
  test("a pin is trusted for exactly its kind, root and hash", () => {
    using home = tempDir();
    using project = tempDir();
    const trust = new TrustStore(garudaPaths(home.path).trust);
    expect(trust.isTrusted("settings", project.path, HASH_A)).toBe(false);
    trust.pin("settings", project.path, HASH_A);
    expect(trust.isTrusted("settings", project.path, HASH_A)).toBe(true);
    // A changed file has another hash: not trusted.
    expect(trust.isTrusted("settings", project.path, HASH_B)).toBe(false);
    // Another kind or another root: not trusted.
    expect(trust.isTrusted("hooks", project.path, HASH_A)).toBe(false);
    expect(trust.isTrusted("settings", home.path, HASH_A)).toBe(false);
    expect(trust.notices()).toEqual([]);
  });

  test("hosts remembered for a project: only that root's, only plain names, never a pattern", () => {
    using home = tempDir();
    using project = tempDir();
    using other = tempDir();
    const trust = new TrustStore(garudaPaths(home.path).trust);
    expect(trust.rememberedHosts(project.path)).toEqual([]);
    trust.pin("settings", project.path, HASH_A);
    trust.rememberHost(project.path, "registry.npmjs.org");
    trust.rememberHost(project.path, "registry.npmjs.org");
    trust.rememberHost(project.path, "10.0.0.7");
    expect(trust.rememberedHosts(project.path)).toEqual(["registry.npmjs.org", "10.0.0.7"]);
    expect(trust.rememberedHosts(other.path)).toEqual([]);
    // The other pins are kept.
    expect(trust.isTrusted("settings", project.path, HASH_A)).toBe(true);
    expect(() => trust.rememberHost(project.path, "*.example.com")).toThrow();
    // A pattern or a non-string written into the file by hand allows nothing.
    const data = JSON.parse(readFileSync(trust.path, "utf8"));
    const key = Object.keys(data.network)[0] as string;
    data.network[key].push("*", "*.com", "a b", 7, "");
    writeFileSync(trust.path, JSON.stringify(data), { mode: 0o600 });
    expect(trust.rememberedHosts(project.path)).toEqual(["registry.npmjs.org", "10.0.0.7"]);
  });

  test("written with version 1, 0600 in a 0700 folder, atomically (no temp file left)", () => {
    using home = tempDir();
    using project = tempDir();
    const paths = garudaPaths(home.path);
    new TrustStore(paths.trust).pin("hooks", project.path, HASH_A);
    expect(statSync(paths.trust).mode & 0o777).toBe(0o600);
    expect(statSync(paths.dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(paths.dir)).toEqual(["trust.json"]);
    const data = JSON.parse(readFileSync(paths.trust, "utf8"));
    expect(data.version).toBe(1);
    expect(Object.values(data.hooks)).toEqual([HASH_A]);
  });

  test("pins by real path: a symlink to the project is the same project", () => {
    using home = tempDir();
    using project = tempDir();
    const link = join(home.path, "link");
    symlinkSync(project.path, link);
    const trust = new TrustStore(garudaPaths(home.path).trust);
    trust.pin("settings", link, HASH_A);
    expect(trust.isTrusted("settings", project.path, HASH_A)).toBe(true);
    const data = JSON.parse(readFileSync(trust.path, "utf8"));
    expect(Object.keys(data.settings)).toEqual([project.path]);
  });

  test("pin keeps every other pin and section; a new pin replaces the old hash", () => {
    using home = tempDir();
    using one = tempDir();
    using two = tempDir();
    const trust = new TrustStore(garudaPaths(home.path).trust);
    mkdirSync(garudaPaths(home.path).dir, { mode: 0o700 });
    const mcp = { "~": { github: { def: "x", tools: [] } } };
    writeFileSync(trust.path, JSON.stringify({ version: 1, mcp, hooks: { [one.path]: HASH_B } }), { mode: 0o600 });
    trust.pin("settings", one.path, HASH_A);
    trust.pin("settings", two.path, HASH_A);
    trust.pin("settings", one.path, HASH_B);
    expect(trust.isTrusted("settings", one.path, HASH_B)).toBe(true);
    expect(trust.isTrusted("settings", one.path, HASH_A)).toBe(false);
    expect(trust.isTrusted("settings", two.path, HASH_A)).toBe(true);
    expect(trust.isTrusted("hooks", one.path, HASH_B)).toBe(true);
    expect(JSON.parse(readFileSync(trust.path, "utf8")).mcp).toEqual(mcp);
  });

  test("revoke removes one pin only", () => {
    using home = tempDir();
    using project = tempDir();
    const trust = new TrustStore(garudaPaths(home.path).trust);
    trust.pin("settings", project.path, HASH_A);
    trust.pin("hooks", project.path, HASH_B);
    trust.revoke("settings", project.path);
    expect(trust.isTrusted("settings", project.path, HASH_A)).toBe(false);
    expect(trust.isTrusted("hooks", project.path, HASH_B)).toBe(true);
    trust.revoke("settings", project.path);
    expect(trust.pinned("settings", project.path)).toBeUndefined();
  });

  test("a broken trust file trusts nothing and says so; it is not overwritten", () => {
    using home = tempDir();
    using project = tempDir();
    const trust = new TrustStore(garudaPaths(home.path).trust);
    // Negative control: the well-formed file trusts the pin.
    trust.pin("settings", project.path, HASH_A);
    expect(trust.isTrusted("settings", project.path, HASH_A)).toBe(true);

    const good = readFileSync(trust.path, "utf8");
    writeFileSync(trust.path, `${good.slice(0, -4)}`, { mode: 0o600 });
    expect(trust.isTrusted("settings", project.path, HASH_A)).toBe(false);
    const notices = trust.notices();
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(`${trust.path} is not valid JSON, so nothing in it is trusted`);
    expect(() => trust.pin("hooks", project.path, HASH_B)).toThrow(ConfigError);
    expect(readFileSync(trust.path, "utf8")).toBe(good.slice(0, -4));
  });

  test("wrong shapes, versions and modes trust nothing", () => {
    using home = tempDir();
    using project = tempDir();
    const trust = new TrustStore(garudaPaths(home.path).trust);
    mkdirSync(garudaPaths(home.path).dir, { mode: 0o700 });
    const write = (value: unknown) => writeFileSync(trust.path, JSON.stringify(value), { mode: 0o600 });

    write({ version: 1, settings: { [project.path]: HASH_A } });
    expect(trust.isTrusted("settings", project.path, HASH_A)).toBe(true);

    write({ version: 2, settings: { [project.path]: HASH_A } });
    expect(trust.isTrusted("settings", project.path, HASH_A)).toBe(false);
    expect(readTrustFile(trust.path).problem).toBe("has version 2, and this Garuda reads version 1");

    write({ version: 1, settings: { [project.path]: "not-a-hash" } });
    expect(trust.isTrusted("settings", project.path, HASH_A)).toBe(false);
    expect(readTrustFile(trust.path).problem).toContain(`at settings.${project.path}`);

    write([]);
    expect(trust.isTrusted("settings", project.path, HASH_A)).toBe(false);

    write({ version: 1, settings: { [project.path]: HASH_A } });
    chmodSync(trust.path, 0o666);
    expect(trust.isTrusted("settings", project.path, HASH_A)).toBe(false);
    expect(readTrustFile(trust.path).problem).toBe("can be changed by other users (mode 666)");
  });

  test("an unreadable or symlinked trust file trusts nothing and does not throw", () => {
    using home = tempDir();
    using project = tempDir();
    const paths = garudaPaths(home.path);
    const trust = new TrustStore(paths.trust);
    const elsewhere = join(home.path, "elsewhere.json");
    writeFileSync(elsewhere, JSON.stringify({ version: 1, settings: { [project.path]: HASH_A } }), { mode: 0o600 });
    mkdirSync(paths.dir, { mode: 0o700 });
    symlinkSync(elsewhere, paths.trust);
    expect(trust.isTrusted("settings", project.path, HASH_A)).toBe(false);
    expect(trust.notices()[0]).toContain("is a symbolic link");
    // A folder where the file should be.
    using other = tempDir();
    const folderTrust = new TrustStore(other.path);
    expect(folderTrust.isTrusted("settings", project.path, HASH_A)).toBe(false);
    expect(folderTrust.notices()).toHaveLength(1);
  });

  test("a missing file trusts nothing and is no problem", () => {
    using home = tempDir();
    using project = tempDir();
    const trust = new TrustStore(garudaPaths(home.path).trust);
    expect(trust.isTrusted("hooks", project.path, HASH_A)).toBe(false);
    expect(trust.notices()).toEqual([]);
  });

  test("a value that is not a SHA-256 is never trusted or pinned", () => {
    using home = tempDir();
    using project = tempDir();
    const trust = new TrustStore(garudaPaths(home.path).trust);
    expect(() => trust.pin("settings", project.path, "abc")).toThrow("not a SHA-256");
    expect(trust.isTrusted("settings", project.path, "")).toBe(false);
  });
});
