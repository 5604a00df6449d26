// What the command limits cost (src/sandbox/limits.ts): the median wall time of a sandboxed `true`
// and of a real `bun test` run (a part of this project's own suite, in the sandbox) with the
// limits as this machine holds them (a cgroup per command as root, else resource limits), with
// resource limits only, and with none; interleaved rounds (bench/interleave.ts). It also prints
// the peaks the cgroup saw during the test run next to the default limits.
//
//   bun bench/limits.ts [--rounds N] [--test-rounds N] [--tests "test/text test/permission"]
//
// Target: the limits add ≤ 5 ms to a sandboxed command and nothing measurable to a test run.
import { cpSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { availableParallelism, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { createExecutor } from "../src/sandbox/executor.ts";
import { defaultCommandLimits } from "../src/sandbox/limits.ts";
import type { ProcessExecutor } from "../src/sandbox/types.ts";
import { type Task, formatStat, formatTable, interleave } from "./interleave.ts";

const EXTRA_MS_TARGET = 5;
const REPO = join(import.meta.dir, "..");

function parse(argv: string[]): { rounds: number; testRounds: number; tests: string[] } {
  let rounds = 60;
  let testRounds = 8;
  let tests = ["test/text", "test/permission"];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--rounds") rounds = Number(argv[++i]);
    else if (arg === "--test-rounds") testRounds = Number(argv[++i]);
    else if (arg === "--tests") tests = (argv[++i] ?? "").split(/\s+/).filter(Boolean);
    else
      throw new Error(
        `unknown argument ${arg}; usage: bun bench/limits.ts [--rounds N] [--test-rounds N] [--tests "dir …"]`,
      );
  }
  if (!(rounds > 0 && testRounds > 0 && tests.length > 0))
    throw new Error("--rounds and --test-rounds need positive numbers, --tests at least one path");
  return { rounds, testRounds, tests };
}

/** A copy of the project's sources and the chosen tests, so the run can write where it likes. */
function copyProject(into: string, tests: string[]): void {
  for (const path of ["src", "test/support", ...tests]) cpSync(join(REPO, path), join(into, path), { recursive: true });
  for (const file of ["package.json", "bunfig.toml", "tsconfig.json", "test/preload.ts"])
    cpSync(join(REPO, file), join(into, file));
  symlinkSync(realpathSync(join(REPO, "node_modules")), join(into, "node_modules"));
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const work = realpathSync(mkdtempSync(join(tmpdir(), "garuda-bench-limits-")));
  const project = join(work, "project");
  copyProject(project, options.tests);
  const selfCommand = [process.execPath, join(REPO, "src/sandbox/bridgeMain.ts")];
  const defaults = defaultCommandLimits();
  const executors: ProcessExecutor[] = [];
  try {
    const make = async (limits: "machine" | "rlimit" | "none") => {
      const executor = await createExecutor({
        root: project,
        home: work,
        selfCommand,
        limits: limits === "none" ? null : defaults,
        ...(limits === "rlimit" && { cgroups: null }),
      });
      executors.push(executor);
      return executor;
    };
    const [machine, rlimit, none] = [await make("machine"), await make("rlimit"), await make("none")];
    if (!machine.sandbox.available)
      throw new Error(`no OS sandbox: ${machine.sandbox.reason}. Fix: ${machine.sandbox.fix}`);
    const held = machine.limits;
    console.log(
      `bun ${Bun.version}, ${process.platform}-${process.arch}, ` +
        `${availableParallelism()} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, uid ` +
        `${process.getuid?.()}`,
    );
    console.log(
      `default limits: ${defaults.processes} processes, ${defaults.memoryMB} MB; held ` +
        `here by: processes ${held?.processes}, memory ${held?.memory}`,
    );

    const variants: Array<[string, ProcessExecutor]> = [
      [`limits (${held?.processes === "cgroup" ? "cgroup" : "resource limits"})`, machine],
      ["limits (resource limits only)", rlimit],
      ["no limits", none],
    ];
    const timed =
      (executor: ProcessExecutor, command: string, check: (output: string) => void): Task["run"] =>
      async () => {
        const started = performance.now();
        const result = await executor.run({
          command,
          cwd: project,
          sandbox: executor.spec(),
          timeoutMs: 600_000,
          maxOutputBytes: 64 * 1024,
        });
        const wallMs = performance.now() - started;
        if (result.exitCode !== 0)
          throw new Error(`${command}: exit ${result.exitCode}\n${result.output.slice(-2000)}`);
        check(result.output);
        return {
          wallMs,
          ...(result.peak?.tasks !== undefined && { tasks: result.peak.tasks }),
          ...(result.peak?.memoryBytes !== undefined && { memoryMiB: result.peak.memoryBytes / 2 ** 20 }),
        };
      };

    console.log(`\n1. a sandboxed \`true\`: ${options.rounds} interleaved rounds (+3 warm-up)`);
    const trues = await interleave(
      variants.map(([name, executor]) => ({ name, run: timed(executor, "true", () => {}) })),
      { rounds: options.rounds },
    );
    const none1 = trues[2]?.stats.wallMs?.median ?? Number.NaN;
    console.log(
      formatTable(
        ["variant", "wall ms median [p10–p90]", "extra ms"],
        trues.map((r) => [
          r.name,
          formatStat(r.stats.wallMs),
          r.name === "no limits" ? "–" : ((r.stats.wallMs?.median ?? Number.NaN) - none1).toFixed(1),
        ]),
      ),
    );

    const command = `'${process.execPath}' test ${options.tests.join(" ")} 2>&1 | tail -3`;
    console.log(
      `\n2. \`bun test ${options.tests.join(" ")}\` in the sandbox: ` +
        `${options.testRounds} interleaved rounds (+1 warm-up)`,
    );
    const passes = (output: string) => {
      if (!/ 0 fail/.test(output)) throw new Error(`the test run failed:\n${output}`);
    };
    const runs = await interleave(
      variants.map(([name, executor]) => ({ name, run: timed(executor, command, passes) })),
      { rounds: options.testRounds, warmup: 1 },
    );
    const none2 = runs[2]?.stats.wallMs?.median ?? Number.NaN;
    console.log(
      formatTable(
        ["variant", "wall ms median [p10–p90]", "extra ms", "peak tasks", "peak memory MiB"],
        runs.map((r) => [
          r.name,
          formatStat(r.stats.wallMs, 0),
          r.name === "no limits" ? "–" : ((r.stats.wallMs?.median ?? Number.NaN) - none2).toFixed(0),
          r.stats.tasks ? `${formatStat(r.stats.tasks, 0)} of ${defaults.processes}` : "–",
          r.stats.memoryMiB ? `${formatStat(r.stats.memoryMiB, 0)} of ${defaults.memoryMB}` : "–",
        ]),
      ),
    );

    const extra = (trues[0]?.stats.wallMs?.median ?? Number.NaN) - none1;
    console.log(
      `\ntarget: the limits add ≤ ${EXTRA_MS_TARGET} ms to a sandboxed command: ` +
        `${extra.toFixed(1)} ms ${extra <= EXTRA_MS_TARGET ? "ok" : "OVER TARGET"}`,
    );
  } finally {
    for (const executor of executors) await executor.shutdown();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
