import { afterEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { findTarget, inspectBinary, TARGETS, type Target } from "../../scripts/buildTargets.ts";
import {
  RIPGREP_SOURCES,
  RipgrepMismatch,
  type RipgrepSource,
  ripgrepCacheDir,
  ripgrepFor,
  ripgrepSourceFor,
} from "../../scripts/ripgrepBuild.ts";
import { embeddedRipgrep } from "../../src/sandbox/ripgrep/program.ts";
import { tempDir } from "../support/tempDir.ts";

const target = (name: string): Target => findTarget(name) as Target;
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe("which rg goes into which binary", () => {
  test("x64 Linux targets get the static x64 rg, linux-arm64 the glibc arm64 one, the rest none", () => {
    const table = Object.fromEntries(TARGETS.map((t) => [t.name, ripgrepSourceFor(t)?.embeddedName ?? null]));
    expect(table).toEqual({
      "linux-x64": "rg-linux-x64.gz",
      "linux-x64-baseline": "rg-linux-x64.gz",
      "linux-arm64": "rg-linux-arm64.gz",
      "linux-x64-musl": "rg-linux-x64.gz",
      "linux-x64-musl-baseline": "rg-linux-x64.gz",
      // The only aarch64 rg needs glibc's loader, which a musl system lacks.
      "linux-arm64-musl": null,
      // No runner there (the bubblewrap one is Linux's).
      "darwin-x64": null,
      "darwin-arm64": null,
      "windows-x64": null,
    });
    expect(ripgrepSourceFor(target("linux-x64-musl"))?.linked).toBe("static");
    expect(ripgrepSourceFor(target("linux-arm64"))?.arch).toBe("arm64");
  });

  test("each pin is an exact package version and a sha256, and the binary finds its file by name", () => {
    for (const source of Object.values(RIPGREP_SOURCES)) {
      expect(source.version).toMatch(/^\d+\.\d+\.\d+-linux-(x64|arm64)$/);
      expect(source.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(source.path).toStartWith("package/");
      const blob = Object.assign(new Blob([]), { name: source.embeddedName.replace(".gz", "-1785k08a.gz") });
      expect(embeddedRipgrep([blob])?.name).toBe(blob.name);
    }
  });
});

/** An ELF header for `arch` (enough for inspectBinary), then `tail`. */
function elf(arch: "x64" | "arm64", tail: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(64 + tail.length);
  bytes.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
  new DataView(bytes.buffer).setUint16(18, arch === "x64" ? 62 : 183, true);
  bytes.set(Buffer.from(tail), 64);
  return bytes;
}

/**
 * A stand-in for `npm pack`: writes a tarball holding `payload` at `source.path` and prints what npm would; each
 * call is logged.
 */
function fakeNpm(dir: string, source: RipgrepSource, payload: Uint8Array): { npm: string; calls: () => number } {
  const file = join(dir, "payload");
  const log = join(dir, "npm.log");
  writeFileSync(file, payload);
  writeFileSync(log, "");
  const npm = join(dir, "npm");
  const printed = JSON.stringify([
    { filename: "pkg.tgz", integrity: "sha512-test", name: source.package, version: source.version },
  ]);
  writeFileSync(
    npm,
    `#!/bin/sh
echo "$*" >> '${log}'
[ -e '${dir}/offline' ] && { echo "npm error network" >&2; exit 1; }
stage=$(mktemp -d)
mkdir -p "$stage/$(dirname '${source.path}')"
cp '${file}' "$stage/${source.path}"
tar czf "$4/pkg.tgz" -C "$stage" package
rm -rf "$stage"
echo '${printed}'
`,
  );
  chmodSync(npm, 0o755);
  return { npm, calls: () => readFileSync(log, "utf8").split("\n").filter(Boolean).length };
}

describe("fetching a pinned rg", () => {
  const required = process.env.GARUDA_REQUIRE_RIPGREP;
  afterEach(() => {
    if (required === undefined) delete process.env.GARUDA_REQUIRE_RIPGREP;
    else process.env.GARUDA_REQUIRE_RIPGREP = required;
  });
  const payload = elf("x64", "the pinned rg");
  const source: RipgrepSource = { ...RIPGREP_SOURCES.x64, version: "0.0.0-test", sha256: sha256(payload) };
  const sources = { ...RIPGREP_SOURCES, x64: source };
  const quiet = () => {};

  test("fetches once with npm pack, keeps it gzipped, and a second build takes it from the cache", async () => {
    using dir = tempDir("garuda-rg-fetch-");
    const fake = fakeNpm(dir.path, source, payload);
    const options = { cacheDir: join(dir.path, "cache"), npm: fake.npm, sources, log: quiet };
    // Two builds at once (test files run in parallel): one fetch, the other waits for it.
    const [gz, same] = await Promise.all([
      ripgrepFor(target("linux-x64-musl"), options),
      ripgrepFor(target("linux-x64"), options),
    ]);
    expect(same).toBe(gz as string);
    expect(gz).toBe(join(ripgrepCacheDir(source, options.cacheDir), "rg-linux-x64.gz"));
    expect(Buffer.from(gunzipSync(readFileSync(gz as string)))).toEqual(Buffer.from(payload));
    expect(readFileSync(join(dir.path, "npm.log"), "utf8")).toMatch(
      /^pack @openai\/codex@0\.0\.0-test --pack-destination \S+ --json\n$/,
    );
    expect(await ripgrepFor(target("linux-x64"), options)).toBe(gz as string);
    expect(fake.calls()).toBe(1);
    // Without fetching: what the cache holds.
    expect(await ripgrepFor(target("linux-x64"), { ...options, npm: "/nonexistent", fetch: false })).toBe(gz as string);
  });

  test("a file that is not the pinned one fails the build, even where rg is not required", async () => {
    using dir = tempDir("garuda-rg-fetch-");
    const fake = fakeNpm(dir.path, source, elf("x64", "another rg"));
    delete process.env.GARUDA_REQUIRE_RIPGREP;
    const options = { cacheDir: join(dir.path, "cache"), npm: fake.npm, sources, log: quiet };
    const fetching = ripgrepFor(target("linux-x64"), options);
    await expect(fetching).rejects.toThrow(RipgrepMismatch);
    await expect(ripgrepFor(target("linux-x64"), options)).rejects.toThrow(`pinned ${source.sha256}`);
    expect(existsSync(join(ripgrepCacheDir(source, options.cacheDir), "rg-linux-x64.gz"))).toBe(false);
  });

  test("an rg for another CPU fails the build, though its hash is the pinned one", async () => {
    using dir = tempDir("garuda-rg-fetch-");
    const arm = elf("arm64", "an arm rg");
    const wrong = { ...sources, x64: { ...source, sha256: sha256(arm) } };
    const fake = fakeNpm(dir.path, source, arm);
    const options = { cacheDir: join(dir.path, "cache"), npm: fake.npm, sources: wrong, log: quiet };
    await expect(ripgrepFor(target("linux-x64"), options)).rejects.toThrow("elf/arm64, expected elf/x64");
  });

  test("a changed cached copy is fetched again", async () => {
    using dir = tempDir("garuda-rg-fetch-");
    const fake = fakeNpm(dir.path, source, payload);
    const options = { cacheDir: join(dir.path, "cache"), npm: fake.npm, sources, log: quiet };
    const gz = (await ripgrepFor(target("linux-x64"), options)) as string;
    writeFileSync(gz, Bun.gzipSync(elf("x64", "swapped")));
    expect(await ripgrepFor(target("linux-x64"), { ...options, fetch: false })).toBeUndefined();
    expect(await ripgrepFor(target("linux-x64"), options)).toBe(gz);
    expect(fake.calls()).toBe(2);
    expect(Buffer.from(gunzipSync(readFileSync(gz)))).toEqual(Buffer.from(payload));
  });

  test("a failed fetch builds without rg, saying so; with GARUDA_REQUIRE_RIPGREP=1 it fails the build", async () => {
    using dir = tempDir("garuda-rg-fetch-");
    const fake = fakeNpm(dir.path, source, payload);
    writeFileSync(join(dir.path, "offline"), "");
    const lines: string[] = [];
    const options = { cacheDir: join(dir.path, "cache"), npm: fake.npm, sources, log: (l: string) => lines.push(l) };
    delete process.env.GARUDA_REQUIRE_RIPGREP;
    expect(await ripgrepFor(target("linux-x64"), options)).toBeUndefined();
    expect(lines.join("\n")).toContain("linux-x64: no ripgrep embedded (");
    process.env.GARUDA_REQUIRE_RIPGREP = "1";
    await expect(ripgrepFor(target("linux-x64"), options)).rejects.toThrow("no ripgrep embedded");
  });

  test("a target without rg fetches nothing", async () => {
    using dir = tempDir("garuda-rg-fetch-");
    const fake = fakeNpm(dir.path, source, payload);
    for (const name of ["linux-arm64-musl", "darwin-arm64", "windows-x64"])
      expect(await ripgrepFor(target(name), { cacheDir: dir.path, npm: fake.npm, sources })).toBeUndefined();
    expect(fake.calls()).toBe(0);
  });
});

// The real pins, where the build cache holds them (`bun scripts/ripgrepBuild.ts linux-x64 linux-arm64`): the bytes a
// linux-arm64 binary embeds are an aarch64 ELF, the x64 ones an x86-64 ELF.
for (const name of ["linux-x64", "linux-arm64"]) {
  const gz = await ripgrepFor(target(name), { fetch: false, log: () => {} });
  test.skipIf(gz === undefined)(`the cached rg of ${name} is the pinned ${name.slice(6)} ELF`, async () => {
    using dir = tempDir("garuda-rg-real-");
    const bytes = gunzipSync(readFileSync(gz as string));
    const source = ripgrepSourceFor(target(name)) as RipgrepSource;
    expect(sha256(bytes)).toBe(source.sha256);
    writeFileSync(join(dir.path, "rg"), bytes);
    expect(await inspectBinary(join(dir.path, "rg"))).toEqual({ format: "elf", arch: source.arch });
  });
}
