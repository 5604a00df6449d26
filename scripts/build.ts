// Builds Garuda's binaries.
//
//   bun scripts/build.ts                      dist/garuda for this machine, checked with --version
//   bun scripts/build.ts --all                that, plus every release target, archived with sums
//   bun scripts/build.ts --target linux-arm64 darwin-arm64   that, plus the named targets
//   bun scripts/build.ts --sourcemap          dist/garuda with its source map embedded (+2.8 MB), so a
//                                             stack trace names original files and lines
//
// Release targets never use Bun's own runtime download: each target's runtime comes from the
// npm package `@oven/bun-<os>-<arch>…@<running bun version>` via `npm pack` (cached in
// ~/.cache/garuda-build, or $GARUDA_BUILD_CACHE) and is passed as --compile-executable-path.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { archiveTime, writeChecksum, writeTarGz, writeZip } from "./archive.ts";
import {
  DIST,
  ENTRY,
  ROOT,
  TARGETS,
  type Target,
  archiveName,
  binaryName,
  buildBinary,
  buildHost,
  checkBinaryKind,
  checkBinaryVersion,
  checkVersions,
  defaultCacheDir,
  fetchRuntime,
  findTarget,
  hostOs,
  inspectBinary,
  runsHere,
} from "./buildTargets.ts";

const USAGE = `usage: bun scripts/build.ts [--all] [--target NAME…] [--sourcemap]

Always builds dist/garuda for this machine and checks its --version.
  --all            also build every release target: ${TARGETS.map((t) => t.name).join(", ")}
  --target NAME…   also build the named targets (our names or Bun's, e.g. bun-linux-arm64)
  --sourcemap      embed the source map in dist/garuda (not shipped: +2.8 MB), so stack traces
                   name original files and lines; the chunks and their lines are the release's
Each release target goes to dist/<target>/ and is archived as dist/garuda-<version>-<target>.tar.gz
(.zip for windows), with a .sha256 file each and dist/SHA256SUMS.`;

export interface BuildArgs {
  targets: Target[];
  help: boolean;
  sourcemap: boolean;
}

export function parseArgs(argv: string[]): BuildArgs {
  const chosen = new Set<Target>();
  let help = false;
  let sourcemap = false;
  let inTargets = false;
  const add = (name: string) => {
    const found = findTarget(name);
    if (!found) throw new Error(`unknown target "${name}"; known: ${TARGETS.map((t) => t.name).join(", ")}`);
    chosen.add(found);
  };
  for (const arg of argv) {
    if (arg === "--all") {
      for (const t of TARGETS) chosen.add(t);
      inTargets = false;
    } else if (arg === "--help" || arg === "-h") {
      help = true;
    } else if (arg === "--sourcemap") {
      sourcemap = true;
      inTargets = false;
    } else if (arg === "--target") {
      inTargets = true;
    } else if (arg.startsWith("--target=")) {
      add(arg.slice("--target=".length));
    } else if (inTargets && !arg.startsWith("-")) {
      add(arg);
    } else {
      throw new Error(`unknown argument "${arg}"\n${USAGE}`);
    }
  }
  return { targets: TARGETS.filter((t) => chosen.has(t)), help, sourcemap };
}

interface Row {
  target: string;
  binary: string;
  bytes: number;
  kind: string;
  archive: string;
  archiveBytes: number;
  checked: string;
  seconds: number;
}

function mb(bytes: number): string {
  return bytes ? `${(bytes / 1e6).toFixed(1)} MB` : "";
}

function table(rows: Row[]): string {
  const header = ["target", "binary", "size", "format", "archive", "size", "--version", "time"];
  const lines = rows.map((r) => [
    r.target,
    r.binary,
    mb(r.bytes),
    r.kind,
    r.archive,
    mb(r.archiveBytes),
    r.checked,
    `${r.seconds.toFixed(1)} s`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? "").length)));
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [fmt(header), fmt(widths.map((w) => "-".repeat(w))), ...lines.map(fmt)].join("\n");
}

/** Runs `work` over `items` with at most `limit` at a time; results in input order. */
function pooled<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R>[] {
  let active = 0;
  const waiting: (() => void)[] = [];
  return items.map(async (item) => {
    if (active >= limit) await new Promise<void>((go) => waiting.push(go));
    active++;
    try {
      return await work(item);
    } finally {
      active--;
      waiting.shift()?.();
    }
  });
}

async function hostRow(sourcemap: boolean): Promise<Row> {
  const started = performance.now();
  const built = await buildHost(undefined, { sourcemap });
  const kind = await inspectBinary(built.outfile);
  return {
    target: `host (${hostOs()}-${process.arch})`,
    binary: relative(ROOT, built.outfile),
    bytes: built.bytes,
    kind: `${kind.format}/${kind.arch}`,
    archive: "",
    archiveBytes: 0,
    checked: "ok",
    seconds: (performance.now() - started) / 1000,
  };
}

async function buildRelease(t: Target, runtime: Promise<string>, version: string, mtime: number): Promise<Row> {
  const executablePath = await runtime;
  const started = performance.now();
  const built = await buildBinary({
    entry: ENTRY,
    outfile: join(DIST, t.name, binaryName(t.os)),
    target: t.bunTarget,
    executablePath,
  });
  const kind = await checkBinaryKind(built.outfile, t);
  let checked = "n/a";
  if (runsHere(t)) {
    await checkBinaryVersion(built.outfile, version);
    checked = "ok";
  }
  const archive = join(DIST, archiveName(version, t));
  if (t.os === "windows") await writeZip(archive, built.outfile, binaryName(t.os), mtime);
  else await writeTarGz(archive, built.outfile, binaryName(t.os), mtime);
  return {
    target: t.name,
    binary: relative(ROOT, built.outfile),
    bytes: built.bytes,
    kind: `${kind.format}/${kind.arch}`,
    archive: basename(archive),
    archiveBytes: Bun.file(archive).size,
    checked,
    seconds: (performance.now() - started) / 1000,
  };
}

export async function main(argv: string[]): Promise<void> {
  const args = parseArgs(argv);
  if (args.help) {
    console.log(USAGE);
    return;
  }
  const version = checkVersions();
  mkdirSync(DIST, { recursive: true });
  const log = (line: string) => console.log(line);

  // Runtimes download (3 at a time) while earlier targets compile.
  const cacheDir = defaultCacheDir();
  const runtimes = pooled(args.targets, 3, (t) => fetchRuntime(t, { cacheDir, log }));
  for (const r of runtimes) r.catch(() => {}); // awaited below; do not report as unhandled meanwhile

  log(`garuda ${version}: building with bun ${Bun.version}`);
  const rows = [await hostRow(args.sourcemap)];
  if (args.targets.length > 0) {
    const mtime = archiveTime(ROOT);
    for (const [i, t] of args.targets.entries()) {
      rows.push(await buildRelease(t, runtimes[i] as Promise<string>, version, mtime));
      log(`built ${t.name}`);
    }
    const sums = await writeSums(version);
    log("");
    log(table(rows));
    log(`\ndist/SHA256SUMS lists the ${sums} garuda ${version} archives in dist/`);
  } else {
    log("");
    log(table(rows));
  }
}

/**
 * Writes `<archive>.sha256` for every archive of `version` in dist/ (those just built and any
 * left from earlier runs for other targets) and SHA256SUMS listing them all, in target order.
 */
async function writeSums(version: string): Promise<number> {
  const lines: string[] = [];
  for (const t of TARGETS) {
    const archive = join(DIST, archiveName(version, t));
    if (existsSync(archive)) lines.push(await writeChecksum(archive));
  }
  writeFileSync(join(DIST, "SHA256SUMS"), lines.join(""));
  return lines.length;
}

if (import.meta.main) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(`build failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
