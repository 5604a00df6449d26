// Size against start-up, for several builds of garuda side by side in the same interleaved
// rounds, so before and after come from one run on a loaded machine.
//
//   bun bench/size.ts [--rounds N] [name=binary …]
//
// Without binaries it measures dist/garuda (rebuilt when stale). With `name=binary` pairs it
// measures each named build, e.g. `before=/tmp/garuda-main after=dist/garuda`. For every build:
// its size in MB (10^6 bytes), `garuda --version` wall time, and over `garuda acp` the time from
// spawn to the answer of initialize and of session/new, and the CPU time of that whole acp run
// (start to exit). Against two floors built here with the
// shipped flags: a bare hello world (for --version) and bench/acpFloor.ts (for initialize).
//
// Targets (issue 19.5): binary ≤ 115 MB, raised to 125 MB by issue 35 for the embedded ripgrep
// (2.1 MB gzipped on x64, scripts/ripgrepBuild.ts); initialize ≤ 2.5 × the floor; session/new ≤ 50 ms
// after initialize.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DIST, binaryName, buildBinary, buildHost, hostOs, staleReason } from "../scripts/buildTargets.ts";
import { Peer, start } from "./acpPeer.ts";
import { type Task, formatStat, formatTable, interleave, processTask } from "./interleave.ts";

const MAX_BYTES = 125e6;
const MAX_INIT_RATIO = 2.5;
const MAX_NEW_AFTER_INIT_MS = 50;
const KEY = "sk-ant-bench-not-a-real-key";

function parse(argv: string[]): { rounds: number; builds: { name: string; binary: string }[] } {
  let rounds = 20;
  const builds: { name: string; binary: string }[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--rounds") rounds = Number(argv[++i]);
    else if (arg.startsWith("--rounds=")) rounds = Number(arg.slice(9));
    else if (/^[\w.-]+=/.test(arg)) {
      const at = arg.indexOf("=");
      builds.push({ name: arg.slice(0, at), binary: resolve(arg.slice(at + 1)) });
    } else throw new Error(`unknown argument ${arg}; usage: bun bench/size.ts [--rounds N] [name=binary …]`);
  }
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds needs a positive integer");
  return { rounds, builds };
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(2);
const verdict = (ok: boolean) => (ok ? "ok" : "OVER TARGET");

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  if (options.builds.length === 0) {
    const garuda = join(DIST, binaryName(hostOs() ?? "linux"));
    if (staleReason(garuda)) await buildHost(garuda);
    options.builds.push({ name: "garuda", binary: garuda });
  }
  const work = mkdtempSync(join(tmpdir(), "garuda-bench-size-"));
  try {
    writeFileSync(join(work, "hello.ts"), 'console.log("hello");\n');
    const hello = await buildBinary({ entry: join(work, "hello.ts"), outfile: join(work, "hello") });
    const floor = await buildBinary({ entry: join(import.meta.dir, "acpFloor.ts"), outfile: join(work, "acp-floor") });
    const project = join(work, "project");
    mkdirSync(project);

    /** initialize and session/new from spawn, a fresh HOME each run (as after an install). */
    const acpTask = (name: string, cmd: string[]): Task => ({
      name,
      run: async () => {
        const home = mkdtempSync(join(work, "home-"));
        const env = {
          PATH: process.env.PATH,
          HOME: home,
          ANTHROPIC_API_KEY: KEY,
          ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
          GARUDA_MODEL: "claude-sonnet-5",
        };
        const peer = new Peer(cmd, project, env);
        try {
          const { initMs, newMs } = await start(peer, project);
          const { code } = await peer.close();
          if (code !== 0) throw new Error(`exit ${code}`);
          // CPU time of the whole run (start, initialize, session/new, exit): on a loaded machine it
          // moves far less than wall time, so it shows small differences the wall times hide.
          const cpu = peer.proc.resourceUsage()?.cpuTime;
          return { initMs, newMs, newAfterInitMs: newMs - initMs, cpuMs: cpu ? Number(cpu.total) / 1000 : Number.NaN };
        } catch (error) {
          throw await peer.failure(name, error);
        } finally {
          rmSync(home, { recursive: true, force: true });
        }
      },
    });
    const plain = (cmd: string[]) => ({ cmd, cwd: work, env: { PATH: process.env.PATH, HOME: work } });
    const tasks: Task[] = [
      processTask("hello", plain([hello.outfile]), { rss: false }),
      acpTask("acp floor", [floor.outfile]),
      ...options.builds.flatMap((b) => [
        processTask(`${b.name} --version`, plain([b.binary, "--version"]), { rss: false }),
        acpTask(`${b.name} acp`, [b.binary, "acp"]),
      ]),
    ];
    console.log(
      `bun ${Bun.version}, ${process.platform}-${process.arch}; ${options.rounds} interleaved rounds (+3 warm-up)`,
    );
    const results = await interleave(tasks, {
      rounds: options.rounds,
      onRound: (round, rounds) => {
        if (round % 5 === 0 || round === rounds) process.stderr.write(`  round ${round}/${rounds}\n`);
      },
    });
    const by = (name: string) => results.find((r) => r.name === name);
    const med = (name: string, metric: string) => by(name)?.stats[metric]?.median ?? Number.NaN;
    const floorInit = med("acp floor", "initMs");

    console.log("\nmedian [p10–p90], ms");
    const rows = [
      [
        "hello / acp floor",
        mb(hello.bytes),
        formatStat(by("hello")?.stats.wallMs),
        formatStat(by("hello")?.stats.cpuMs),
        formatStat(by("acp floor")?.stats.initMs),
        "1.00",
        formatStat(by("acp floor")?.stats.newAfterInitMs),
        formatStat(by("acp floor")?.stats.cpuMs),
      ],
      ...options.builds.map((b) => [
        b.name,
        mb(Bun.file(b.binary).size),
        formatStat(by(`${b.name} --version`)?.stats.wallMs),
        formatStat(by(`${b.name} --version`)?.stats.cpuMs),
        formatStat(by(`${b.name} acp`)?.stats.initMs),
        (med(`${b.name} acp`, "initMs") / floorInit).toFixed(2),
        formatStat(by(`${b.name} acp`)?.stats.newAfterInitMs),
        formatStat(by(`${b.name} acp`)?.stats.cpuMs),
      ]),
    ];
    console.log(
      formatTable(
        [
          "build",
          "MB",
          "--version",
          "--version CPU",
          "initialize",
          "× floor",
          "session/new − initialize",
          "acp run CPU",
        ],
        rows,
      ),
    );
    console.log("\ntargets:");
    for (const b of options.builds) {
      const bytes = Bun.file(b.binary).size;
      const initRatio = med(`${b.name} acp`, "initMs") / floorInit;
      const after = med(`${b.name} acp`, "newAfterInitMs");
      console.log(
        `  ${b.name}: ${mb(bytes)} MB ${verdict(bytes <= MAX_BYTES)}; initialize ` +
          `${initRatio.toFixed(2)} × floor ${verdict(initRatio <= MAX_INIT_RATIO)}; ` +
          `session/new ${after.toFixed(1)} ms after initialize ${verdict(after <= MAX_NEW_AFTER_INIT_MS)}`,
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
