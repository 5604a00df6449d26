// The agent's memory over a long session of tool calls on a big project (issue 35.4): the compiled
// agent over ACP, a scripted model (test/support/mockAnthropic.ts) that asks for 100 tool calls in
// 10 turns, on the Linux-shaped tree of bench/linuxTree.ts (78,600 files). The calls are a mix an
// agent makes on such a project: grep (content, files and count modes, with and without a glob or
// a folder), glob, find_definition of C symbols, read_file of sources, and a few read-only bash
// commands. At calls 1, 20, 50 and 100 (when the call's completed update reaches the client) the
// agent's VmRSS and where it is (/proc/<pid>/smaps: the binary's pages, JIT code, the malloc heap,
// the other anonymous mappings: JSC's heap, mimalloc, worker threads' stacks and heaps), its threads;
// at the end its VmHWM (the kernel's peak) and the peak RSS of its tree (sampled every 20 ms).
//
//   bun bench/toolMemory.ts [--rounds N] [--calls N] [--per-turn N] [--tree DIR] [--baseline <binary>]
//
// --baseline runs another build (e.g. main's dist/garuda) in the same rounds, alternating, so
// before and after come from one run. Targets: RSS after 100 calls ≤ 1.3 × after the first, the
// peak ≤ 2 × after the first.
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { DIST, ROOT, binaryName, buildHost, hostOs, staleReason } from "../scripts/buildTargets.ts";
import { MiB, Peer, alikeCopy, prompt, smapsBreakdown, start, startMock, statusBytes } from "./acpPeer.ts";
import { formatStat, formatTable, summarize } from "./interleave.ts";
import { LINUX_SHAPE } from "./linuxTree.ts";
import { statFields } from "../src/sandbox/procStat.ts";

const MODEL = "claude-sonnet-5";
const KEY = "sk-ant-bench-not-a-real-key";
const RSS_RATIO_TARGET = 1.3;
/** USER_HZ: /proc reports CPU time in hundredths of a second. */
const TICKS_PER_SECOND = 100;
const PEAK_RATIO_TARGET = 2;

interface Options {
  rounds: number;
  calls: number;
  perTurn: number;
  tree: string;
  baseline?: string;
}

function parse(argv: string[]): Options {
  const { files, folders, seed, bytesScale } = LINUX_SHAPE;
  const options: Options = {
    rounds: 2,
    calls: 100,
    perTurn: 10,
    tree: join(tmpdir(), `garuda-bench-linux-${files}-${folders}-${seed}-${bytesScale}`),
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--rounds") options.rounds = Number(argv[++i]);
    else if (arg === "--calls") options.calls = Number(argv[++i]);
    else if (arg === "--per-turn") options.perTurn = Number(argv[++i]);
    else if (arg === "--tree") options.tree = argv[++i] as string;
    else if (arg === "--baseline") options.baseline = argv[++i] as string;
    else
      throw new Error(
        `unknown argument ${arg}; usage: bun bench/toolMemory.ts [--rounds N] [--calls ` +
          `N] [--per-turn N] [--tree DIR] [--baseline <binary>]`,
      );
  }
  if (!(options.rounds > 0 && options.calls > 0 && options.perTurn > 0))
    throw new Error("--rounds, --calls and --per-turn need positive numbers");
  if (!existsSync(options.tree))
    throw new Error(`no tree at ${options.tree}: make it with bun bench/search.ts (or pass --tree DIR)`);
  if (options.baseline !== undefined && !existsSync(options.baseline))
    throw new Error(`--baseline: no file ${options.baseline}`);
  return { ...options, tree: realpathSync(options.tree) };
}

/** Files of `kind` in the tree, `count` of them spread over its folders (the same ones every run). */
function someFiles(root: string, suffix: string, count: number): string[] {
  const found: string[] = [];
  const folders = [root];
  while (folders.length > 0 && found.length < count * 40) {
    const folder = folders.shift() as string;
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith(".")) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) folders.push(path);
      else if (entry.name.endsWith(suffix)) found.push(relative(root, path));
    }
  }
  const step = Math.max(1, Math.floor(found.length / count));
  return found.filter((_, i) => i % step === 0).slice(0, count);
}

type Call = { name: string; input: Record<string, unknown> };

/** The session's calls, in order: a mix that cycles through the kinds, each with its own arguments. */
function calls(root: string, total: number): Call[] {
  const sources = someFiles(root, ".c", 40);
  const headers = someFiles(root, ".h", 20);
  // Functions the sources export: real names to look up, as a model would after reading a file.
  const symbols = sources
    .map((file) => /EXPORT_SYMBOL_GPL\((\w+)\)/.exec(readFileSync(join(root, file), "utf8"))?.[1])
    .filter((name): name is string => name !== undefined);
  const folderOf = (file: string) => file.split("/").slice(0, 2).join("/");
  const pick = <T>(list: T[], i: number) => list[i % list.length] as T;
  const kinds: ((i: number) => Call)[] = [
    () => ({ name: "grep", input: { pattern: "EXPORT_SYMBOL_GPL" } }),
    (i) => ({ name: "read_file", input: { path: pick(sources, i) } }),
    (i) => ({ name: "find_definition", input: { name: i % 3 === 0 ? "kmalloc" : pick(symbols, i) } }),
    (i) => ({ name: "grep", input: { pattern: `struct \\w+_${["dev", "priv", "ops"][i % 3]}\\b`, glob: "*.h" } }),
    (i) => ({ name: "glob", input: { pattern: ["**/*.c", "**/Makefile", "**/*.S", "drivers/**/*.h"][i % 4] } }),
    (i) => ({ name: "read_file", input: { path: pick(headers, i) } }),
    (i) => ({
      name: "grep",
      input: { pattern: "mutex_lock", mode: i % 2 ? "files" : "count", ignoreCase: i % 4 === 0 },
    }),
    (i) => ({ name: "grep", input: { pattern: pick(symbols, i), path: folderOf(pick(sources, i)), context: 2 } }),
    (i) => ({
      name: "bash",
      input: {
        command: [
          "ls -la",
          `wc -l ${pick(sources, i)}`,
          `find ${folderOf(pick(sources, i))} -name '*.c' | wc -l`,
          `head -40 ${pick(headers, i)}`,
        ][i % 4],
      },
    }),
    (i) => ({ name: "read_file", input: { path: pick(sources, i + 7), offset: 20, limit: 80 } }),
  ];
  return Array.from({ length: total }, (_, i) => (pick(kinds, i) as (i: number) => Call)(Math.floor(i / kinds.length)));
}

/** The model's script: each turn `perTurn` tool calls, then a line of text. */
function script(all: Call[], perTurn: number): unknown[] {
  const responses: unknown[] = [];
  all.forEach((call, i) => {
    responses.push({ steps: [{ type: "tool_use", id: `toolu_bench_${i}`, name: call.name, input: call.input }] });
    if ((i + 1) % perTurn === 0 || i === all.length - 1)
      responses.push({ steps: [{ type: "text", text: `Done with step ${i + 1}.`, fragments: 2 }] });
  });
  return responses;
}

function threads(pid: number): number {
  try {
    return Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

/** CPU ticks a process has used (utime + stime), NaN once it is gone. */
function cpuTicks(pid: number): number {
  try {
    const fields = statFields(readFileSync(`/proc/${pid}/stat`, "utf8"));
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return Number.NaN;
  }
}

const CHECKPOINTS = [1, 20, 50, 100];
/** A turn of ten searches of the whole tree on a busy machine takes minutes (each search may take its 10 s budget). */
const TURN_WAIT_MS = 600_000;

interface Checkpoint {
  rss: number;
  parts: Record<string, number>;
  threads: number;
}

interface Run {
  start: number;
  at: Map<number, Checkpoint>;
  hwm: number;
  treePeak: number;
  /** Wall time of the whole session's turns. */
  turnsMs: number;
  /** The agent's CPU time (user and system) over the whole session. */
  cpuMs: number;
  errors: number;
}

async function session(binary: string, options: Options, env: Record<string, string | undefined>): Promise<Run> {
  const peer = new Peer([binary, "acp"], options.tree, env);
  const at = new Map<number, Checkpoint>();
  const checkpoints = new Set([...CHECKPOINTS.filter((n) => n < options.calls), options.calls]);
  let done = 0;
  let errors = 0;
  peer.onUpdate = (update) => {
    if (update.sessionUpdate !== "tool_call_update") return;
    const status = (update as { status?: string }).status;
    if (status !== "completed" && status !== "failed") return;
    done++;
    if (status === "failed") errors++;
    if (process.env.BENCH_VERBOSE)
      process.stderr.write(
        `call ${done} ${status} at ` +
          `${((performance.now() - peer.spawnedAt) / 1000).toFixed(1)} s: ` +
          `${JSON.stringify(update).slice(0, 300)}\n`,
      );
    if (checkpoints.has(done)) {
      const pid = peer.proc.pid;
      at.set(done, { rss: statusBytes(pid, "VmRSS"), parts: smapsBreakdown(pid, binary), threads: threads(pid) });
    }
  };
  try {
    const { sessionId } = await start(peer, options.tree);
    await Bun.sleep(200);
    const startRss = statusBytes(peer.proc.pid, "VmRSS");
    peer.startSampling(20);
    const started = performance.now();
    for (let turn = 0; turn * options.perTurn < options.calls; turn++)
      await prompt(peer, sessionId, `Step ${turn + 1}: look around the kernel tree.`, TURN_WAIT_MS);
    const turnsMs = performance.now() - started;
    peer.stopSampling();
    const cpuMs = cpuTicks(peer.proc.pid) * (1000 / TICKS_PER_SECOND);
    if (done !== options.calls) throw new Error(`${done} tool calls completed, expected ${options.calls}`);
    return { start: startRss, at, hwm: peer.hwmBytes(), treePeak: peer.peakTreeBytes, turnsMs, cpuMs, errors };
  } catch (error) {
    throw await peer.failure(`${binary} acp`, error);
  } finally {
    if (peer.proc.exitCode === null) await peer.close();
  }
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const os = hostOs();
  if (!os) throw new Error(`no Garuda build for ${process.platform}`);
  const built = join(DIST, binaryName(os));
  if (staleReason(built)) {
    console.log(`building ${relative(ROOT, built)} …`);
    await buildHost(built);
  }
  const work = mkdtempSync(join(tmpdir(), "garuda-bench-toolmemory-"));
  // Copies made the same way, so the binaries lie alike in the page cache (bench/acpPeer.ts alikeCopy).
  const builds: [string, string][] = [["this build", alikeCopy(built, work, "garuda-this")]];
  if (options.baseline) builds.push(["baseline", alikeCopy(options.baseline, work, "garuda-baseline")]);
  const all = calls(options.tree, options.calls);
  const scriptFile = join(work, "script.json");
  writeFileSync(scriptFile, JSON.stringify({ responses: script(all, options.perTurn) }));
  const mock = await startMock(scriptFile);
  const mix = new Map<string, number>();
  for (const call of all) mix.set(call.name, (mix.get(call.name) ?? 0) + 1);
  const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(
    `${options.tree}: ${options.calls} tool calls in turns of ${options.perTurn} ` +
      `(${[...mix].map(([name, n]) => `${name} ${n}`).join(", ")}); ${options.rounds} ` +
      `rounds; load ${load()}`,
  );
  const runs = new Map<string, Run[]>(builds.map(([name]) => [name, []]));
  try {
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? builds : [...builds].reverse();
      for (const [name, binary] of order) {
        const home = mkdtempSync(join(work, "home-"));
        const env = {
          PATH: process.env.PATH,
          HOME: home,
          ANTHROPIC_BASE_URL: mock.url,
          ANTHROPIC_API_KEY: KEY,
          GARUDA_MODEL: MODEL,
        };
        const run = await session(binary, options, env);
        runs.get(name)?.push(run);
        rmSync(home, { recursive: true, force: true });
        process.stderr.write(`round ${round + 1}/${options.rounds} ${name}: ${(run.turnsMs / 1000).toFixed(0)} s\n`);
      }
    }
  } finally {
    mock.proc.kill();
    rmSync(work, { recursive: true, force: true });
  }
  report(options, runs);
  console.log(`load at the end ${load()}`);
}

function report(options: Options, runs: Map<string, Run[]>): void {
  const points = [...new Set([...CHECKPOINTS.filter((n) => n < options.calls), options.calls])];
  const stat = (values: number[], digits = 0) => formatStat(summarize(values), digits);
  const mib = (values: number[]) => stat(values.map(MiB));
  for (const [name, list] of runs) {
    const first = (run: Run) => run.at.get(points[0] as number)?.rss ?? Number.NaN;
    const last = (run: Run) => run.at.get(options.calls)?.rss ?? Number.NaN;
    console.log(
      `\n${name}: agent RSS MiB, medians [p10–p90] of ${list.length}; ${list[0]?.errors ?? 0} calls answered an error`,
    );
    const rows = [
      ["after session/new", mib(list.map((r) => r.start)), "", ""],
      ...points.map((n) => {
        const at = (r: Run) => r.at.get(n) as Checkpoint;
        const kinds = Object.keys(list[0] ? at(list[0]).parts : {});
        const part = (key: string) => mib(list.map((r) => at(r).parts[key] as number));
        return [
          `after call ${n}`,
          mib(list.map((r) => at(r).rss)),
          kinds.map((kind) => `${kind} ${part(kind)}`).join(", "),
          stat(list.map((r) => at(r).threads)),
        ];
      }),
      ["peak (VmHWM)", mib(list.map((r) => r.hwm)), "", ""],
      ["peak of the agent's tree (sampled)", mib(list.map((r) => r.treePeak)), "", ""],
    ];
    console.log(formatTable(["when", "RSS MiB", "where (MiB)", "threads"], rows));
    const growth = summarize(list.map((r) => last(r) / first(r))).median;
    const peak = summarize(list.map((r) => r.hwm / first(r))).median;
    const verdict = (ok: boolean) => (ok ? "ok" : "OVER TARGET");
    console.log(
      `  after call ${options.calls} ÷ after call 1: ${growth.toFixed(2)} (≤ ` +
        `${RSS_RATIO_TARGET} ${verdict(growth <= RSS_RATIO_TARGET)}); peak ÷ after call ` +
        `1: ${peak.toFixed(2)} (≤ ${PEAK_RATIO_TARGET} ` +
        `${verdict(peak <= PEAK_RATIO_TARGET)}); turns ` +
        `${stat(list.map((r) => r.turnsMs / 1000))} s, agent CPU ` +
        `${stat(list.map((r) => r.cpuMs / 1000))} s`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
