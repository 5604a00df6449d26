// One started process and everything it starts, its output read as it comes, and ended as a
// whole. On the host (and under Seatbelt) it is spawned as the leader of a new session and
// process group (Bun's `detached` = setsid). terminate(): SIGTERM to the group and every
// descendant, SIGKILL to whatever is left after the grace period. Under bwrap the descendants live
// in a PID namespace: the signals go to the processes inside (not to bwrap's own two processes),
// and killing bwrap's init ends the namespace, which the kernel empties with SIGKILL. There the
// namespace is what holds the command, and the command gets its own session inside (bwrap
// --new-session), so bwrap itself is not made a session leader: a new session costs a new
// scheduler autogroup, which made every sandboxed command 5 to 17 ms slower on the 2-core machine
// (bench/sandbox.ts, issue 35.5). On the host the process is the command's keeper (keeper.ts), which
// ends its own tree: it gets one SIGTERM, and the tree is only walked here if it has not exited
// after the grace period. When the main process exits, its group is killed too, so nothing a
// command left behind keeps running.
import type { FileSink, Subprocess } from "bun";
import {
  descendants,
  groupMembers,
  readProcessTable,
  signalGroup,
  signalProcess,
  stillRunning,
} from "./processTree.ts";

export type EndReason = "cancel" | "timeout" | "shutdown" | "stop";

export interface JobOptions {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  stdin: "ignore" | "pipe" | Uint8Array;
  /** "stderr": stdout stays a raw pipe for the caller (MCP). */
  capture: "all" | "stderr";
  /** Under bwrap: the tree below bwrap is the command's PID namespace. */
  pidNamespace: boolean;
  /** The process is the command's keeper (keeper.ts), which stops its tree itself on SIGTERM. */
  keeper?: boolean;
  graceMs: number;
  /** Decoded output, stdout and stderr as they arrive; a promise pauses the reading until it settles. */
  onText: (text: string) => unknown;
  /** Descriptors of Garuda's the process gets as its 3 and 4 (a session network's namespaces). */
  fds?: [number, number];
}

export interface JobEnd {
  exitCode: number | null;
  signal: string | null;
  /** Why Garuda ended it, if it did. */
  endedBy: EndReason | undefined;
}

export interface Job {
  readonly pid: number;
  readonly exited: Promise<JobEnd>;
  readonly stdin: FileSink | undefined;
  readonly stdout: ReadableStream<Uint8Array> | undefined;
  terminate(reason: EndReason): Promise<void>;
}

/** After the main process exits, how long output still held open by stragglers is awaited. */
const DRAIN_MS = 500;
const POLL_MS = 25;
/** How much longer than the grace period a keeper may take to end its tree. */
const KEEPER_MARGIN_MS = 1_000;

type Cancel = { cancel(): Promise<void> };

async function pump(
  stream: ReadableStream<Uint8Array>,
  onText: (text: string) => unknown,
  readers: Cancel[],
): Promise<void> {
  const reader = stream.getReader();
  // A cancel (after the drain window) also ends a wait for the consumer: a pump never outlives its job.
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  readers.push({
    cancel: () => {
      release();
      return reader.cancel();
    },
  });
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      const held = text ? onText(text) : undefined;
      if (held instanceof Promise) await Promise.race([held.catch(() => {}), released]);
    }
  } catch {
    // cancelled after the drain window
  }
  const rest = decoder.decode();
  if (rest) onText(rest);
}

export function spawnJob(options: JobOptions): Job {
  // Bytes for stdin go through a pipe, written here, not as Bun's `stdin: Uint8Array`: that puts
  // them in a memfd the Subprocess holds open until it is garbage-collected, so a long-running
  // agent piles up descriptors (bench/soak.ts saw one per undo-store git call).
  const bytes = options.stdin instanceof Uint8Array ? options.stdin : undefined;
  const stdin = bytes ? "pipe" : (options.stdin as "ignore" | "pipe");
  const proc: Subprocess<"ignore" | "pipe", "pipe", "pipe"> = Bun.spawn(options.argv, {
    cwd: options.cwd,
    env: options.env,
    detached: !options.pidNamespace,
    stdio: [stdin, "pipe", "pipe", ...(options.fds ?? [])],
  }) as Subprocess<"ignore" | "pipe", "pipe", "pipe">;
  if (bytes) {
    const sink = proc.stdin as FileSink;
    // A command that exits without reading all of it is not an error of ours (EPIPE).
    try {
      sink.write(bytes);
      Promise.resolve(sink.end()).catch(() => {});
    } catch {}
  }
  const pid = proc.pid;
  const readers: Cancel[] = [];
  const pumps = [pump(proc.stderr, options.onText, readers)];
  if (options.capture === "all") pumps.push(pump(proc.stdout, options.onText, readers));
  let endedBy: EndReason | undefined;
  let terminating: Promise<void> | undefined;
  let mainExited = false;

  const exited = (async (): Promise<JobEnd> => {
    await proc.exited;
    mainExited = true;
    if (!options.pidNamespace) signalGroup(pid, "SIGKILL"); // whatever the command left in its group
    const drained = Promise.all(pumps);
    // A timer cleared once drained, not a Bun.sleep: the sleep's continuation holds this scope
    // (the Subprocess, its pipes' 256 KiB read buffers) for the whole DRAIN_MS after every command.
    let drainTimer: ReturnType<typeof setTimeout> | undefined;
    const late = await Promise.race([
      drained.then(() => false),
      new Promise<boolean>((resolve) => (drainTimer = setTimeout(resolve, DRAIN_MS, true))),
    ]);
    clearTimeout(drainTimer);
    if (late) for (const reader of readers) await reader.cancel().catch(() => undefined);
    await drained;
    await terminating;
    return { exitCode: proc.exitCode, signal: proc.signalCode === null ? null : String(proc.signalCode), endedBy };
  })();

  async function terminate(reason: EndReason): Promise<void> {
    if (terminating) return terminating;
    endedBy ??= mainExited ? undefined : reason;
    terminating = (async () => {
      if (mainExited) return;
      if (options.keeper) {
        signalProcess(pid, "SIGTERM");
        const deadline = Date.now() + options.graceMs + KEEPER_MARGIN_MS;
        while (Date.now() < deadline && !mainExited) await Bun.sleep(POLL_MS);
        if (mainExited) return;
      }
      const table = await readProcessTable();
      const below = descendants(pid, table);
      // bwrap's own processes: the monitor (pid) and the namespace's init (its child); not signalled with TERM.
      const bwrapInit = options.pidNamespace ? below.filter((p) => table.get(p)?.ppid === pid) : [];
      const targets = options.pidNamespace
        ? below.filter((p) => !bwrapInit.includes(p))
        : [...new Set([pid, ...below, ...groupMembers(pid, table)])];
      if (!options.pidNamespace) signalGroup(pid, "SIGTERM");
      for (const target of targets) signalProcess(target, "SIGTERM");
      const deadline = Date.now() + options.graceMs;
      const running = async (pids: number[]) => stillRunning(table, pids, await readProcessTable());
      while (Date.now() < deadline && !mainExited && (await running(targets)).length > 0) await Bun.sleep(POLL_MS);
      if (!options.pidNamespace) signalGroup(pid, "SIGKILL");
      // Under bwrap: its init (the namespace goes with it) and bwrap itself, which leads no group.
      const last = options.pidNamespace ? [pid, ...bwrapInit, ...targets] : targets;
      for (const target of await running(last)) signalProcess(target, "SIGKILL");
    })();
    return terminating;
  }

  return {
    pid,
    exited,
    stdin: options.stdin === "pipe" ? (proc.stdin as FileSink) : undefined,
    stdout: options.capture === "stderr" ? proc.stdout : undefined,
    terminate,
  };
}
