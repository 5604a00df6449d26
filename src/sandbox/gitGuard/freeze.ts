// Stopping a sandboxed command's processes while the git guard looks at what they may have made.
// A command can see the guard's looks (inotify on a folder or file reports the guard's opendir,
// open and read of it to a watch the command holds itself) and react between the look and the
// judgment: hide a plant for the moment a scan passes, put a harmless config back for the
// moment it is read. Stopped, it cannot react; what the guard sees is what git would see.
// SIGSTOP (which no process can catch or ignore, also a PID namespace's init when it comes from
// outside), not the cgroup freezer, so it works without root; every process below the command's
// first one (bwrap, which the namespace's orphans stay below) is stopped, walked again until no
// new one appears (a fork raced the first walk). One freezer per host: two guards (a command
// with extra roots) may stop the same processes at once, and only the last to let go resumes them.
import { readFileSync, readdirSync } from "node:fs";
import { descendants, processTable, signalProcess } from "../processTree.ts";
import { readProcStat } from "../procStat.ts";

/** How long to wait for a stop to take (a process in uninterruptible I/O stops when that is done). */
const STOP_WAIT_MS = 200;
/** Walks of the tree to catch processes forked meanwhile. */
const MAX_WALKS = 20;

export interface Freezer {
  /** Stops `roots` and every descendant; resolves with the processes stopped, and a function that resumes them. */
  freeze(roots: number[]): Promise<{ pids: number[]; thaw: () => void }>;
}

const stopped = (pid: number) => {
  const state = readProcStat(pid)?.state;
  return state === undefined || state === "T" || state === "t" || state === "Z" || state === "X";
};

/**
 * `roots` that are alive and every process below them: from each thread's `children` file (a
 * few reads, not one per process of the computer as the process table is), or from the table
 * where the kernel has no such file.
 */
function tree(roots: number[]): number[] {
  const found = new Set<number>();
  const queue = [...roots];
  try {
    while (queue.length > 0) {
      const pid = queue.shift() as number;
      if (found.has(pid)) continue;
      let tasks: string[];
      try {
        tasks = readdirSync(`/proc/${pid}/task`);
      } catch {
        continue; // gone
      }
      found.add(pid);
      for (const task of tasks) {
        let children = "";
        try {
          children = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8");
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "ENOENT" && readdirSync(`/proc/${pid}/task`).includes(task))
            throw error; // no such file in this kernel
        }
        for (const child of children.split(" ")) if (child.trim()) queue.push(Number(child));
      }
    }
    return [...found];
  } catch {
    const table = processTable();
    return roots.filter((pid) => table.has(pid)).flatMap((pid) => [pid, ...descendants(pid, table)]);
  }
}

export function createFreezer(): Freezer {
  /** How many freezes hold each process stopped now, and whether the last to let go resumes it. */
  const holds = new Map<number, { count: number; resume: boolean }>();

  function hold(pid: number): void {
    const held = holds.get(pid);
    if (held) {
      held.count++;
      return;
    }
    // One the command stopped itself (kill -STOP) stays stopped after.
    const state = readProcStat(pid)?.state;
    holds.set(pid, { count: 1, resume: state !== "T" && state !== "t" });
    signalProcess(pid, "SIGSTOP");
  }

  return {
    async freeze(roots) {
      const mine = new Set<number>();
      if (process.platform !== "linux" || roots.length === 0) return { pids: [], thaw: () => undefined };
      for (let walk = 0; walk < MAX_WALKS; walk++) {
        const fresh = tree(roots).filter((pid) => !mine.has(pid));
        if (fresh.length === 0) break;
        for (const pid of fresh) {
          mine.add(pid);
          hold(pid);
        }
        const until = performance.now() + STOP_WAIT_MS;
        while ([...mine].some((pid) => !stopped(pid)) && performance.now() < until) await Bun.sleep(1);
      }
      let thawed = false;
      return {
        pids: [...mine],
        thaw() {
          if (thawed) return;
          thawed = true;
          for (const pid of mine) {
            const held = holds.get(pid);
            if (!held || --held.count > 0) continue;
            holds.delete(pid);
            if (held.resume) signalProcess(pid, "SIGCONT");
          }
        },
      };
    },
  };
}
