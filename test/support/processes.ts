// Real processes as tests check them, in /proc (Linux): alive (not a zombie), and what runs below
// a process by its exact command line.
import { readFileSync } from "node:fs";
import { descendants } from "../../src/sandbox/processTree.ts";

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
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Waits until `command` runs below `pid`; returns its processes. */
export async function startedBelow(pid: number, command: string, timeoutMs = 15_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = descendants(pid).filter((child) => cmdline(child) === command);
    if (found.length > 0) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${command} to start`);
    await Bun.sleep(25);
  }
}
