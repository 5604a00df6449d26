// What the git guard (src/sandbox/gitGuard/) costs and how fast it acts. bench/sandbox.ts has
// the cost per sandboxed command (guard on vs off, same rounds); this one has the rest:
//   1. the first guarded command in a project: the walk that watches every folder, for trees of
//      1,000 to 30,000 folders (a node_modules), medians of fresh guards;
//   2. how long a planted repository lives: from the moment a sandboxed command writes a `.git`
//      file pointing out of the project (its own clock) to the moment the guard's note arrives;
//   3. what the guard's reading costs while a command runs and does nothing (CPU ms per second).
//
//   bun bench/gitGuard.ts [--rounds N]
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { createExecutor } from "../src/sandbox/executor.ts";
import { createGitGuardHost } from "../src/sandbox/gitGuard/host.ts";
import { createGuardSession } from "../src/sandbox/gitGuard/session.ts";
import { formatStat, formatTable, summarize } from "./interleave.ts";

function parse(argv: string[]): { rounds: number } {
  let rounds = 15;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--rounds") rounds = Number(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}; usage: bun bench/gitGuard.ts [--rounds N]`);
  }
  if (!(rounds > 0)) throw new Error("--rounds needs a positive number");
  return { rounds };
}

const git = (cwd: string, ...args: string[]) =>
  Bun.spawnSync(
    ["git", "-c", "user.name=b", "-c", "user.email=b@example.invalid", "-c", "init.defaultBranch=main", ...args],
    { cwd, env: { PATH: process.env.PATH ?? "" } },
  );

/** A repository with `folders` folders: a few of sources, the rest a node_modules-like tree. */
function makeTree(root: string, folders: number): void {
  mkdirSync(root, { recursive: true });
  git(root, "init", "-q");
  for (let i = 0; i < folders; i++)
    mkdirSync(join(root, "node_modules", `p${i % 50}`, `d${Math.floor(i / 50) % 25}`, `e${i}`), { recursive: true });
}

async function main(): Promise<void> {
  const { rounds } = parse(process.argv.slice(2));
  const work = mkdtempSync(join(tmpdir(), "garuda-bench-gitguard-"));
  console.log(`bun ${Bun.version}, ${process.platform}-${process.arch}, ${availableParallelism()} cores`);
  try {
    console.log(
      `\n1. the first guarded command in a project: walking and watching the tree ` +
        `(${Math.min(rounds, 7)} fresh guards each)`,
    );
    const rows: string[][] = [];
    for (const folders of [1_000, 10_000, 30_000]) {
      const root = join(work, `tree-${folders}`);
      makeTree(root, folders);
      const firsts: number[] = [];
      const again: number[] = [];
      let watched = 0;
      for (let round = 0; round < Math.min(rounds, 7); round++) {
        const host = createGitGuardHost({
          stateDir: join(work, `state-${folders}-${round}`),
          path: process.env.PATH,
        });
        const guards = createGuardSession(host);
        const spec = {
          root,
          home: work,
          tmpDir: work,
          projectReadOnly: false,
          writePaths: [],
          protectedPaths: [],
          denyReadPaths: [],
          network: { mode: "none" as const },
        };
        let started = performance.now();
        const first = await guards.enter(spec, () => undefined);
        firsts.push(performance.now() - started);
        await first?.leave();
        started = performance.now();
        await (await guards.enter(spec, () => undefined))?.leave();
        again.push(performance.now() - started);
        // Distinct watch ids: the stream over the descriptor may hold a second descriptor to the same instance.
        watched = Number(
          Bun.spawnSync([
            "sh",
            "-c",
            `cat /proc/${process.pid}/fdinfo/* 2>/dev/null | grep '^inotify' | awk '{print $2}' | sort -u | wc -l`,
          ])
            .stdout.toString()
            .trim(),
        );
        await guards.close();
        await host.close();
      }
      rows.push([String(folders), formatStat(summarize(firsts)), formatStat(summarize(again), 2), String(watched)]);
    }
    console.log(
      formatTable(
        ["folders", "first command: walk ms [p10–p90]", "a later command: enter + leave ms", "watches"],
        rows,
      ),
    );

    console.log(`\n2. how long a planted repository stays in place while the command runs (${rounds} plants)`);
    const root = join(work, "plants");
    makeTree(root, 200);
    const home = join(work, "home");
    mkdirSync(home);
    const executor = await createExecutor({
      root,
      home,
      selfCommand: [process.execPath, join(import.meta.dir, "../src/sandbox/bridgeMain.ts")],
    });
    const lives: number[] = [];
    try {
      for (let round = 0; round < rounds; round++) {
        // One write makes the repository: a .git file pointing at a git folder in the session's tmp.
        const plant =
          `git init -q "$TMPDIR/r${round}" && mkdir p${round} && echo "T=$(date +%s%N)" ` +
          `&& echo "gitdir: $TMPDIR/r${round}/.git" > p${round}/.git; sleep 30`;
        const job = await executor.start({ command: plant, cwd: root, sandbox: executor.spec() });
        let noted = 0;
        while (!noted) {
          if (job.output().includes("[Garuda:")) noted = (performance.timeOrigin + performance.now()) * 1e6;
          else await Bun.sleep(0);
        }
        const at = Number(/T=(\d+)/.exec(job.output())?.[1] ?? Number.NaN);
        lives.push((noted - at) / 1e6);
        await job.stop();
      }
    } finally {
      await executor.shutdown();
    }
    console.log(
      `   from the command's write to the guard's note: ` +
        `${formatStat(summarize(lives))} ms (median [p10–p90]; includes the shell's ` +
        `date and echo)`,
    );

    console.log("\n3. what reading the events costs while a command runs and does nothing (5 s each)");
    const idle = await createExecutor({
      root,
      home,
      selfCommand: [process.execPath, join(import.meta.dir, "../src/sandbox/bridgeMain.ts")],
    });
    const off = await createExecutor({
      root,
      home,
      selfCommand: [process.execPath, join(import.meta.dir, "../src/sandbox/bridgeMain.ts")],
      gitGuard: false,
    });
    try {
      const cpu: Record<string, number> = {};
      for (const [name, executor] of [
        ["guard on", idle],
        ["guard off", off],
      ] as const) {
        const job = await executor.start({ command: "sleep 6", cwd: root, sandbox: executor.spec() });
        await Bun.sleep(500);
        const before = process.cpuUsage();
        await Bun.sleep(5_000);
        const used = process.cpuUsage(before);
        cpu[name] = (used.user + used.system) / 1000 / 5;
        await job.stop();
      }
      console.log(
        `   Garuda's CPU: guard on ${cpu["guard on"]?.toFixed(1)} ms/s, guard off ${cpu["guard off"]?.toFixed(1)} ms/s`,
      );
    } finally {
      await idle.shutdown();
      await off.shutdown();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
