// Finding and signalling every process a command started. A process group catches most of them;
// a child that called setsid() has left the group but is still a descendant until its parent
// exits, so the tree is walked too. In a PID namespace (bwrap) orphans are re-parented to the
// namespace's init, so the walk below bwrap finds everything.
import { readdirSync } from "node:fs";
import { readProcStat } from "./procStat.ts";

export interface ProcessEntry {
  ppid: number;
  pgid: number;
  /** Start time (Linux: clock ticks since boot), to tell a process from a later one with its pid; "" when unknown. */
  start: string;
  /** Exited, waiting to be reaped: nothing left to signal. */
  zombie: boolean;
}

export type ProcessTable = Map<number, ProcessEntry>;

function linuxTable(): ProcessTable {
  const table: ProcessTable = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProcStat(Number(name));
    if (stat)
      table.set(Number(name), { ppid: stat.ppid, pgid: stat.pgrp, start: stat.start, zombie: stat.state === "Z" });
    // else: gone while we looked
  }
  return table;
}

const PS = ["/bin/ps", "-A", "-o", "pid=,ppid=,pgid=,stat="];
const PS_OPTIONS = { env: { PATH: "/usr/bin:/bin" }, stdout: "pipe", stderr: "ignore" } as const;

/** `ps`'s table (macOS), from its output. */
function psTable(output: string): ProcessTable {
  const table: ProcessTable = new Map();
  for (const line of output.split("\n")) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s*$/.exec(line);
    if (match)
      table.set(Number(match[1]), {
        ppid: Number(match[2]),
        pgid: Number(match[3]),
        start: "",
        zombie: (match[4] as string).startsWith("Z"),
      });
  }
  return table;
}

/**
 * Every process now. Synchronous: for exit handlers (which cannot wait) and the keeper's own
 * process; a session's path uses readProcessTable, which does not stop the event loop on macOS.
 */
export function processTable(): ProcessTable {
  if (process.platform === "linux") return linuxTable();
  return psTable(Bun.spawnSync(PS, PS_OPTIONS).stdout.toString());
}

/** Every process now, without blocking: /proc on Linux, `ps` awaited elsewhere. */
export async function readProcessTable(): Promise<ProcessTable> {
  if (process.platform === "linux") return linuxTable();
  const ps = Bun.spawn(PS, { ...PS_OPTIONS, stdin: "ignore" });
  const [output] = await Promise.all([new Response(ps.stdout).text(), ps.exited]);
  return psTable(output);
}

/** Every descendant of `pid` (not `pid` itself), parents before children. */
export function descendants(pid: number, table: ProcessTable = processTable()): number[] {
  const children = new Map<number, number[]>();
  for (const [child, entry] of table) {
    const list = children.get(entry.ppid);
    if (list) list.push(child);
    else children.set(entry.ppid, [child]);
  }
  const found = new Set<number>();
  const queue = [...(children.get(pid) ?? [])];
  while (queue.length > 0) {
    const next = queue.shift() as number;
    if (found.has(next) || next === pid) continue;
    found.add(next);
    queue.push(...(children.get(next) ?? []));
  }
  return [...found];
}

/** Members of process group `pgid`. */
export function groupMembers(pgid: number, table: ProcessTable = processTable()): number[] {
  return [...table].filter(([, entry]) => entry.pgid === pgid).map(([pid]) => pid);
}

/** Sends a signal; a process that is already gone is not an error. */
export function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone; EPERM: not ours
  }
}

/** Sends a signal to a whole process group. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  signalProcess(-pgid, signal);
}

/** Pids of `snapshot` that still name the same live process (same start time, not a zombie) in `now`. */
export function stillRunning(snapshot: ProcessTable, pids: number[], now: ProcessTable = processTable()): number[] {
  return pids.filter((pid) => {
    const then = snapshot.get(pid);
    const current = now.get(pid);
    return then !== undefined && current !== undefined && then.start === current.start && !current.zombie;
  });
}
