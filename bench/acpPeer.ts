// The bench's ACP client and its /proc readings, shared by bench/acp.ts and bench/acpControls.ts:
// a plain NDJSON reader that parses every line (its own cost is small and the same for every
// agent), answers the agent's requests, counts the text it streams, and samples memory.
import { chmodSync, copyFileSync, existsSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../scripts/buildTargets.ts";
import { descendants, processTable } from "../src/sandbox/processTree.ts";
import { readProcStat } from "../src/sandbox/procStat.ts";

export const EXIT_WAIT_MS = 10_000;
export const ANSWER_WAIT_MS = 60_000;

// ---------------------------------------------------------------------------------------------
// Memory, from /proc (Linux)

export const HAS_PROC = existsSync("/proc/self/status");

/** A field of /proc/<pid>/status in bytes, or 0 when the process is gone. */
export function statusBytes(pid: number, field: "VmRSS" | "VmHWM" | "RssAnon"): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** PSS of one process (shared pages split among their users), or 0 when it is gone. */
export function pssBytes(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export function commandName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "?";
  }
}

export interface TreeSample {
  rss: number;
  pss: number;
  children: number[];
  /** Each process: its name and RSS. */
  parts: { name: string; rss: number }[];
}

/** What a process runs (program and arguments), or undefined when it is gone. */
function image(pid: number): string | undefined {
  try {
    return `${readlinkSync(`/proc/${pid}/exe`)}\0${readFileSync(`/proc/${pid}/cmdline`, "utf8")}`;
  } catch {
    return undefined;
  }
}

function parentOf(pid: number): number | undefined {
  return readProcStat(pid)?.ppid;
}

/**
 * A child caught between its spawn and its exec: it still runs its parent's program with its
 * parent's arguments. Bun starts children with posix_spawn (a vfork: the child shares the parent's
 * memory until it execs), so /proc reports the parent's RSS and PSS again for it; counting them
 * would add the agent twice for that instant.
 */
function beforeExec(pid: number): boolean {
  const parent = parentOf(pid);
  const own = image(pid);
  return parent !== undefined && own !== undefined && own === image(parent);
}

/** RSS and PSS of `pid` and every descendant, summed (children not yet exec'd left out: see beforeExec). */
export function treeSample(pid: number): TreeSample {
  const children = descendants(pid);
  const counted = [pid, ...children.filter((child) => !beforeExec(child))];
  const parts = counted.map((p) => ({
    name: p === pid ? "agent" : commandName(p),
    rss: statusBytes(p, "VmRSS"),
    pss: pssBytes(p),
  }));
  return {
    rss: parts.reduce((sum, p) => sum + p.rss, 0),
    pss: parts.reduce((sum, p) => sum + p.pss, 0),
    children,
    parts: parts.map(({ name, rss }) => ({ name, rss })),
  };
}

export function alive(pid: number): boolean {
  const entry = processTable().get(pid);
  return entry !== undefined && !entry.zombie;
}

export const MiB = (bytes: number) => bytes / 2 ** 20;

// ---------------------------------------------------------------------------------------------
// A plain NDJSON client

export interface SessionUpdateLine {
  sessionUpdate?: string;
  toolCallId?: string;
  content?: { type?: string; text?: string };
  _meta?: Record<string, unknown>;
}

export interface Incoming {
  id?: number | string | null;
  method?: string;
  params?: { update?: SessionUpdateLine };
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export interface Answer {
  result: Record<string, unknown>;
  /** performance.now() when its line arrived. */
  at: number;
}

export class Peer {
  readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  readonly spawnedAt: number;
  readonly stderr: Promise<string>;
  /** agent_message_chunk notifications and the characters of their text. */
  chunks = 0;
  chars = 0;
  /** Requests from the agent (the bench never expects one). */
  readonly agentRequests: string[] = [];
  /** Called with every session/update and when its line arrived. */
  onUpdate: ((update: SessionUpdateLine, at: number) => void) | undefined;
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

  /** Splits stdout into lines, looking for the newline only in what just arrived (a long line costs no rescans). */
  async #read(): Promise<void> {
    const decoder = new TextDecoder();
    let pieces: string[] = [];
    for await (const chunk of this.proc.stdout) {
      const at = performance.now();
      let text = decoder.decode(chunk, { stream: true });
      let newline = text.indexOf("\n");
      while (newline !== -1) {
        pieces.push(text.slice(0, newline));
        const line = pieces.length === 1 ? (pieces[0] as string) : pieces.join("");
        pieces = [];
        text = text.slice(newline + 1);
        newline = text.indexOf("\n");
        if (line.trim() !== "") this.#handle(JSON.parse(line) as Incoming, at);
      }
      if (text !== "") pieces.push(text);
    }
    for (const [, waiter] of this.#pending)
      waiter.reject(new Error(`the agent's stdout closed before the answer to ${waiter.method}`));
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
      if (update) this.onUpdate?.(update, at);
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

  request(method: string, params: unknown, waitMs = ANSWER_WAIT_MS): Promise<Answer> {
    const id = this.#nextId++;
    const answer = new Promise<Answer>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, method });
    });
    this.#write({ jsonrpc: "2.0", id, method, params });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer to ${method} in ${waitMs} ms`)), waitMs);
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
    return new Error(
      `${what}: ${error instanceof Error ? error.message : String(error)}${log ? `\nagent stderr:\n${log}` : ""}`,
    );
  }
}

export const INITIALIZE: {
  protocolVersion: number;
  clientCapabilities: Record<string, unknown>;
  clientInfo: { name: string; version: string };
} = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  clientInfo: { name: "garuda-bench", version: "1.0.0" },
};

/** Spawn, initialize at once, session/new as soon as initialize is answered. */
export async function start(
  peer: Peer,
  cwd: string,
  initialize = INITIALIZE,
): Promise<{ initMs: number; newMs: number; sessionId: string }> {
  const init = await peer.request("initialize", initialize);
  const created = await peer.request("session/new", { cwd, mcpServers: [] });
  const sessionId = created.result.sessionId;
  if (typeof sessionId !== "string")
    throw new Error(`session/new answered no sessionId: ${JSON.stringify(created.result)}`);
  return { initMs: init.at - peer.spawnedAt, newMs: created.at - peer.spawnedAt, sessionId };
}

export async function prompt(
  peer: Peer,
  sessionId: string,
  text: string,
  waitMs = ANSWER_WAIT_MS,
): Promise<{ turnMs: number }> {
  const sent = performance.now();
  const answer = await peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, waitMs);
  if (answer.result.stopReason !== "end_turn") throw new Error(`the turn ended ${JSON.stringify(answer.result)}`);
  return { turnMs: answer.at - sent };
}

/**
 * A copy of `binary` in `dir`, for comparing builds. How a binary lies in the page cache (the
 * folios it was cached in, by how it was written or read) decides how much of it the kernel maps
 * per fault: a binary just built and one copied earlier differ by MiB of RSS with the same code
 * (bench/acpMemory.ts). Copying each build the same way just before the runs makes them alike.
 */
export function alikeCopy(binary: string, dir: string, name: string): string {
  const copy = join(dir, name);
  copyFileSync(binary, copy);
  chmodSync(copy, 0o755);
  return copy;
}

// ---------------------------------------------------------------------------------------------
// The scripted model, and where an agent's RSS is

export interface MockProcess {
  url: string;
  proc: Bun.Subprocess;
}

/** test/support/mockAnthropic.ts in its own process, serving `scriptFile` over and over. */
export async function startMock(scriptFile: string): Promise<MockProcess> {
  const proc = Bun.spawn(
    [process.execPath, join(ROOT, "test/support/mockAnthropic.ts"), "--script", scriptFile, "--loop"],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "inherit",
    },
  );
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

/** RSS by kind of mapping, from /proc/<pid>/smaps. */
export function smapsBreakdown(pid: number, binary: string): Record<string, number> {
  const parts: Record<string, number> = {
    "binary's pages": 0,
    "other files": 0,
    "JIT code (anon, executable)": 0,
    "malloc brk heap": 0,
    "other anonymous (JSC heap, mimalloc, buffers)": 0,
    stacks: 0,
  };
  let kind = "";
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const header = /^[0-9a-f]+-[0-9a-f]+ (\S{4}) \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (header) {
      const [, perms, path] = header as unknown as [string, string, string];
      if (path === binary) kind = "binary's pages";
      else if (path.startsWith("/")) kind = "other files";
      else if (path === "[heap]") kind = "malloc brk heap";
      else if (path.startsWith("[stack")) kind = "stacks";
      else if (perms.includes("x")) kind = "JIT code (anon, executable)";
      else kind = "other anonymous (JSC heap, mimalloc, buffers)";
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && kind in parts) parts[kind] = (parts[kind] as number) + Number(rss[1]) * 1024;
  }
  return parts;
}
