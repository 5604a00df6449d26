// How Garuda's binaries are compiled: the target table, the one `bun build --compile` call
// every binary goes through, the version check, and where cross-compilation runtimes come
// from. scripts/build.ts, the binary tests and the benches all build through this file, so a
// test proves the flags the release uses.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { chmod } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { ripgrepFor } from "./ripgrepBuild.ts";

export const ROOT = resolve(import.meta.dir, "..");
export const ENTRY = join(ROOT, "src/cli/index.ts");
/**
 * Worker threads' modules, each its own entry point of the binary (Bun bundles a worker only when
 * it is one). With `--root src` a worker lands at its path under src/ inside the binary
 * (/$bunfs/root/tools/grepWorker.js), where src/tools/searchWorker.ts looks for it.
 */
export const WORKER_ENTRIES = [
  join(ROOT, "src/tools/grepWorker.ts"),
  join(ROOT, "src/tools/codeIndex/outlineWorker.ts"),
] as const;
export const BUNDLE_ROOT = join(ROOT, "src");
export const DIST = join(ROOT, "dist");

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** Why `binary` must be built again (missing, or older than src/ or package.json); undefined when it is current. */
export function staleReason(binary: string): string | undefined {
  if (!existsSync(binary)) return "it is missing";
  const sources = Math.max(newestMtime(join(ROOT, "src")), statSync(join(ROOT, "package.json")).mtimeMs);
  return statSync(binary).mtimeMs < sources ? "src/ is newer" : undefined;
}

/**
 * The flags of every shipped binary. The two `--no-compile-autoload-*` flags are a security
 * requirement: by default a compiled binary loads `.env` and runs `bunfig.toml` preloads from
 * its working directory, which for an agent is the user's (untrusted) project.
 * No `--sourcemap` in a shipped binary: Bun 1.4 embeds the map whatever its mode (`external`
 * too), and it was 2.8 MB of the 115 MB budget (issue 19.5; bench/size.ts). Stack traces of a
 * shipped binary name the minified chunk (`/$bunfs/root/index-….js:1:2345`); a build with
 * `sourcemap: true` (`bun scripts/build.ts --sourcemap`) has the same chunks, names and lines
 * plus the map, so it reproduces a trace with original files and lines.
 */
export const SAFE_FLAGS = ["--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig"] as const;
// --splitting (ESM only) keeps each command's code in its own chunk: the entry `garuda --version` loads stays
// tiny, so its bytecode loads in ~5 ms instead of ~11 ms for one 1.4 MB chunk (bench/startup.ts).
// --bytecode-depth=0: bytecode for each module's top-level code (and its import/export records, so
// no module is parsed whole at start-up); functions are compiled from source when first called.
// Full-depth bytecode was 8.3 MB (≈4 bytes per byte of minified JS), depth 1 3.6 MB more than depth
// 0; only depth 0 keeps the binary under 115 MB (issue 19.5; measured with bench/size.ts).
// --compile-jit-policy=16: JavaScriptCore waits 16 times longer before compiling a function, so the
// functions start-up runs a few times (now compiled from source at depth 0) are not JIT-compiled as
// well; src/cli/index.ts puts every process back on the normal policy 300 ms after it starts. It wins
// back most of what depth 0 costs: the CPU time of acp start to session/new, +31 ms at depth 0, +8 ms with it.
export const COMPILE_FLAGS = [
  "--compile",
  "--minify",
  "--bytecode",
  "--bytecode-depth=0",
  "--compile-jit-policy=16",
  "--format=esm",
  "--splitting",
  ...SAFE_FLAGS,
] as const;

export type Os = "linux" | "darwin" | "windows";
export type Arch = "x64" | "arm64";

export interface Target {
  /** Our name, used in archive names: `linux-arm64-musl`. */
  name: string;
  /** Bun's `--target`: `bun-linux-arm64-musl`. */
  bunTarget: string;
  /** The npm package holding that runtime; npm names use `aarch64`, not `arm64`. */
  npmPackage: string;
  os: Os;
  arch: Arch;
  musl: boolean;
  /** Built for CPUs without AVX2. */
  baseline: boolean;
}

function target(os: Os, arch: Arch, variant: { musl?: boolean; baseline?: boolean } = {}): Target {
  const musl = variant.musl ?? false;
  const baseline = variant.baseline ?? false;
  const suffix = `${musl ? "-musl" : ""}${baseline ? "-baseline" : ""}`;
  const npmArch = arch === "arm64" ? "aarch64" : "x64";
  return {
    name: `${os}-${arch}${suffix}`,
    bunTarget: `bun-${os}-${arch}${suffix}`,
    npmPackage: `@oven/bun-${os}-${npmArch}${suffix}`,
    os,
    arch,
    musl,
    baseline,
  };
}

/** Everything `scripts/build.ts --all` ships. */
export const TARGETS: readonly Target[] = [
  target("linux", "x64"),
  target("linux", "x64", { baseline: true }),
  target("linux", "arm64"),
  target("linux", "x64", { musl: true }),
  target("linux", "x64", { musl: true, baseline: true }),
  target("linux", "arm64", { musl: true }),
  target("darwin", "x64"),
  target("darwin", "arm64"),
  target("windows", "x64"),
];

/** Finds a target by our name or Bun's (`linux-arm64` or `bun-linux-arm64`). */
export function findTarget(name: string): Target | undefined {
  const bare = name.startsWith("bun-") ? name.slice(4) : name;
  return TARGETS.find((t) => t.name === bare);
}

export function binaryName(os: Os): string {
  return os === "windows" ? "garuda.exe" : "garuda";
}

/** `garuda-<version>-<target>.tar.gz`, or `.zip` for windows. */
export function archiveName(version: string, t: Target): string {
  return `garuda-${version}-${t.name}.${t.os === "windows" ? "zip" : "tar.gz"}`;
}

export function hostOs(): Os | undefined {
  if (process.platform === "linux" || process.platform === "darwin") return process.platform;
  if (process.platform === "win32") return "windows";
  return undefined;
}

/** The target of a build for this machine (Bun's default: glibc, AVX2). */
export function hostTarget(): Target | undefined {
  const os = hostOs();
  return TARGETS.find((t) => t.os === os && t.arch === process.arch && !t.musl && !t.baseline);
}

/** Whether a binary for `t` can be started on this machine (musl builds are never assumed to). */
export function runsHere(t: Target): boolean {
  return t.os === hostOs() && t.arch === process.arch && !t.musl;
}

// ---------------------------------------------------------------------------------------------
// Versions

export interface Versions {
  packageJson: string;
  source: string;
}

export function readVersions(root = ROOT): Versions {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: unknown };
  const text = readFileSync(join(root, "src/version.ts"), "utf8");
  const match = /export const VERSION\s*=\s*"([^"]+)"/.exec(text);
  if (typeof pkg.version !== "string") throw new Error(`${join(root, "package.json")} has no "version" string`);
  if (!match?.[1]) throw new Error(`${join(root, "src/version.ts")} has no \`export const VERSION = "…"\` line`);
  return { packageJson: pkg.version, source: match[1] };
}

/** Returns the version, or throws when package.json and src/version.ts disagree. */
export function checkVersions(root = ROOT): string {
  const { packageJson, source } = readVersions(root);
  if (packageJson !== source) {
    throw new Error(
      `version mismatch: package.json says "${packageJson}" but src/version.ts says "${source}". ` +
        `Set both to the version being released.`,
    );
  }
  return packageJson;
}

// ---------------------------------------------------------------------------------------------
// Compiling

export interface BuildBinaryOptions {
  entry: string;
  /** Where the binary goes; for a windows target `.exe` is appended when missing. */
  outfile: string;
  /** Bun's target name (`bun-linux-arm64`); the running bun's own platform when absent. */
  target?: string;
  /** The target's bun runtime, so the build never downloads one. */
  executablePath?: string;
  /** Only for tests' negative controls: build with Bun's default (unsafe) autoload flags. */
  autoload?: boolean;
  /** Embeds the source map (+2.8 MB), so stack traces name original files and lines; off by default. */
  sourcemap?: boolean;
  /**
   * Files embedded as they are (Bun.embeddedFiles): Garuda's binary gets its target's ripgrep
   * (scripts/ripgrepBuild.ts).
   */
  assets?: string[];
}

export interface BuiltBinary {
  outfile: string;
  bytes: number;
  ms: number;
}

export function compileArgs(options: BuildBinaryOptions): { args: string[]; outfile: string } {
  let outfile = resolve(options.outfile);
  if (options.target?.includes("windows") && !outfile.endsWith(".exe")) outfile += ".exe";
  const flags = COMPILE_FLAGS.filter((flag) => !(options.autoload && (SAFE_FLAGS as readonly string[]).includes(flag)));
  const args = ["build", ...flags];
  if (options.sourcemap) args.push("--sourcemap");
  if (options.target) args.push(`--target=${options.target}`);
  if (options.executablePath) args.push(`--compile-executable-path=${resolve(options.executablePath)}`);
  args.push(
    `--root=${BUNDLE_ROOT}`,
    resolve(options.entry),
    ...WORKER_ENTRIES,
    ...(options.assets ?? []).map((a) => resolve(a)),
  );
  args.push("--outfile", outfile);
  return { args, outfile };
}

/** Compiles `entry` into a standalone binary with the shipped flags, using the running bun. */
export async function buildBinary(options: BuildBinaryOptions): Promise<BuiltBinary> {
  // Garuda's own binary embeds its target's ripgrep where there is one (benches' small binaries do not).
  const target = options.target === undefined ? hostTarget() : findTarget(options.target);
  const rg = resolve(options.entry) === ENTRY && target ? await ripgrepFor(target) : undefined;
  const { args, outfile } = compileArgs(rg ? { ...options, assets: [...(options.assets ?? []), rg] } : options);
  mkdirSync(dirname(outfile), { recursive: true });
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const ms = performance.now() - started;
  if (code !== 0) {
    throw new Error(`bun ${args.join(" ")} failed (exit ${code}):\n${stdout}${stderr}`);
  }
  // With --compile --sourcemap the map is embedded in the binary; the entry's separate file is not
  // needed (the chunks' <chunk>.js.map files stay beside it, for reading a trace by hand).
  rmSync(`${outfile}.map`, { force: true });
  return { outfile, bytes: statSync(outfile).size, ms };
}

/** Runs `binary --version` and throws unless it prints exactly `version` and a newline. */
export async function checkBinaryVersion(binary: string, version: string): Promise<void> {
  const proc = Bun.spawn([binary, "--version"], {
    // No ambient BUN_OPTIONS or BUN_BE_BUN: those change what a compiled binary does.
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0 || stdout.replace(/\r?\n$/, "") !== version) {
    throw new Error(
      `${binary} --version: expected "${version}" and exit 0, got exit ${code}, ` +
        `stdout ${JSON.stringify(stdout)}, stderr ${JSON.stringify(stderr)}`,
    );
  }
}

/**
 * Builds `dist/garuda` (`garuda.exe` on Windows) for this machine with the running bun, after
 * checking the two version sources agree, and checks that the binary prints that version.
 */
export async function buildHost(
  outfile?: string,
  options: { sourcemap?: boolean } = {},
): Promise<BuiltBinary & { version: string }> {
  const version = checkVersions();
  const os = hostOs();
  if (!os) throw new Error(`no Garuda build for platform ${process.platform}`);
  const built = await buildBinary({
    entry: ENTRY,
    outfile: outfile ?? join(DIST, binaryName(os)),
    sourcemap: options.sourcemap ?? false,
  });
  await checkBinaryVersion(built.outfile, version);
  return { ...built, version };
}

// ---------------------------------------------------------------------------------------------
// Cross-compilation runtimes, from the npm registry through `npm pack`

export function defaultCacheDir(): string {
  if (process.env.GARUDA_BUILD_CACHE) return resolve(process.env.GARUDA_BUILD_CACHE);
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "garuda-build");
}

export interface FetchRuntimeOptions {
  /** Exact bun version; the running bun's by default, so runtime and bundler match. */
  bunVersion?: string;
  cacheDir?: string;
  log?: (line: string) => void;
}

/** Runs `cmd` in `cwd` and returns its stdout; throws with its output when it fails. */
export async function run(cmd: string[], cwd: string): Promise<string> {
  const proc = Bun.spawn(cmd, { cwd, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`${cmd.join(" ")} failed (exit ${code}):\n${stdout}${stderr}`);
  return stdout;
}

/**
 * Returns the path of the bun runtime for `t`, fetched once with
 * `npm pack @oven/bun-<os>-<arch>…@<bunVersion>` (so any npm mirror or proxy configured for npm
 * applies, and npm checks the tarball's integrity) and kept in the cache folder.
 */
export async function fetchRuntime(t: Target, options: FetchRuntimeOptions = {}): Promise<string> {
  const bunVersion = options.bunVersion ?? Bun.version;
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const exe = t.os === "windows" ? "bun.exe" : "bun";
  const dir = join(cacheDir, `${t.npmPackage.replace("@oven/", "")}-${bunVersion}`);
  const path = join(dir, exe);
  if (existsSync(join(dir, "complete.json")) && existsSync(path)) return path;

  const npm = Bun.which("npm");
  if (!npm) throw new Error(`npm is needed to fetch ${t.npmPackage}@${bunVersion}; install Node.js/npm`);
  mkdirSync(cacheDir, { recursive: true });
  const work = mkdtempSync(join(cacheDir, ".fetch-"));
  try {
    const spec = `${t.npmPackage}@${bunVersion}`;
    options.log?.(`fetching ${spec} with npm pack`);
    const out = await run([npm, "pack", spec, "--pack-destination", work, "--json"], ROOT);
    const packed = JSON.parse(out) as { filename: string; integrity: string; name: string; version: string }[];
    const info = packed[0];
    if (!info || info.name !== t.npmPackage || info.version !== bunVersion) {
      throw new Error(`npm pack ${spec} returned ${JSON.stringify(packed)}`);
    }
    const tgz = await Bun.file(join(work, info.filename)).bytes();
    await new Bun.Archive(tgz).extract(work, { glob: [`package/bin/${exe}`, "package/package.json"] });
    const unpacked = join(work, "package");
    const manifest = JSON.parse(readFileSync(join(unpacked, "package.json"), "utf8")) as {
      name?: string;
      version?: string;
    };
    if (manifest.name !== t.npmPackage || manifest.version !== bunVersion) {
      throw new Error(`${info.filename} holds ${manifest.name}@${manifest.version}, expected ${spec}`);
    }
    const staged = join(work, "runtime");
    mkdirSync(staged);
    renameSync(join(unpacked, "bin", exe), join(staged, exe));
    await chmod(join(staged, exe), 0o755);
    writeFileSync(
      join(staged, "complete.json"),
      `${JSON.stringify({ package: spec, integrity: info.integrity }, null, 2)}\n`,
    );
    rmSync(dir, { recursive: true, force: true });
    renameSync(staged, dir);
    return path;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Checking what came out

export interface BinaryKind {
  format: "elf" | "mach-o" | "pe" | "unknown";
  arch: Arch | "other";
}

/** Reads the executable header: ELF e_machine, Mach-O cputype or PE machine. */
export async function inspectBinary(path: string): Promise<BinaryKind> {
  const head = new DataView((await Bun.file(path).slice(0, 4096).arrayBuffer()) as ArrayBuffer);
  const u8 = (at: number) => head.getUint8(at);
  if (head.byteLength >= 20 && u8(0) === 0x7f && u8(1) === 0x45 && u8(2) === 0x4c && u8(3) === 0x46) {
    const machine = head.getUint16(18, u8(5) === 1); // EI_DATA 1 = little-endian
    return { format: "elf", arch: machine === 62 ? "x64" : machine === 183 ? "arm64" : "other" };
  }
  if (head.byteLength >= 8 && head.getUint32(0, true) === 0xfeedfacf) {
    const cpu = head.getUint32(4, true);
    return { format: "mach-o", arch: cpu === 0x01000007 ? "x64" : cpu === 0x0100000c ? "arm64" : "other" };
  }
  if (head.byteLength >= 64 && u8(0) === 0x4d && u8(1) === 0x5a) {
    const pe = head.getUint32(0x3c, true);
    if (pe + 6 <= head.byteLength && head.getUint32(pe, true) === 0x00004550) {
      const machine = head.getUint16(pe + 4, true);
      return { format: "pe", arch: machine === 0x8664 ? "x64" : machine === 0xaa64 ? "arm64" : "other" };
    }
  }
  return { format: "unknown", arch: "other" };
}

const FORMAT_OF: Record<Os, BinaryKind["format"]> = { linux: "elf", darwin: "mach-o", windows: "pe" };

/** Throws unless the file at `path` is an executable for `t`'s OS and CPU. */
export async function checkBinaryKind(path: string, t: Target): Promise<BinaryKind> {
  const kind = await inspectBinary(path);
  if (kind.format !== FORMAT_OF[t.os] || kind.arch !== t.arch) {
    throw new Error(`${path} is ${kind.format}/${kind.arch}, expected ${FORMAT_OF[t.os]}/${t.arch} for ${t.name}`);
  }
  return kind;
}
