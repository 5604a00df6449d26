// The ripgrep each binary embeds (src/sandbox/ripgrep/program.ts), fetched at build time, never at
// install or run time. Only Debian's package is reachable from where Garuda is built (ripgrep's
// own releases are on GitHub, and npm packages that carry rg download it from there at install;
// crates.io is out of reach, so no static build either): `apt-get download ripgrep` on a Debian
// amd64 machine, the way .ci/run installs packages, so apt checks the package against the
// archive's signed index. That rg is linked against glibc ≥ 2.34 and libpcre2-8, so it goes only
// into the linux x64 glibc builds; the others (musl, arm64 — apt offers no arm64 package without
// adding the architecture — macOS, Windows) search with Garuda's own search, as does a machine
// where the embedded rg fails to start (an older glibc). Kept gzipped (1.7 MB of the binary) in
// the build cache.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { defaultCacheDir, inspectBinary, run, type Target } from "./buildTargets.ts";

/** The file name the binary looks for (program.ts; Bun adds a content hash). */
export const EMBEDDED_RIPGREP = "rg-linux-x64.gz";

/** Whether the Debian rg can go into this target's binary. */
export function ripgrepTargets(t: Pick<Target, "os" | "arch" | "musl">): boolean {
  return t.os === "linux" && t.arch === "x64" && !t.musl;
}

/**
 * The gzipped rg for `t`, from the cache or fetched now; undefined (with the reason logged) when
 * this target gets none or this machine cannot fetch it (not Debian amd64, no apt).
 */
export async function ripgrepFor(
  t: Pick<Target, "os" | "arch" | "musl" | "name">,
  options: { cacheDir?: string; log?: (line: string) => void } = {},
): Promise<string | undefined> {
  if (!ripgrepTargets(t)) return undefined;
  const log = options.log ?? ((line: string) => console.error(line));
  const dir = join(options.cacheDir ?? defaultCacheDir(), "ripgrep-debian-amd64");
  const gz = join(dir, EMBEDDED_RIPGREP);
  if (existsSync(join(dir, "complete.json")) && existsSync(gz)) return gz;
  const aptGet = Bun.which("apt-get");
  const dpkgDeb = Bun.which("dpkg-deb");
  const arch = Bun.which("dpkg") ? (await run(["dpkg", "--print-architecture"], "/")).trim() : "";
  // A build without it still works (the binary searches its own way): say so loudly, and fail
  // where it must be there (GARUDA_REQUIRE_RIPGREP=1: CI, releases).
  const without = (why: string): undefined => {
    const line = `${t.name}: no ripgrep embedded (${why}); the binary searches with its own search`;
    if (process.env.GARUDA_REQUIRE_RIPGREP === "1") throw new Error(line);
    log(line);
    return undefined;
  };
  if (!aptGet || !dpkgDeb || arch !== "amd64")
    return without("it comes from Debian's package: apt-get on a Debian amd64 machine is needed");
  try {
    return await fetchRipgrep(dir, aptGet, dpkgDeb, log);
  } catch (error) {
    return without(error instanceof Error ? error.message : String(error));
  }
}

async function fetchRipgrep(
  dir: string,
  aptGet: string,
  dpkgDeb: string,
  log: (line: string) => void,
): Promise<string> {
  const gz = join(dir, EMBEDDED_RIPGREP);
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(dir, ".fetch-"));
  try {
    log("fetching Debian's ripgrep with apt-get download");
    await run([aptGet, "download", "ripgrep"], work);
    const deb = readdirSync(work).find((name) => /^ripgrep_.+_amd64\.deb$/.test(name));
    if (!deb) throw new Error(`apt-get download ripgrep left no ripgrep_*_amd64.deb in ${work}`);
    const unpacked = join(work, "root");
    await run([dpkgDeb, "-x", join(work, deb), unpacked], work);
    const rg = join(unpacked, "usr", "bin", "rg");
    const kind = await inspectBinary(rg);
    if (kind.format !== "elf" || kind.arch !== "x64") throw new Error(`${deb} holds a ${kind.format}/${kind.arch} rg`);
    const version = (await run([rg, "--version"], work)).split("\n")[0] ?? "";
    if (!version.startsWith("ripgrep ")) throw new Error(`${deb}'s rg --version printed ${version}`);
    const staged = join(work, "staged");
    mkdirSync(staged);
    writeFileSync(join(staged, EMBEDDED_RIPGREP), gzipSync(readFileSync(rg), { level: 9 }));
    writeFileSync(join(staged, "complete.json"), `${JSON.stringify({ package: deb, version }, null, 2)}\n`);
    const old = mkdtempSync(join(dir, ".old-"));
    for (const name of ["complete.json", EMBEDDED_RIPGREP])
      if (existsSync(join(dir, name))) renameSync(join(dir, name), join(old, name));
    for (const name of ["complete.json", EMBEDDED_RIPGREP]) renameSync(join(staged, name), join(dir, name));
    rmSync(old, { recursive: true, force: true });
    return gz;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
