// Process tests of the compiled binary, built through the same function and flags as the
// release (scripts/buildTargets.ts). The security tests each have a negative control: the same
// entry built with Bun's default autoload flags does load the hostile project's files, so the
// tests prove that the shipped flags are what keeps them out.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  ENTRY,
  ROOT,
  buildBinary,
  checkBinaryVersion,
  hostOs,
  inspectBinary,
  readVersions,
} from "../../scripts/buildTargets.ts";
import { makeTempDir, tempDir } from "../support/tempDir.ts";

const PROBE_ENTRY = join(ROOT, "test/support/envProbe.ts");
const version = readVersions().packageJson;

let work = "";
const bin = { garuda: "", garudaAutoload: "", probe: "", probeAutoload: "", probeSourcemap: "" };

beforeAll(
  async () => {
    work = makeTempDir("garuda-binary-test-");
    // Two compiles at a time: each takes a core and ~250 MB.
    const [garuda, probe] = await Promise.all([
      buildBinary({ entry: ENTRY, outfile: join(work, "garuda") }),
      buildBinary({ entry: PROBE_ENTRY, outfile: join(work, "probe") }),
    ]);
    bin.probeSourcemap = (
      await buildBinary({ entry: PROBE_ENTRY, outfile: join(work, "probe-sourcemap"), sourcemap: true })
    ).outfile;
    const [garudaAutoload, probeAutoload] = await Promise.all([
      buildBinary({ entry: ENTRY, outfile: join(work, "garuda-autoload"), autoload: true }),
      buildBinary({ entry: PROBE_ENTRY, outfile: join(work, "probe-autoload"), autoload: true }),
    ]);
    bin.garuda = garuda.outfile;
    bin.probe = probe.outfile;
    bin.garudaAutoload = garudaAutoload.outfile;
    bin.probeAutoload = probeAutoload.outfile;
  },
  { timeout: 120_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a binary with only PATH and HOME set (no BUN_OPTIONS or other ambient settings). */
async function run(binary: string, args: string[], cwd: string): Promise<Ran> {
  const proc = Bun.spawn([binary, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? cwd },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/** A project folder as an attacker might leave it; returns the file the preload would create. */
function hostileProject(dir: string): string {
  writeFileSync(join(dir, ".env"), "GARUDA_DOTENV_PROBE=from-dotenv\n");
  writeFileSync(join(dir, "bunfig.toml"), 'preload = ["./pre.ts"]\n');
  writeFileSync(
    join(dir, "pre.ts"),
    'import { writeFileSync } from "node:fs";\nwriteFileSync(`${process.cwd()}/preload-ran`, "yes\\n");\n',
  );
  return join(dir, "preload-ran");
}

describe("the compiled binary", () => {
  test("--version prints exactly the package.json version and exits 0", async () => {
    using dir = tempDir();
    const ran = await run(bin.garuda, ["--version"], dir.path);
    expect(ran.stdout).toBe(`${version}\n`);
    expect(ran.code).toBe(0);
  });

  test("the build's --version check passes it and rejects any other version", async () => {
    await checkBinaryVersion(bin.garuda, version);
    await expect(checkBinaryVersion(bin.garuda, `${version}-other`)).rejects.toThrow(`expected "${version}-other"`);
  });

  test("--help exits 0 and names garuda", async () => {
    using dir = tempDir();
    const ran = await run(bin.garuda, ["--help"], dir.path);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("garuda");
  });

  // Issue 19.5: the runtime is 107.4 MB of it on linux-x64; the rest is ours (bench/size.ts says what).
  // Issue 35.1's budget: 125 MB with the embedded ripgrep (2.1 MB gzipped) on linux-x64: 116.3 MB.
  test.if(process.platform === "linux")("is at most 125 MB (10^6 bytes)", () => {
    expect(Bun.file(bin.garuda).size).toBeLessThanOrEqual(125e6);
  });

  test("is an executable for this machine", async () => {
    const kind = await inspectBinary(bin.garuda);
    expect(kind).toEqual({ format: hostOs() === "darwin" ? "mach-o" : "elf", arch: process.arch as "x64" | "arm64" });
  });

  // Issue 19.5: the shipped binary carries no source map (2.8 MB); a --sourcemap build maps traces.
  test(
    "a shipped binary's stack trace names its embedded chunk; a sourcemap build " + "names the source file and line",
    async () => {
      using dir = tempDir();
      const shipped = await run(bin.probe, ["throw"], dir.path);
      expect(shipped.code).not.toBe(0);
      expect(shipped.stderr).toContain("probe failure");
      expect(shipped.stderr).toContain("/$bunfs/root/");
      expect(shipped.stderr).not.toMatch(/envProbe\.ts:5/);
      expect(existsSync(`${bin.probeSourcemap}.map`)).toBe(false);
      const mapped = await run(bin.probeSourcemap, ["throw"], dir.path);
      expect(mapped.code).not.toBe(0);
      expect(mapped.stderr).toMatch(/test\/support\/envProbe\.ts:5:\d+/);
    },
  );
});

describe("nothing in the working directory is loaded", () => {
  test("garuda ignores the project's bunfig.toml preload and .env", async () => {
    using dir = tempDir();
    const marker = hostileProject(dir.path);
    const version_ = await run(bin.garuda, ["--version"], dir.path);
    const help = await run(bin.garuda, ["--help"], dir.path);
    expect(version_.stdout).toBe(`${version}\n`);
    expect(help.code).toBe(0);
    expect(`${help.stdout}${help.stderr}`).not.toContain("from-dotenv");
    expect(existsSync(marker)).toBe(false);
  });

  test("control: garuda built with Bun's default flags runs the project's preload", async () => {
    using dir = tempDir();
    const marker = hostileProject(dir.path);
    const ran = await run(bin.garudaAutoload, ["--version"], dir.path);
    expect(ran.stdout).toBe(`${version}\n`);
    expect(existsSync(marker)).toBe(true);
  });

  test("a program built with the shipped flags sees nothing from .env", async () => {
    using dir = tempDir();
    const marker = hostileProject(dir.path);
    const ran = await run(bin.probe, [], dir.path);
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({ probe: null });
    expect(existsSync(marker)).toBe(false);
  });

  test("control: the same program built with Bun's default flags loads .env and the preload", async () => {
    using dir = tempDir();
    const marker = hostileProject(dir.path);
    const ran = await run(bin.probeAutoload, [], dir.path);
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({ probe: "from-dotenv" });
    expect(existsSync(marker)).toBe(true);
  });
});
