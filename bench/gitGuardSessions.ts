// The git guard on a big project with several sessions (issue 30.4, 35.4): a generated tree of the
// Linux source's shape (about 80,000 files in 5,100 folders), and for each source tree given (this
// one, and with --before another checkout's src/, e.g. `git archive <commit> src | tar -x -C dir`)
// in fresh processes, interleaved round by round (sessions share the process's git guards where
// the source has them, gitGuard/host.ts, as the front ends hand them over):
//   - the first guarded command of a session right after it starts (the guard's first walk):
//     wall ms, the process's CPU ms for it, and the longest the event loop went without running a
//     1 ms timer meanwhile;
//   - the inotify watches the process holds with 1 session and with 3 sessions of the project
//     (the kernel's list in /proc/self/fdinfo; Bun's reader holds a second descriptor to each
//     instance, so the lines are counted once per instance).
//
//   bun bench/gitGuardSessions.ts [--rounds N] [--before <src dir>]
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { longestStall } from "../test/support/eventLoop.ts";
import { formatStat, formatTable, summarize } from "./interleave.ts";

interface Figures {
  walkMs: number;
  cpuMs: number;
  stallMs: number;
  watches1: number;
  watches3: number;
  /** CPU ms of the second and third sessions' start and first command together. */
  othersCpuMs: number;
}

/** Watches of this process's inotify instances: watch lines over every descriptor, each instance's counted once. */
function watchCount(): number {
  const byInstance: number[] = [];
  for (const fd of readdirSync("/proc/self/fd")) {
    let link = "";
    try {
      link = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (link !== "anon_inode:inotify") continue;
    byInstance.push(
      readFileSync(`/proc/self/fdinfo/${fd}`, "utf8")
        .split("\n")
        .filter((line) => line.startsWith("inotify wd:")).length,
    );
  }
  // Two descriptors per listening instance (the one opened, and the one Bun's stream reads).
  return byInstance.reduce((sum, lines) => sum + lines, 0) / 2;
}

/** In a fresh process: sessions of `src`'s executor on `root`; the figures as JSON on stdout. */
async function child(src: string, root: string, home: string): Promise<void> {
  const { createExecutor } = (await import(
    join(src, "sandbox/executor.ts")
  )) as typeof import("../src/sandbox/executor.ts");
  const { probeSandbox } = (await import(join(src, "sandbox/probe.ts"))) as typeof import("../src/sandbox/probe.ts");
  const probe = await probeSandbox({ env: process.env, tmpDir: home });
  const selfCommand = [process.execPath, join(src, "sandbox/bridgeMain.ts")];
  // As the front ends do where there is one: the process's git guards, shared by its sessions.
  const hostFile = join(src, "sandbox/gitGuard/host.ts");
  const gitGuards = existsSync(hostFile)
    ? ((await import(hostFile)) as typeof import("../src/sandbox/gitGuard/host.ts")).createGitGuardHost({
        stateDir: join(home, "state"),
        path: process.env.PATH,
      })
    : undefined;
  const session = () =>
    createExecutor({
      root,
      home,
      selfCommand,
      probe,
      gitGuardDir: join(home, "state"),
      ...(gitGuards && { gitGuards }),
    });
  const first = await session();
  const cpu = process.cpuUsage();
  const { stallMs, ms: walkMs } = await longestStall(
    () => first.run({ command: "true", cwd: root, sandbox: first.spec() }),
    1,
  );
  const used = process.cpuUsage(cpu);
  // A second command, without the walk: what a command costs by itself, taken off the first.
  const cpu2 = process.cpuUsage();
  const started2 = performance.now();
  await first.run({ command: "true", cwd: root, sandbox: first.spec() });
  const plainMs = performance.now() - started2;
  const plain = process.cpuUsage(cpu2);
  const watches1 = watchCount();
  const cpu3 = process.cpuUsage();
  const others = [await session(), await session()];
  for (const other of others) await other.run({ command: "true", cwd: root, sandbox: other.spec() });
  const othersCpu = process.cpuUsage(cpu3);
  const watches3 = watchCount();
  for (const executor of [first, ...others]) await executor.shutdown();
  await gitGuards?.close();
  const figures: Figures = {
    walkMs: walkMs - plainMs,
    cpuMs: (used.user + used.system - plain.user - plain.system) / 1000,
    stallMs,
    watches1,
    watches3,
    othersCpuMs: (othersCpu.user + othersCpu.system) / 1000,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

/** About 80,000 files in 5,100 folders, three levels deep under 20 top folders, as the Linux source. */
function makeTree(root: string): void {
  let files = 0;
  for (let a = 0; a < 20; a++)
    for (let b = 0; b < 15; b++)
      for (let c = 0; c < 17; c++) {
        const dir = join(root, `top${a}`, `sub${b}`, `leaf${c}`);
        mkdirSync(dir, { recursive: true });
        for (let f = 0; f < 15 + (c % 2); f++, files++) writeFileSync(join(dir, `f${f}.c`), "");
      }
  Bun.spawnSync(["git", "init", "-q", root]);
  console.log(`tree: ${files} files in ${20 * 15 * 17 + 20 * 15 + 20} folders`);
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === "--child") return child(argv[1] as string, argv[2] as string, argv[3] as string);
  let rounds = 5;
  let before: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--rounds") rounds = Number(argv[++i]);
    else if (argv[i] === "--before") before = resolve(argv[++i] as string);
    else
      throw new Error(
        `unknown argument ${argv[i]}; usage: bun bench/gitGuardSessions.ts [--rounds N] [--before <src dir>]`,
      );
  }
  const work = join(tmpdir(), `garuda-bench-guardsessions-${process.pid}`);
  console.log(`bun ${Bun.version}, ${process.platform}-${process.arch}, ${availableParallelism()} cores`);
  try {
    const root = join(work, "tree");
    makeTree(root);
    const sources: Array<[string, string]> = [
      ...(before ? [["before", before] as [string, string]] : []),
      ["this tree", join(import.meta.dir, "../src")],
    ];
    const results = new Map<string, Figures[]>(sources.map(([name]) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const [name, src] of sources) {
        const home = join(work, `home-${round}-${name.replace(/ /g, "-")}`);
        mkdirSync(home, { recursive: true });
        const run = Bun.spawnSync([process.execPath, import.meta.path, "--child", src, root, home], {
          env: process.env,
          stderr: "inherit",
        });
        const line = run.stdout.toString().trim().split("\n").at(-1) ?? "";
        if (run.exitCode !== 0 || !line.startsWith("{")) throw new Error(`${name}: the child failed (${run.exitCode})`);
        results.get(name)?.push(JSON.parse(line) as Figures);
        rmSync(home, { recursive: true, force: true });
      }
    }
    const rows = sources.map(([name]) => {
      const all = results.get(name) ?? [];
      const stat = (pick: (f: Figures) => number) => formatStat(summarize(all.map(pick)));
      return [
        name,
        stat((f) => f.walkMs),
        stat((f) => f.cpuMs),
        stat((f) => f.stallMs),
        stat((f) => f.watches1),
        stat((f) => f.watches3),
        stat((f) => f.othersCpuMs),
      ];
    });
    console.log(
      formatTable(
        [
          "source",
          "first command: walk ms",
          "walk CPU ms",
          "longest event-loop stall ms",
          "watches, 1 session",
          "watches, 3 sessions",
          "sessions 2 and 3: CPU ms",
        ],
        rows,
      ),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main(process.argv.slice(2));
