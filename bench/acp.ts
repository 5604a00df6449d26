// What `garuda acp` costs an editor, against the floor of a Bun-compiled ACP agent.
//
//   bun bench/acp.ts [--rounds N] [--rebuild] [--baseline <binary>]
//
// --rebuild   rebuild dist/garuda first (it is rebuilt anyway when missing or older than src/)
// --baseline  also run start and the `ls` turn with another build (e.g. main's), interleaved in
//             the same rounds, so before and after come from one run
//
// Five tasks, interleaved (bench/interleave.ts), each run many times:
//   floor            bench/acpFloor.ts, built here with the shipped flags (buildBinary): no
//                    dependencies, answers initialize and session/new by hand over stdio NDJSON
//   garuda start     dist/garuda acp: initialize, session/new, stdin closed
//   garuda turn      initialize, session/new, a prompt whose model runs `ls` in the sandbox and
//                    answers; the RSS of the agent and all its children sampled from /proc
//   garuda 10k       a prompt answered with 10,000 streamed text chunks
//   mock alone       the same 10,000-chunk response read straight from the mock (its own pacing)
// Times are from spawn (initialize, session/new) or from sending the request (turns) to the
// answer's line arriving. The client is a plain NDJSON reader that parses every line, so its
// own cost is small and the same for every agent. The mock models run in their own processes
// (test/support/mockAnthropic.ts --loop), so their work does not share the client's thread.
//
// Targets: initialize ≤ 2.5 × floor; session/new ≤ 50 ms after initialize; tree RSS ≤ 60 MiB;
// exit ≤ 100 ms after stdin closes, with nothing left running; ≥ 20,000 chunks/s.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { DIST, ROOT, binaryName, buildBinary, buildHost, checkVersions, hostOs, staleReason } from "../scripts/buildTargets.ts";
import { descendants, processTable } from "../src/sandbox/processTree.ts";
import { type Summary, type Task, type TaskResult, formatStat, formatTable, interleave } from "./interleave.ts";

const CHUNKS = 10_000;
const CHUNK_TEXT = "word ";
const MODEL = "claude-sonnet-5";
const KEY = "sk-ant-bench-not-a-real-key";
const EXIT_WAIT_MS = 10_000;
const ANSWER_WAIT_MS = 60_000;

const TARGET = {
  initializeVsFloor: 2.5,
  sessionNewAfterInitializeMs: 50,
  treeRssMiB: 60,
  exitMs: 100,
  chunksPerSecond: 20_000,
};

function parse(argv: string[]): { rounds: number; rebuild: boolean; baseline?: string } {
  let rounds = 30;
  let rebuild = false;
  let baseline: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--rounds") rounds = Number(argv[++i]);
    else if (arg?.startsWith("--rounds=")) rounds = Number(arg.slice(9));
    else if (arg === "--rebuild") rebuild = true;
    else if (arg === "--baseline" && argv[i + 1]) baseline = argv[++i];
    else throw new Error(`unknown argument ${arg}; usage: bun bench/acp.ts [--rounds N] [--rebuild] [--baseline <binary>]`);
  }
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds needs a positive integer");
  if (baseline !== undefined && !existsSync(baseline)) throw new Error(`--baseline: no file ${baseline}`);
  return baseline === undefined ? { rounds, rebuild } : { rounds, rebuild, baseline };
}

// ---------------------------------------------------------------------------------------------
// Memory, from /proc (Linux)

const HAS_PROC = existsSync("/proc/self/status");

/** A field of /proc/<pid>/status in bytes, or 0 when the process is gone. */
function statusBytes(pid: number, field: "VmRSS" | "VmHWM" | "RssAnon"): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** PSS of one process (shared pages split among their users), or 0 when it is gone. */
function pssBytes(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function commandName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "?";
  }
}

interface TreeSample {
  rss: number;
  pss: number;
  children: number[];
  /** Each process: its name and RSS. */
  parts: { name: string; rss: number }[];
}

/** RSS and PSS of `pid` and every descendant, summed. */
function treeSample(pid: number): TreeSample {
  const children = descendants(pid);
  const parts = [pid, ...children].map((p) => ({ name: p === pid ? "agent" : commandName(p), rss: statusBytes(p, "VmRSS"), pss: pssBytes(p) }));
  return {
    rss: parts.reduce((sum, p) => sum + p.rss, 0),
    pss: parts.reduce((sum, p) => sum + p.pss, 0),
    children,
    parts: parts.map(({ name, rss }) => ({ name, rss })),
  };
}

function alive(pid: number): boolean {
  const entry = processTable().get(pid);
  return entry !== undefined && !entry.zombie;
}

const MiB = (bytes: number) => bytes / 2 ** 20;

// ---------------------------------------------------------------------------------------------
// A plain NDJSON client

interface Incoming {
  id?: number | string | null;
  method?: string;
  params?: { update?: { sessionUpdate?: string; content?: { type?: string; text?: string } } };
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

interface Answer {
  result: Record<string, unknown>;
  /** performance.now() when its line arrived. */
  at: number;
}

class Peer {
  readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  readonly spawnedAt: number;
  readonly stderr: Promise<string>;
  /** agent_message_chunk notifications and the characters of their text. */
  chunks = 0;
  chars = 0;
  /** Requests from the agent (the bench never expects one). */
  readonly agentRequests: string[] = [];
  #pending = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void; method: string }>();
  #nextId = 0;
  #seen = new Set<number>();
  #sampler: ReturnType<typeof setInterval> | undefined;
  peakTreeBytes = 0;
  peakTreePss = 0;
  /** The processes of the tree when its RSS peaked. */
  peakParts: { name: string; rss: number }[] = [];

  constructor(cmd: string[], cwd: string, env: Record<string, string | undefined>) {
    this.spawnedAt = performance.now();
    this.proc = Bun.spawn(cmd, { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    this.stderr = new Response(this.proc.stderr).text();
    void this.#read();
  }

  async #read(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of this.proc.stdout) {
      const at = performance.now();
      buffer += decoder.decode(chunk, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf("\n");
        if (line.trim() !== "") this.#handle(JSON.parse(line) as Incoming, at);
      }
    }
    for (const [, waiter] of this.#pending) waiter.reject(new Error(`the agent's stdout closed before the answer to ${waiter.method}`));
    this.#pending.clear();
  }

  #handle(message: Incoming, at: number): void {
    if (message.method !== undefined && message.id !== undefined && message.id !== null) {
      this.agentRequests.push(message.method);
      this.#write({ jsonrpc: "2.0", id: message.id, result: { outcome: { outcome: "cancelled" } } });
      return;
    }
    if (message.method === "session/update") {
      const update = message.params?.update;
      if (update?.sessionUpdate === "agent_message_chunk" && update.content?.type === "text") {
        this.chunks++;
        this.chars += update.content.text?.length ?? 0;
      }
      return;
    }
    if (typeof message.id !== "number") return;
    const waiter = this.#pending.get(message.id);
    if (!waiter) return;
    this.#pending.delete(message.id);
    if (message.error) waiter.reject(new Error(`${waiter.method}: ${message.error.code} ${message.error.message}`));
    else waiter.resolve({ result: message.result ?? {}, at });
  }

  #write(message: unknown): void {
    this.proc.stdin.write(`${JSON.stringify(message)}\n`);
    void this.proc.stdin.flush();
  }

  request(method: string, params: unknown): Promise<Answer> {
    const id = this.#nextId++;
    const answer = new Promise<Answer>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, method });
    });
    this.#write({ jsonrpc: "2.0", id, method, params });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer to ${method} in ${ANSWER_WAIT_MS} ms`)), ANSWER_WAIT_MS);
    });
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  }

  /** Samples the RSS of the whole tree every `everyMs` until stopSampling(). */
  startSampling(everyMs = 5): void {
    if (!HAS_PROC) return;
    const sample = () => {
      const tree = treeSample(this.proc.pid);
      for (const child of tree.children) this.#seen.add(child);
      if (tree.rss > this.peakTreeBytes) {
        this.peakTreeBytes = tree.rss;
        this.peakParts = tree.parts;
      }
      this.peakTreePss = Math.max(this.peakTreePss, tree.pss);
    };
    sample();
    this.#sampler = setInterval(sample, everyMs);
  }

  stopSampling(): void {
    if (this.#sampler) clearInterval(this.#sampler);
    this.#sampler = undefined;
  }

  /** The agent's own peak RSS so far (the kernel's high-water mark). */
  hwmBytes(): number {
    return HAS_PROC ? statusBytes(this.proc.pid, "VmHWM") : Number.NaN;
  }

  /** The agent's anonymous memory now (its heaps; the rest of its RSS is the binary's pages). */
  anonBytes(): number {
    return HAS_PROC ? statusBytes(this.proc.pid, "RssAnon") : Number.NaN;
  }

  /**
   * Closes stdin as an editor does when it stops the agent. Returns the time to exit and how
   * many of the agent's processes (seen while it ran, or there now) are still alive after it.
   */
  async close(): Promise<{ exitMs: number; code: number | null; left: number }> {
    for (const child of descendants(this.proc.pid)) this.#seen.add(child);
    const started = performance.now();
    await this.proc.stdin.end();
    const code = await Promise.race([this.proc.exited, Bun.sleep(EXIT_WAIT_MS).then(() => null)]);
    const exitMs = performance.now() - started;
    if (code === null) {
      this.proc.kill("SIGKILL");
      await this.proc.exited;
    }
    const left = [...this.#seen].filter(alive).length + (code === null ? 1 : 0);
    return { exitMs: code === null ? Number.NaN : exitMs, code, left };
  }

  async failure(what: string, error: unknown): Promise<Error> {
    if (this.proc.exitCode === null) {
      this.proc.kill("SIGKILL");
      await this.proc.exited;
    }
    const log = (await this.stderr).trim().split("\n").slice(-20).join("\n");
    return new Error(`${what}: ${error instanceof Error ? error.message : String(error)}${log ? `\nagent stderr:\n${log}` : ""}`);
  }
}

const INITIALIZE = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  clientInfo: { name: "garuda-bench", version: "1.0.0" },
};

/** Spawn, initialize at once, session/new as soon as initialize is answered. */
async function start(peer: Peer, cwd: string): Promise<{ initMs: number; newMs: number; sessionId: string }> {
  const init = await peer.request("initialize", INITIALIZE);
  const created = await peer.request("session/new", { cwd, mcpServers: [] });
  const sessionId = created.result.sessionId;
  if (typeof sessionId !== "string") throw new Error(`session/new answered no sessionId: ${JSON.stringify(created.result)}`);
  return { initMs: init.at - peer.spawnedAt, newMs: created.at - peer.spawnedAt, sessionId };
}

async function prompt(peer: Peer, sessionId: string, text: string): Promise<{ turnMs: number }> {
  const sent = performance.now();
  const answer = await peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  if (answer.result.stopReason !== "end_turn") throw new Error(`the turn ended ${JSON.stringify(answer.result)}`);
  return { turnMs: answer.at - sent };
}

// ---------------------------------------------------------------------------------------------
// Mock models, each in its own process

interface MockProcess {
  url: string;
  proc: Bun.Subprocess;
}

async function startMock(scriptFile: string): Promise<MockProcess> {
  const proc = Bun.spawn([process.execPath, join(ROOT, "test/support/mockAnthropic.ts"), "--script", scriptFile, "--loop"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the mock model (${scriptFile}) exited before printing its URL`);
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return { url: text.split("\n")[0] as string, proc };
}

/** The mock's own time to serve the 10,000-chunk response to a plain reader. */
async function readMock(url: string): Promise<{ mockMs: number; deltas: number }> {
  const started = performance.now();
  const response = await fetch(`${url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": KEY, "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: MODEL, max_tokens: 64_000, stream: true, messages: [{ role: "user", content: "Stream." }] }),
  });
  const body = await response.text();
  const mockMs = performance.now() - started;
  return { mockMs, deltas: body.split("event: content_block_delta").length - 1 };
}

// ---------------------------------------------------------------------------------------------

const verdict = (ok: boolean) => (ok ? "ok" : "OVER TARGET");
const med = (r: TaskResult | undefined, metric: string): number => r?.stats[metric]?.median ?? Number.NaN;
const total = (r: TaskResult | undefined, metric: string): number => (r?.samples[metric] ?? []).reduce((a, b) => a + b, 0);
const fmt = (s: Summary | undefined, digits = 1) => formatStat(s, digits);

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const version = checkVersions();
  const os = hostOs();
  if (!os) throw new Error(`no Garuda build for ${process.platform}`);
  const garuda = join(DIST, binaryName(os));
  if (options.rebuild || staleReason(garuda)) {
    console.log(`building ${relative(ROOT, garuda)} …`);
    await buildHost(garuda);
  }

  const work = mkdtempSync(join(tmpdir(), "garuda-bench-acp-"));
  const mocks: MockProcess[] = [];
  try {
    const floor = await buildBinary({ entry: join(import.meta.dir, "acpFloor.ts"), outfile: join(work, "acp-floor") });
    const project = join(work, "project");
    mkdirSync(project);
    writeFileSync(join(project, "notes.txt"), "a small project\n");

    const commandScript = join(work, "command.json");
    writeFileSync(
      commandScript,
      JSON.stringify({
        responses: [
          { steps: [{ type: "tool_use", name: "bash", id: "toolu_bench_ls", input: { command: "ls" } }] },
          { steps: [{ type: "text", text: "The project holds notes.txt.", fragments: 4 }] },
        ],
      }),
    );
    const streamScript = join(work, "stream.json");
    writeFileSync(streamScript, JSON.stringify({ responses: [{ steps: [{ type: "text", text: CHUNK_TEXT.repeat(CHUNKS), fragments: CHUNKS }] }] }));
    const commandMock = await startMock(commandScript);
    mocks.push(commandMock);
    const streamMock = await startMock(streamScript);
    mocks.push(streamMock);

    const check = await readMock(streamMock.url);
    if (check.deltas !== CHUNKS) throw new Error(`the mock streamed ${check.deltas} text deltas, expected ${CHUNKS}`);

    /** A fresh HOME per run, as after an install: no ~/.garuda, the model and key from the environment. */
    const agentEnv = (mockUrl: string) => {
      const home = mkdtempSync(join(work, "home-"));
      return { home, env: { PATH: process.env.PATH, HOME: home, ANTHROPIC_BASE_URL: mockUrl, ANTHROPIC_API_KEY: KEY, GARUDA_MODEL: MODEL } };
    };

    const startupTask = (name: string, cmd: string[]): Task => ({
      name,
      run: async () => {
        const { home, env } = agentEnv(commandMock.url);
        const peer = new Peer(cmd, project, env);
        try {
          const { initMs, newMs } = await start(peer, project);
          const hwmMiB = MiB(peer.hwmBytes());
          const anonMiB = MiB(peer.anonBytes());
          const { exitMs, code, left } = await peer.close();
          if (code !== 0) throw new Error(`exit ${code}`);
          return { initMs, newMs, newAfterInitMs: newMs - initMs, hwmMiB, anonMiB, exitMs, left };
        } catch (error) {
          throw await peer.failure(name, error);
        } finally {
          rmSync(home, { recursive: true, force: true });
        }
      },
    });

    /** The tree at its RSS peak in the latest `ls` turn, for the breakdown. */
    let peakParts: { name: string; rss: number }[] = [];
    const turnTask = (name: string, binary: string): Task => ({
        name,
        run: async () => {
          const { home, env } = agentEnv(commandMock.url);
          const peer = new Peer([binary, "acp"], project, env);
          try {
            peer.startSampling();
            const { sessionId } = await start(peer, project);
            const { turnMs } = await prompt(peer, sessionId, "What is in this project?");
            peer.stopSampling();
            if (peer.agentRequests.length > 0) throw new Error(`unexpected requests from the agent: ${peer.agentRequests.join(", ")}`);
            const hwmMiB = MiB(peer.hwmBytes());
            const anonMiB = MiB(peer.anonBytes());
            const { exitMs, code, left } = await peer.close();
            if (code !== 0) throw new Error(`exit ${code}`);
            if (binary === garuda) peakParts = peer.peakParts;
            return { turnMs, treePeakMiB: HAS_PROC ? MiB(peer.peakTreeBytes) : Number.NaN, treePssMiB: HAS_PROC ? MiB(peer.peakTreePss) : Number.NaN, hwmMiB, anonMiB, exitMs, left };
          } catch (error) {
            throw await peer.failure(name, error);
          } finally {
            peer.stopSampling();
            rmSync(home, { recursive: true, force: true });
          }
        },
      });
    const tasks: Task[] = [
      startupTask("floor", [floor.outfile]),
      startupTask("garuda start", [garuda, "acp"]),
      turnTask("garuda turn", garuda),
      {
        name: "garuda 10k chunks",
        run: async () => {
          const { home, env } = agentEnv(streamMock.url);
          const peer = new Peer([garuda, "acp"], project, env);
          try {
            const { sessionId } = await start(peer, project);
            const { turnMs } = await prompt(peer, sessionId, "Stream.");
            if (peer.chars !== CHUNK_TEXT.length * CHUNKS) throw new Error(`the client got ${peer.chars} characters of text, expected ${CHUNK_TEXT.length * CHUNKS}`);
            const hwmMiB = MiB(peer.hwmBytes());
            const anonMiB = MiB(peer.anonBytes());
            const { exitMs, code, left } = await peer.close();
            if (code !== 0) throw new Error(`exit ${code}`);
            return { turnMs, notifications: peer.chunks, hwmMiB, anonMiB, exitMs, left };
          } catch (error) {
            throw await peer.failure("garuda 10k chunks", error);
          } finally {
            rmSync(home, { recursive: true, force: true });
          }
        },
      },
      { name: "mock alone", run: async () => ({ mockMs: (await readMock(streamMock.url)).mockMs }) },
      ...(options.baseline ? [startupTask("baseline start", [options.baseline, "acp"]), turnTask("baseline turn", options.baseline)] : []),
    ];

    console.log(
      `garuda ${version} acp, bun ${Bun.version}, ${process.platform}-${process.arch}; ${options.rounds} interleaved rounds (+3 warm-up); ` +
        `RSS from ${HAS_PROC ? "/proc (VmRSS of the tree sampled every 5 ms; VmHWM of the agent)" : "nowhere: no /proc on this system"}`,
    );
    const results = await interleave(tasks, {
      rounds: options.rounds,
      onRound: (round, rounds) => {
        if (round % 5 === 0 || round === rounds) process.stderr.write(`  round ${round}/${rounds}\n`);
      },
    });
    const by = (name: string) => results.find((r) => r.name === name);
    const floorR = by("floor");
    const startR = by("garuda start");
    const turnR = by("garuda turn");
    const streamR = by("garuda 10k chunks");
    const mockR = by("mock alone");

    console.log("\nmedian [p10–p90], ms from spawn (initialize, session/new) or from the request (turns)");
    console.log(
      formatTable(
        ["program", "initialize", "session/new", "new − init", "agent VmHWM MiB", "of it anon MiB", "exit after EOF", "left running"],
        [floorR, startR, by("baseline start")].filter((r) => r !== undefined).map((r) => [
          r?.name ?? "?",
          fmt(r?.stats.initMs),
          fmt(r?.stats.newMs),
          fmt(r?.stats.newAfterInitMs),
          fmt(r?.stats.hwmMiB),
          fmt(r?.stats.anonMiB),
          fmt(r?.stats.exitMs),
          String(total(r, "left")),
        ]),
      ),
    );
    console.log();
    console.log(
      formatTable(
        ["turn", "turn ms", "tree RSS peak MiB", "tree PSS peak MiB", "agent VmHWM MiB", "anon at end MiB", "exit after EOF", "left running", "chunks to the client"],
        [
          ["`ls` in the sandbox + answer", fmt(turnR?.stats.turnMs), fmt(turnR?.stats.treePeakMiB), fmt(turnR?.stats.treePssMiB), fmt(turnR?.stats.hwmMiB), fmt(turnR?.stats.anonMiB), fmt(turnR?.stats.exitMs), String(total(turnR, "left")), "–"],
          [`${CHUNKS.toLocaleString("en")} text chunks`, fmt(streamR?.stats.turnMs), "–", "–", fmt(streamR?.stats.hwmMiB), fmt(streamR?.stats.anonMiB), fmt(streamR?.stats.exitMs), String(total(streamR, "left")), fmt(streamR?.stats.notifications, 0)],
          ...[by("baseline turn")].filter((r) => r !== undefined).map((r) => ["baseline: `ls` in the sandbox + answer", fmt(r.stats.turnMs), fmt(r.stats.treePeakMiB), fmt(r.stats.treePssMiB), fmt(r.stats.hwmMiB), fmt(r.stats.anonMiB), fmt(r.stats.exitMs), String(total(r, "left")), "–"]),
          [`mock alone (${CHUNKS.toLocaleString("en")} chunks)`, fmt(mockR?.stats.mockMs), "–", "–", "–", "–", "–", "–", "–"],
        ],
      ),
    );

    const initRatio = med(startR, "initMs") / med(floorR, "initMs");
    const newAfter = med(startR, "newAfterInitMs");
    const treePeak = Math.max(med(turnR, "treePeakMiB"), med(streamR, "hwmMiB"), med(startR, "hwmMiB"));
    const exitWorst = Math.max(med(startR, "exitMs"), med(turnR, "exitMs"), med(streamR, "exitMs"));
    const leftAll = total(startR, "left") + total(turnR, "left") + total(streamR, "left");
    const runs = (startR?.stats.exitMs?.n ?? 0) + (turnR?.stats.exitMs?.n ?? 0) + (streamR?.stats.exitMs?.n ?? 0);
    const overheadMs = med(streamR, "turnMs") - med(mockR, "mockMs");
    const chunksPerSecond = overheadMs > 0 ? CHUNKS / (overheadMs / 1000) : Number.POSITIVE_INFINITY;
    const endToEnd = CHUNKS / (med(streamR, "turnMs") / 1000);

    if (peakParts.length > 0) {
      console.log(`\nthe tree at its RSS peak (last \`ls\` turn): ${peakParts.map((p) => `${p.name} ${MiB(p.rss).toFixed(1)}`).join(", ")} MiB`);
    }
    console.log("\nfigures:");
    console.log(`  floor: initialize ${med(floorR, "initMs").toFixed(1)} ms, session/new ${med(floorR, "newMs").toFixed(1)} ms, VmHWM ${med(floorR, "hwmMiB").toFixed(1)} MiB, exit ${med(floorR, "exitMs").toFixed(1)} ms (${(floor.bytes / 1e6).toFixed(1)} MB binary)`);
    console.log(`  garuda: initialize ${med(startR, "initMs").toFixed(1)} ms (${initRatio.toFixed(2)} × floor), session/new ${med(startR, "newMs").toFixed(1)} ms (${newAfter.toFixed(1)} ms after initialize)`);
    console.log(`  10k chunks: turn ${med(streamR, "turnMs").toFixed(1)} ms − mock alone ${med(mockR, "mockMs").toFixed(1)} ms = ${overheadMs.toFixed(1)} ms of Garuda → ${Number.isFinite(chunksPerSecond) ? Math.round(chunksPerSecond).toLocaleString("en") : "∞"} chunks/s (end to end with the mock: ${Math.round(endToEnd).toLocaleString("en")} chunks/s, ${med(streamR, "notifications").toFixed(0)} agent_message_chunk notifications)`);

    console.log("\ntargets:");
    console.log(`  initialize ≤ ${TARGET.initializeVsFloor} × floor: ${initRatio.toFixed(2)} × (${med(startR, "initMs").toFixed(1)} vs ${med(floorR, "initMs").toFixed(1)} ms) ${verdict(initRatio <= TARGET.initializeVsFloor)}`);
    console.log(`  session/new ≤ ${TARGET.sessionNewAfterInitializeMs} ms after initialize: ${newAfter.toFixed(1)} ms ${verdict(newAfter <= TARGET.sessionNewAfterInitializeMs)}`);
    console.log(`  tree RSS ≤ ${TARGET.treeRssMiB} MiB: ${treePeak.toFixed(1)} MiB (the highest median: sampled tree in the \`ls\` turn, the agent's VmHWM at start and in the 10k turn) ${verdict(treePeak <= TARGET.treeRssMiB)}`);
    console.log(`  exit ≤ ${TARGET.exitMs} ms with nothing left: ${exitWorst.toFixed(1)} ms (the slowest median), ${leftAll} process(es) left in ${runs} runs ${verdict(exitWorst <= TARGET.exitMs && leftAll === 0)}`);
    console.log(`  ≥ ${TARGET.chunksPerSecond.toLocaleString("en")} chunks/s: ${Number.isFinite(chunksPerSecond) ? Math.round(chunksPerSecond).toLocaleString("en") : "∞"} ${verdict(chunksPerSecond >= TARGET.chunksPerSecond)}`);
  } finally {
    for (const mock of mocks) {
      mock.proc.kill();
      await mock.proc.exited;
    }
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
