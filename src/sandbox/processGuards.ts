// Two process-wide settings Garuda makes on Linux (prctl) before its first command runs:
// - child subreaper (PR_SET_CHILD_SUBREAPER): a process that a command on the host detaches
//   (setsid, then its parent exits) is re-parented to Garuda instead of init, so it stays in
//   Garuda's tree, where the exit handlers of `garuda acp` and the chat find and kill it;
// - not dumpable (PR_SET_DUMPABLE 0): /proc/<garuda>/environ, mem and the like become root's, so a
//   command on the host (same user) cannot read the provider key from the environment block
//   Garuda started with (deleting it from process.env does not remove it there). It also keeps
//   debuggers of the same user out, as ssh-agent does.
// Sandboxed commands need neither (their PID namespace hides Garuda and dies with bwrap). They are
// applied once per process, by its ProcessWide (processWide.ts), when the first executor is made.
// An adopted process that exits must be reaped by Garuda, which Bun does not do for children it
// did not start: a sweep every few seconds reaps the zombies among Garuda's children that were
// already zombies at the sweep before (Bun reaps its own children at once, so those are adopted).
import { readdirSync, readFileSync } from "node:fs";
import { type Native, PR_SET_CHILD_SUBREAPER, PR_SET_DUMPABLE, WNOHANG } from "./native.ts";
import { readProcStat } from "./procStat.ts";

export interface ProcessGuards {
  subreaper: boolean;
  undumpable: boolean;
}

const REAP_EVERY_MS = 5_000;

/** This process's direct children: from each thread's /proc children list, not a walk of all of /proc. */
export function children(): number[] {
  const pids: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync("/proc/self/task");
  } catch {
    return [];
  }
  for (const task of tasks) {
    try {
      for (const pid of readFileSync(`/proc/self/task/${task}/children`, "utf8").split(" "))
        if (pid.trim()) pids.push(Number(pid));
    } catch {
      // The thread ended while we looked.
    }
  }
  return pids;
}

/** This process's direct children that are zombies now. */
export function zombieChildren(): Set<number> {
  const zombies = new Set<number>();
  for (const pid of children()) {
    if (readProcStat(pid)?.state === "Z") zombies.add(pid); // undefined: already reaped
  }
  return zombies;
}

/** Reaps adopted zombies (see above); the timer does not keep Garuda alive. */
function startReaper(libc: Native): void {
  let seen = new Set<number>();
  const timer = setInterval(() => {
    const now = zombieChildren();
    for (const pid of now) if (seen.has(pid)) libc.waitpid(pid, WNOHANG);
    seen = now;
  }, REAP_EVERY_MS);
  timer.unref();
}

/** Applies the guards (process-wide: call once per process, ProcessWide.guard does); what took effect. */
export function applyGuards(libc: Native | undefined): ProcessGuards {
  if (!libc) return { subreaper: false, undumpable: false };
  const subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1) === 0;
  const undumpable = libc.prctl(PR_SET_DUMPABLE, 0) === 0;
  if (subreaper) startReaper(libc);
  return { subreaper, undumpable };
}
