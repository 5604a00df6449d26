// Real processes as tests check them, in /proc (Linux): alive (not a zombie), and what runs below
// a process by its exact command line.
import { readFileSync } from "node:fs";
import { descendants } from "../../src/sandbox/processTree.ts";
import { readProcStat } from "../../src/sandbox/procStat.ts";

/** A process's command line, its arguments joined by spaces; undefined once it is gone. */
export function cmdline(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a live process (not gone, not a zombie waiting to be reaped). */
export function alive(pid: number): boolean {
  const state = readProcStat(pid)?.state;
  return state !== undefined && state !== "Z";
}

/** Polls `get` until it gives a value; fails after `timeoutMs` naming `what`. */
export async function until<T>(get: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = get();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

/** Waits until `command` runs below `pid`; returns its processes. */
export function startedBelow(pid: number, command: string, timeoutMs = 15_000): Promise<number[]> {
  return until(
    () => {
      const found = descendants(pid).filter((child) => cmdline(child) === command);
      return found.length > 0 ? found : undefined;
    },
    `${command} to start`,
    timeoutMs,
  );
}

/** Live processes below this test process running exactly `argv`. */
export function running(argv: string[]): number[] {
  return descendants(process.pid).filter((pid) => cmdline(pid) === argv.join(" "));
}

/** Resolves once `check()` is true; throws after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  await until(() => (check() ? true : undefined), "a condition", timeoutMs);
}
