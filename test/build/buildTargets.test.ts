import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "../../scripts/build.ts";
import {
  BUNDLE_ROOT,
  COMPILE_FLAGS,
  WORKER_ENTRIES,
  TARGETS,
  archiveName,
  checkBinaryKind,
  checkVersions,
  compileArgs,
  findTarget,
  inspectBinary,
} from "../../scripts/buildTargets.ts";
import { ripgrepTargets } from "../../scripts/ripgrepBuild.ts";
import { tempDir } from "../support/tempDir.ts";

function project(dir: string, packageVersion: string, sourceVersion: string): string {
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "garuda", version: packageVersion }));
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src/version.ts"), `export const VERSION = "${sourceVersion}";\n`);
  return dir;
}

describe("checkVersions", () => {
  test("returns the version when package.json and src/version.ts agree", () => {
    using dir = tempDir();
    expect(checkVersions(project(dir.path, "2.3.4", "2.3.4"))).toBe("2.3.4");
  });

  test("names both versions when they disagree", () => {
    using dir = tempDir();
    expect(() => checkVersions(project(dir.path, "2.3.4", "2.3.5"))).toThrow(
      'version mismatch: package.json says "2.3.4" but src/version.ts says "2.3.5"',
    );
  });

  test("the repository's own versions agree", () => {
    expect(checkVersions()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe("targets", () => {
  test("cover linux glibc and musl, darwin and windows, with npm names using aarch64", () => {
    expect(TARGETS.map((t) => t.name)).toEqual([
      "linux-x64",
      "linux-x64-baseline",
      "linux-arm64",
      "linux-x64-musl",
      "linux-x64-musl-baseline",
      "linux-arm64-musl",
      "darwin-x64",
      "darwin-arm64",
      "windows-x64",
    ]);
    expect(findTarget("linux-arm64-musl")).toMatchObject({
      bunTarget: "bun-linux-arm64-musl",
      npmPackage: "@oven/bun-linux-aarch64-musl",
    });
    expect(findTarget("bun-darwin-arm64")?.npmPackage).toBe("@oven/bun-darwin-aarch64");
    expect(findTarget("linux-x64-musl-baseline")?.npmPackage).toBe("@oven/bun-linux-x64-musl-baseline");
    expect(findTarget("freebsd-x64")).toBeUndefined();
  });

  test("windows archives are zips, the others tar.gz", () => {
    expect(archiveName("1.0.0", findTarget("windows-x64")!)).toBe("garuda-1.0.0-windows-x64.zip");
    expect(archiveName("1.0.0", findTarget("darwin-arm64")!)).toBe("garuda-1.0.0-darwin-arm64.tar.gz");
  });
});

describe("compileArgs", () => {
  test("ships with autoload off, bytecode and no embedded source map (issue 19.5: size)", () => {
    const { args } = compileArgs({ entry: "/src/a.ts", outfile: "/out/garuda" });
    expect(args).toEqual([
      "build",
      ...COMPILE_FLAGS,
      `--root=${BUNDLE_ROOT}`,
      "/src/a.ts",
      ...WORKER_ENTRIES,
      "--outfile",
      "/out/garuda",
    ]);
    expect(args).toContain("--no-compile-autoload-dotenv");
    expect(args).toContain("--no-compile-autoload-bunfig");
    expect(args.filter((a) => a.startsWith("--sourcemap"))).toEqual([]);
  });

  test("sourcemap: true embeds the map, with the shipped flags otherwise", () => {
    const { args } = compileArgs({ entry: "/src/a.ts", outfile: "/out/garuda", sourcemap: true });
    expect(args.filter((a) => a.startsWith("--sourcemap"))).toEqual(["--sourcemap"]);
    for (const flag of COMPILE_FLAGS) expect(args).toContain(flag);
  });

  test("a cross build names the target and the runtime, and gets .exe on windows", () => {
    const { args, outfile } = compileArgs({
      entry: "/src/a.ts",
      outfile: "/out/garuda",
      target: "bun-windows-x64",
      executablePath: "/cache/bun.exe",
    });
    expect(outfile).toBe("/out/garuda.exe");
    expect(args).toContain("--target=bun-windows-x64");
    expect(args).toContain("--compile-executable-path=/cache/bun.exe");
  });

  test("assets (the embedded ripgrep) are entry points after the workers, by absolute path", () => {
    const { args } = compileArgs({ entry: "/src/a.ts", outfile: "/out/garuda", assets: ["/cache/rg-linux-x64.gz"] });
    expect(args.slice(args.indexOf("/src/a.ts"))).toEqual([
      "/src/a.ts",
      ...WORKER_ENTRIES,
      "/cache/rg-linux-x64.gz",
      "--outfile",
      "/out/garuda",
    ]);
  });

  test("which targets carry ripgrep: every Linux one but linux-arm64-musl (test/build/ripgrepBuild.test.ts)", () => {
    expect(TARGETS.filter(ripgrepTargets).map((t) => t.name)).toEqual([
      "linux-x64",
      "linux-x64-baseline",
      "linux-arm64",
      "linux-x64-musl",
      "linux-x64-musl-baseline",
    ]);
  });

  test("autoload: true (test controls only) drops exactly the two safety flags", () => {
    const { args } = compileArgs({ entry: "/a.ts", outfile: "/o", autoload: true });
    expect(args.filter((a) => a.includes("autoload"))).toEqual([]);
    expect(args).toContain("--bytecode");
  });
});

describe("parseArgs", () => {
  test("--all, --target NAME…, --target=NAME", () => {
    expect(parseArgs([]).targets).toEqual([]);
    expect(parseArgs(["--all"]).targets).toEqual([...TARGETS]);
    expect(parseArgs(["--target", "darwin-arm64", "bun-linux-arm64"]).targets.map((t) => t.name)).toEqual([
      "linux-arm64",
      "darwin-arm64",
    ]);
    expect(parseArgs(["--target=windows-x64"]).targets.map((t) => t.name)).toEqual(["windows-x64"]);
    expect(parseArgs([]).sourcemap).toBe(false);
    expect(parseArgs(["--target", "linux-arm64", "--sourcemap"])).toMatchObject({
      sourcemap: true,
      targets: [findTarget("linux-arm64")],
    });
  });

  test("rejects unknown targets and arguments", () => {
    expect(() => parseArgs(["--target", "linux-riscv64"])).toThrow('unknown target "linux-riscv64"');
    expect(() => parseArgs(["--fast"])).toThrow('unknown argument "--fast"');
  });
});

describe("inspectBinary", () => {
  function header(bytes: number[], at = 0, size = 128): Uint8Array {
    const out = new Uint8Array(size);
    out.set(bytes, at);
    return out;
  }

  test("reads ELF, Mach-O and PE headers", async () => {
    using dir = tempDir();
    const elfArm = header([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 183, 0]);
    const machoX64 = header([0xcf, 0xfa, 0xed, 0xfe, 0x07, 0x00, 0x00, 0x01]);
    const pe = header([0x4d, 0x5a]);
    pe.set([0x40, 0, 0, 0], 0x3c);
    pe.set([0x50, 0x45, 0, 0, 0x64, 0x86], 0x40);
    const files = { elfArm, machoX64, pe, text: new TextEncoder().encode("#!/bin/sh\n") };
    for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir.path, name), bytes);

    expect(await inspectBinary(join(dir.path, "elfArm"))).toEqual({ format: "elf", arch: "arm64" });
    expect(await inspectBinary(join(dir.path, "machoX64"))).toEqual({ format: "mach-o", arch: "x64" });
    expect(await inspectBinary(join(dir.path, "pe"))).toEqual({ format: "pe", arch: "x64" });
    expect(await inspectBinary(join(dir.path, "text"))).toEqual({ format: "unknown", arch: "other" });
    await checkBinaryKind(join(dir.path, "elfArm"), findTarget("linux-arm64")!);
    await expect(checkBinaryKind(join(dir.path, "machoX64"), findTarget("darwin-arm64")!)).rejects.toThrow(
      "expected mach-o/arm64",
    );
  });
});
