// Start-up cost of the Garuda binary against a bare Bun-compiled hello-world built with the
// same flags: wall time, CPU time and peak RSS of `garuda --version` and `garuda --help`.
//
//   bun bench/startup.ts [--rounds N] [--rebuild] [--sourcemap-ab]
//
// --rebuild        rebuild dist/garuda first (it is built when missing anyway)
// --sourcemap-ab   also time a garuda built with --sourcemap (the map embedded), to see what it costs
//
// Targets: host binary ≤ 115 MB; garuda --version / hello ≤ 1.3 for wall time and peak RSS.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import {
  DIST,
  ENTRY,
  ROOT,
  binaryName,
  buildBinary,
  buildHost,
  checkVersions,
  hostOs,
} from "../scripts/buildTargets.ts";
import { type TaskResult, formatStat, formatTable, interleave, processTask, ratio, rssProbe } from "./interleave.ts";

const MAX_BYTES = 115e6;
const MAX_RATIO = 1.3;

function parse(argv: string[]): { rounds: number; rebuild: boolean; sourcemapAb: boolean } {
  let rounds = 40;
  let rebuild = false;
  let sourcemapAb = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--rounds") rounds = Number(argv[++i]);
    else if (arg?.startsWith("--rounds=")) rounds = Number(arg.slice(9));
    else if (arg === "--rebuild") rebuild = true;
    else if (arg === "--sourcemap-ab") sourcemapAb = true;
    else
      throw new Error(`unknown argument ${arg}; usage: bun bench/startup.ts [--rounds N] [--rebuild] [--sourcemap-ab]`);
  }
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds needs a positive integer");
  return { rounds, rebuild, sourcemapAb };
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const verdict = (ok: boolean) => (ok ? "ok" : "OVER TARGET");

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const version = checkVersions();
  const garuda = join(DIST, binaryName(hostOs() ?? "linux"));
  if (options.rebuild || !existsSync(garuda)) {
    console.log(`building ${relative(ROOT, garuda)} …`);
    await buildHost(garuda);
  }

  const work = mkdtempSync(join(tmpdir(), "garuda-bench-startup-"));
  try {
    writeFileSync(join(work, "hello.ts"), 'console.log("hello");\n');
    const hello = await buildBinary({ entry: join(work, "hello.ts"), outfile: join(work, "hello") });
    const withSourcemap = options.sourcemapAb
      ? await buildBinary({ entry: ENTRY, outfile: join(work, "garuda-sourcemap"), sourcemap: true })
      : undefined;

    // Run from an empty folder with a plain environment, as an editor would start the agent.
    const spec = (cmd: string[]) => ({ cmd, cwd: work, env: { PATH: process.env.PATH, HOME: work } });
    const tasks = [
      processTask("hello", spec([hello.outfile])),
      processTask("garuda --version", spec([garuda, "--version"])),
      processTask("garuda --help", spec([garuda, "--help"])),
    ];
    if (withSourcemap) {
      tasks.push(processTask("sourcemap --version", spec([withSourcemap.outfile, "--version"])));
      tasks.push(processTask("sourcemap --help", spec([withSourcemap.outfile, "--help"])));
    }
    const probe = rssProbe();
    console.log(
      `garuda ${version}, bun ${Bun.version}, ${process.platform}-${process.arch}; ` +
        `${options.rounds} interleaved rounds (+3 warm-up); RSS via ${probe.kind === "bun" ? probe.note : probe.path}`,
    );
    const results = await interleave(tasks, {
      rounds: options.rounds,
      onRound: (round, rounds) => {
        if (round % 10 === 0 || round === rounds) process.stderr.write(`  round ${round}/${rounds}\n`);
      },
    });
    const byName = (name: string): TaskResult | undefined => results.find((r) => r.name === name);
    const helloResult = byName("hello");

    console.log("\nmedian [p10–p90]");
    console.log(
      formatTable(
        ["program", "wall ms", "cpu ms", "peak RSS MiB", "wall / hello", "RSS / hello"],
        results.map((r) => [
          r.name,
          formatStat(r.stats.wallMs),
          formatStat(r.stats.cpuMs),
          formatStat(r.stats.rssMiB),
          ratio(r, helloResult, "wallMs").toFixed(2),
          ratio(r, helloResult, "rssMiB").toFixed(2),
        ]),
      ),
    );
    if (withSourcemap) {
      console.log("\nwhat --sourcemap costs (with / without, medians):");
      for (const command of ["--version", "--help"]) {
        const withMap = byName(`sourcemap ${command}`);
        const without = byName(`garuda ${command}`);
        console.log(
          `  ${command.padEnd(9)} wall ${ratio(withMap, without, "wallMs").toFixed(3)}, ` +
            `RSS ${ratio(withMap, without, "rssMiB").toFixed(3)}`,
        );
      }
    }

    const garudaBytes = Bun.file(garuda).size;
    const wallRatio = ratio(byName("garuda --version"), helloResult, "wallMs");
    const rssRatio = ratio(byName("garuda --version"), helloResult, "rssMiB");
    console.log("\nsizes:");
    console.log(`  hello   ${mb(hello.bytes)} (${hello.bytes} bytes)`);
    console.log(`  garuda  ${mb(garudaBytes)} (${garudaBytes} bytes), +${mb(garudaBytes - hello.bytes)} over hello`);
    if (withSourcemap) console.log(`  garuda with --sourcemap  ${mb(withSourcemap.bytes)}`);
    console.log("\ntargets:");
    console.log(`  binary size ≤ ${mb(MAX_BYTES)}: ${mb(garudaBytes)} ${verdict(garudaBytes <= MAX_BYTES)}`);
    console.log(`  --version wall / hello ≤ ${MAX_RATIO}: ${wallRatio.toFixed(2)} ${verdict(wallRatio <= MAX_RATIO)}`);
    console.log(`  --version RSS / hello ≤ ${MAX_RATIO}: ${rssRatio.toFixed(2)} ${verdict(rssRatio <= MAX_RATIO)}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
