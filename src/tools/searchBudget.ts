// What a search (grep, find_definition) may spend, counted as the work its worker thread does,
// not as wall-clock time: on a busy machine a search takes longer but does no more work, so it
// is not cut. The measure is the worker thread's CPU time (Linux: /proc/<pid>/task/<tid>/stat),
// allowed to grow with what the search has read: a fixed part plus so much per MB. A tree of
// any size is read to the end at the speed of a normal pattern; a pattern that backtracks for
// seconds on a line spends CPU without reading on and is stopped.
//
// Where the system does not report a thread's CPU time the wall clock stands in, and the note
// says so.
import { readFileSync } from "node:fs";

export interface SearchBudget {
  /** CPU milliseconds the search thread may spend whatever it reads. */
  cpuMs: number;
  /** And this many more per MB (1e6 bytes) it has read. */
  cpuMsPerMB: number;
}

/**
 * Far above what a search costs: a literal search reads a few hundred MB per CPU second, a
 * regular expression over decoded text tens (the Linux tree, 1 GB, is allowed ~50 s of CPU).
 */
export const SEARCH_BUDGET: SearchBudget = { cpuMs: 10_000, cpuMsPerMB: 40 };

/** What a search thread has spent so far, in milliseconds. */
export interface SpentClock {
  /** "cpu": the thread's CPU time; "wall": elapsed time (no CPU time to be had). */
  readonly kind: "cpu" | "wall";
  spentMs(): number;
}

/** A clock for the worker thread at `task` ("<pid>/task/<tid>", from /proc/thread-self), or undefined. */
export type ClockFactory = (task: string | undefined) => SpentClock;

/** The allowance after reading `bytes`. */
export function allowedMs(budget: SearchBudget, bytes: number): number {
  return budget.cpuMs + (budget.cpuMsPerMB * bytes) / 1e6;
}

/** /proc's clock ticks per second (USER_HZ): 100 on every Linux architecture Garuda builds for. */
const TICKS_PER_SECOND = 100;

/** utime + stime of a thread, in ms; undefined when its stat cannot be read (gone, or no /proc). */
export function threadCpuMs(task: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${task}/stat`, "utf8");
    // Fields after the command name (which may hold spaces), from field 3: utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/** Elapsed time since now: what stands in where a thread's CPU time cannot be read. */
export const wallClock: ClockFactory = () => {
  const began = performance.now();
  return { kind: "wall", spentMs: () => performance.now() - began };
};

/** The worker's CPU time since now, or the wall clock since now where there is none. */
export const threadClock: ClockFactory = (task) => {
  const start = task === undefined ? undefined : threadCpuMs(task);
  if (task === undefined || start === undefined) return wallClock(task);
  let last = start;
  return {
    kind: "cpu",
    spentMs() {
      // A thread that has just ended keeps what it spent.
      last = threadCpuMs(task) ?? last;
      return last - start;
    },
  };
};
