// Undo on a large tree (issue 35.3), before and after in the same run, on the Linux-shaped tree
// (bench/linuxTree.ts: 78,600 files) and on it three times side by side (235,800 files), each
// committed to git as a user's checkout is.
//
// Two parts, their runs interleaved round by round (bench/interleave.ts):
//   store  the undo store in this process, with the real executor and git: the first snapshot
//          (a fresh ~/.garuda), then turns that change one file, a command's turn and a tool's
//          turn (only its file at its end): how long beginTurn() and endTurn() take. "watched":
//          a real git guard's change log says what changed (undoChangeScope.ts), as in a session
//          with the sandbox; "stat check": without it, every file's stat data is looked at. The
//          baseline is another checkout's store (--baseline-src, e.g. main's), its file limit
//          lifted so that it runs at all.
//   acp    the compiled agent over ACP with a scripted model (test/support/mockAnthropic.ts):
//          spawn, session/new, and at once a prompt whose model runs `echo … >> bench-undo.txt`
//          in the sandbox, then a second prompt the same; the time from each prompt to its
//          command's result (the tool call's completed update), and to the prompt's answer.
//          The baseline is another build (--baseline; main's has undo off above 50,000 files).
//
//   bun bench/undo.ts [--copies 1,3] [--rounds N] [--turns N] [--only store|acp]
//                     [--baseline <garuda binary>] [--baseline-src <checkout>]
//
// The trees are made once in the temp folder and reused (garuda-bench-undo-…); `--fresh` remakes them.
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST, binaryName, buildHost, hostOs, staleReason } from "../scripts/buildTargets.ts";
import { createExecutor } from "../src/sandbox/executor.ts";
import { createGitGuardHost } from "../src/sandbox/gitGuard/host.ts";
import { SELF_COMMAND } from "../test/support/sandboxSupport.ts";
import { alikeCopy, Peer, type SessionUpdateLine, start, startMock } from "./acpPeer.ts";
import { formatTable, interleave, type Task, type TaskResult } from "./interleave.ts";
import { LINUX_SHAPE, makeLinuxTree } from "./linuxTree.ts";

const MODEL = "claude-sonnet-5";
const KEY = "sk-ant-bench-not-a-real-key";
const NO_SANDBOX = { availability: { available: false as const, reason: "a bench of the store", fix: "none" } };
/** The file each turn changes (not hidden: the kernel's .gitignore has `.*`). */
const CHANGED = "bench-undo.txt";

interface Options {
  copies: number[];
  rounds: number;
  turns: number;
  only?: "store" | "acp";
  baseline?: string;
  baselineSrc?: string;
  fresh: boolean;
}

function parse(argv: string[]): Options {
  const options: Options = { copies: [1, 3], rounds: 3, turns: 12, fresh: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = () => argv[++i] as string;
    if (arg === "--copies") options.copies = next().split(",").map(Number);
    else if (arg === "--rounds") options.rounds = Number(next());
    else if (arg === "--turns") options.turns = Number(next());
    else if (arg === "--only") options.only = next() as Options["only"];
    else if (arg === "--baseline") options.baseline = next();
    else if (arg === "--baseline-src") options.baselineSrc = next();
    else if (arg === "--fresh") options.fresh = true;
    else
      throw new Error(
        `unknown argument ${arg}; usage: bun bench/undo.ts [--copies 1,3] [--rounds N] ` +
          `[--turns N] [--only store|acp] [--baseline <binary>] [--baseline-src ` +
          `<checkout>] [--fresh]`,
      );
  }
  return options;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@localhost", ...args], {
    cwd,
    stdio: ["ignore", "ignore", "inherit"],
  });

/** The Linux-shaped tree `copies` times side by side (linux-1/ …), committed; made when missing. */
function committedTree(copies: number, fresh: boolean): string {
  const { files, folders, seed, bytesScale } = LINUX_SHAPE;
  const one = join(tmpdir(), `garuda-bench-undo-${files}-${folders}-${seed}-${bytesScale}`);
  const path = copies === 1 ? one : `${one}-x${copies}`;
  if (fresh) rmSync(path, { recursive: true, force: true });
  if (existsSync(join(path, ".ready"))) return realpathSync(path);
  rmSync(path, { recursive: true, force: true });
  mkdirSync(path, { recursive: true });
  const started = performance.now();
  if (copies === 1) makeLinuxTree(path, LINUX_SHAPE);
  else
    for (let i = 1; i <= copies; i++) {
      const copy = join(path, `linux-${i}`);
      execFileSync("cp", ["-R", committedTree(1, false), copy]);
      rmSync(join(copy, ".git"), { recursive: true, force: true });
      rmSync(join(copy, ".ready"), { force: true });
    }
  git(path, "init", "-q");
  git(path, "add", "-A");
  git(path, "commit", "-q", "-m", "tree");
  writeFileSync(join(path, ".ready"), "");
  console.log(`made ${path} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return realpathSync(path);
}

/** The part of the store's API both checkouts have. */
interface AnyUndoStore {
  beginTurn(): Promise<void>;
  endTurn(): Promise<void>;
  snapshot(paths: string[]): Promise<void>;
  beforeCommand?(): Promise<void>;
  takeNotices(): string[];
  readonly status: { enabled: boolean };
  close(): Promise<void>;
}
type CreateStore = (options: Record<string, unknown>) => AnyUndoStore;

/**
 * One session of the store on `root`: the first snapshot, then `turns` turns of a command's and a tool's change,
 * alternating.
 */
async function storeRun(
  create: CreateStore,
  root: string,
  turns: number,
  watched: boolean,
): Promise<Record<string, number>> {
  const home = mkdtempSync(join(tmpdir(), "garuda-bench-undo-home-"));
  const plain = await createExecutor({ root, home, selfCommand: SELF_COMMAND, probe: NO_SANDBOX });
  // The guard the executor of a sandboxed session has (its first walk, as at session start, is not timed).
  const guards = watched
    ? createGitGuardHost({ stateDir: join(home, "git-guard"), path: process.env.PATH })
    : undefined;
  const lease = guards?.lease(root);
  await (await lease?.guard)?.ready;
  const executor = guards ? { ...plain, changesSince: guards.changesSince } : plain;
  // The baseline's limits lifted: it would switch undo off above 50,000 files, or after 10 s.
  const store = create({ root, home, executor, maxFiles: 100_000_000, snapshotTimeoutMs: 3_600_000 });
  const changed = join(root, CHANGED);
  const begin: number[] = [];
  const endCommand: number[] = [];
  const endTool: number[] = [];
  try {
    let at = performance.now();
    await store.beginTurn();
    const firstMs = performance.now() - at;
    await store.endTurn();
    for (let turn = 0; turn < turns; turn++) {
      at = performance.now();
      await store.beginTurn();
      begin.push(performance.now() - at);
      const byCommand = turn % 2 === 0;
      if (byCommand) await store.beforeCommand?.();
      else await store.snapshot([changed]);
      appendFileSync(changed, `turn ${turn}\n`);
      at = performance.now();
      await store.endTurn();
      (byCommand ? endCommand : endTool).push(performance.now() - at);
    }
    if (!store.status.enabled) throw new Error(`undo went off: ${store.takeNotices().join(" ")}`);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
    return {
      firstMs,
      beginMs: median(begin),
      beginMaxMs: Math.max(...begin),
      endCommandMs: median(endCommand),
      endToolMs: median(endTool),
      endMaxMs: Math.max(...endCommand, ...endTool),
    };
  } finally {
    await store.close();
    await lease?.release();
    await guards?.close();
    await plain.shutdown();
    rmSync(home, { recursive: true, force: true });
  }
}

/** A mock model that answers every prompt with `echo … >> bench-undo.txt`, then a line of text. */
function startUndoMock(dir: string): Promise<{ url: string; proc: Bun.Subprocess }> {
  const script = join(dir, "undo-model.json");
  writeFileSync(
    script,
    JSON.stringify({
      responses: [
        {
          steps: [
            { type: "tool_use", name: "bash", id: "toolu_bench_undo", input: { command: `echo x >> ${CHANGED}` } },
          ],
        },
        { steps: [{ type: "text", text: "Done.", fragments: 1 }] },
      ],
    }),
  );
  return startMock(script);
}

/** One agent session on `root`: two prompts, each timed to its command's result and to its answer. */
async function acpRun(binary: string, root: string, mockUrl: string): Promise<Record<string, number>> {
  const home = mkdtempSync(join(tmpdir(), "garuda-bench-undo-home-"));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_BASE_URL: mockUrl,
    ANTHROPIC_API_KEY: KEY,
    GARUDA_MODEL: MODEL,
  };
  const peer = new Peer([binary, "acp"], root, env);
  let commandAt = Number.NaN;
  peer.onUpdate = (update: SessionUpdateLine & { status?: string }, at) => {
    if (update.sessionUpdate === "tool_call_update" && update.status === "completed" && Number.isNaN(commandAt))
      commandAt = at;
  };
  try {
    const { sessionId } = await start(peer, root);
    const metrics: Record<string, number> = {};
    for (const which of ["first", "second"]) {
      commandAt = Number.NaN;
      const sent = performance.now();
      const answer = await peer.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Change it." }],
      });
      if (answer.result.stopReason !== "end_turn") throw new Error(`the turn ended ${JSON.stringify(answer.result)}`);
      metrics[`${which}CommandMs`] = commandAt - sent;
      metrics[`${which}AnswerMs`] = answer.at - sent;
    }
    const { code } = await peer.close();
    if (code !== 0) throw new Error(`exit ${code}`);
    return metrics;
  } catch (error) {
    throw await peer.failure("undo bench session", error);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const fmt = (result: TaskResult | undefined, metric: string) => {
  const stat = result?.stats[metric];
  return stat
    ? `${(stat.median / 1000).toFixed(2)} [${(stat.p10 / 1000).toFixed(2)}–${(stat.p90 / 1000).toFixed(2)}]`
    : "–";
};

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const trees = options.copies.map((copies) => ({
    label: copies === 1 ? "78k" : `${copies}×78k`,
    root: committedTree(copies, options.fresh),
  }));
  const work = mkdtempSync(join(tmpdir(), "garuda-bench-undo-"));
  const tasks: Task[] = [];
  let mock: { url: string; proc: Bun.Subprocess } | undefined;
  try {
    if (options.only !== "acp") {
      const create = (await import("../src/store/undo.ts")).createUndoStore as unknown as CreateStore;
      const stores: Array<[string, CreateStore, boolean]> = [
        ["stat check", create, false],
        ["watched", create, true],
      ];
      if (options.baselineSrc)
        stores.unshift([
          "before",
          (await import(join(realpathSync(options.baselineSrc), "src/store/undo.ts"))).createUndoStore as CreateStore,
          false,
        ]);
      for (const tree of trees)
        for (const [name, create, watched] of stores)
          tasks.push({
            name: `store ${name} ${tree.label}`,
            run: () => storeRun(create, tree.root, options.turns, watched),
          });
    }
    if (options.only !== "store") {
      const os = hostOs();
      if (!os) throw new Error(`no Garuda build for ${process.platform}`);
      const dist = join(DIST, binaryName(os));
      if (staleReason(dist)) await buildHost(dist);
      mock = await startUndoMock(work);
      const binaries: Array<[string, string]> = [["after", alikeCopy(dist, work, "garuda")]];
      if (options.baseline) binaries.unshift(["before", alikeCopy(options.baseline, work, "garuda-baseline")]);
      for (const tree of trees)
        for (const [name, binary] of binaries) {
          const url = mock.url;
          tasks.push({ name: `acp ${name} ${tree.label}`, run: () => acpRun(binary, tree.root, url) });
        }
    }
    const results = await interleave(tasks, {
      rounds: options.rounds,
      warmup: 0,
      onRound: (round, rounds) => process.stderr.write(`round ${round}/${rounds}\r`),
    });
    const byName = new Map(results.map((result) => [result.name, result]));
    const storeRows = results.filter((r) => r.name.startsWith("store "));
    if (storeRows.length > 0) {
      console.log(
        `\nThe undo store (seconds, median [p10–p90] of ${options.rounds} sessions; per ` +
          `turn: median of ${options.turns} turns in each)`,
      );
      console.log(
        formatTable(
          ["", "first snapshot", "turn begins", "command turn ends", "tool turn ends", "slowest begin / end"],
          storeRows.map((r) => [
            r.name.slice(6),
            fmt(r, "firstMs"),
            fmt(r, "beginMs"),
            fmt(r, "endCommandMs"),
            fmt(r, "endToolMs"),
            `${fmt(r, "beginMaxMs")} / ${fmt(r, "endMaxMs")}`,
          ]),
        ),
      );
    }
    const acpRows = results.filter((r) => r.name.startsWith("acp "));
    if (acpRows.length > 0) {
      console.log(`\nThe agent over ACP (seconds from the prompt, median [p10–p90] of ${options.rounds} sessions)`);
      console.log(
        formatTable(
          ["", "1st prompt: command's result", "1st: answer", "2nd prompt: command's result", "2nd: answer"],
          acpRows.map((r) => [
            r.name.slice(4),
            fmt(byName.get(r.name), "firstCommandMs"),
            fmt(r, "firstAnswerMs"),
            fmt(r, "secondCommandMs"),
            fmt(r, "secondAnswerMs"),
          ]),
        ),
      );
    }
  } finally {
    mock?.proc.kill();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
