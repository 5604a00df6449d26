// What the process keeper costs a host command (src/sandbox/keeper.ts): the median wall time of
// one `true` on the host through the Executor with the compiled binary's keeper, with the keeper
// from source (Bun transpiles it), and with no keeper (the negative-control option), many
// interleaved rounds; and the keeper's peak RSS while a command runs.
//
//   bun bench/keeper.ts [--rounds N]          (build dist/garuda first: bun scripts/build.ts)
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { createExecutor } from "../src/sandbox/executor.ts";
import { KEEPER_COMMAND } from "../src/sandbox/keeperName.ts";
import { descendants } from "../src/sandbox/processTree.ts";
import type { ProcessExecutor } from "../src/sandbox/types.ts";
import { type Task, formatStat, formatTable, interleave } from "./interleave.ts";

function parse(argv: string[]): { rounds: number } {
  let rounds = 60;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--rounds") rounds = Number(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}; usage: bun bench/keeper.ts [--rounds N]`);
  }
  if (!(rounds > 0)) throw new Error("--rounds needs a positive number");
  return { rounds };
}

/** Peak RSS (KiB) of the keeper above `sleep 1`. */
async function keeperRss(executor: ProcessExecutor, work: string): Promise<number> {
  const running = await executor.start({ command: "sleep 1", cwd: work, sandbox: null });
  await Bun.sleep(500);
  const status = readFileSync(`/proc/${running.pid}/status`, "utf8");
  await running.stop();
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
}

async function main(): Promise<void> {
  if (process.platform !== "linux") throw new Error("the keeper runs on Linux only");
  const { rounds } = parse(process.argv.slice(2));
  const binary = join(import.meta.dir, "../dist/garuda");
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run bun scripts/build.ts first`);
  const work = mkdtempSync(join(tmpdir(), "garuda-bench-keeper-"));
  const selfCommand = [process.execPath, join(import.meta.dir, "../src/sandbox/bridgeMain.ts")];
  const unavailable = { availability: { available: false as const, reason: "bench", fix: "-" } };
  const made: ProcessExecutor[] = [];
  const executor = async (keeperCommand?: string[] | false) => {
    const e = await createExecutor({
      root: work,
      home: work,
      selfCommand,
      probe: unavailable,
      ...(keeperCommand !== undefined && { keeperCommand }),
    });
    made.push(e);
    return e;
  };
  try {
    const compiled = await executor([binary, KEEPER_COMMAND]);
    const source = await executor();
    const none = await executor(false);
    const timed = (e: ProcessExecutor) => async () => {
      const started = performance.now();
      const result = await e.run({ command: "true", cwd: work, sandbox: null });
      if (result.exitCode !== 0) throw new Error(`exit ${result.exitCode}: ${result.output}`);
      return { wallMs: performance.now() - started };
    };
    console.log(`bun ${Bun.version}, ${process.platform}-${process.arch}, ${availableParallelism()} cores`);
    console.log(`\none host \`true\` through the Executor: ${rounds} interleaved rounds (+3 warm-up)`);
    const tasks: Task[] = [
      { name: "no keeper", run: timed(none) },
      { name: "keeper (dist/garuda)", run: timed(compiled) },
      { name: "keeper (from source)", run: timed(source) },
    ];
    const results = await interleave(tasks, { rounds });
    const base = results[0]?.stats.wallMs?.median ?? Number.NaN;
    console.log(
      formatTable(
        ["command", "wall ms median [p10–p90]", "extra ms (median)"],
        results.map((r) => [
          r.name,
          formatStat(r.stats.wallMs),
          r.name === "no keeper" ? "–" : ((r.stats.wallMs?.median ?? Number.NaN) - base).toFixed(1),
        ]),
      ),
    );
    console.log(`\nkeeper peak RSS (dist/garuda): ${((await keeperRss(compiled, work)) / 1024).toFixed(1)} MiB`);
    if (descendants(process.pid).length > 0) throw new Error("processes were left running");
  } finally {
    for (const e of made) await e.shutdown();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
