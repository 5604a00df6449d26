// One session's (one executor's) use of the process's git guards (host.ts). The executor calls
// enter() before a sandboxed command that may write the project and leave() after it; the
// session holds the guard of each project it entered (or prepared) until it closes, so a second
// session of the same project finds the guard walked and watching, and the last one to close
// gives its watches back. What only this session must hear (the part of the tree that is scanned
// instead of watched) it is told once, in its first guarded command's output.
import { realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { isInside } from "../../files/isInside.ts";
import type { SandboxSpec } from "../types.ts";
import type { GitGuard } from "./guard.ts";
import type { GuardedRun } from "./guardState.ts";
import type { GitGuardHost, GuardLease } from "./host.ts";
import { coverageNote } from "./notes.ts";
import { openGuardRecord } from "./record.ts";

/** The first walk of the session's own project starts this long after the session (session/new answers first). */
const PREPARE_DELAY_MS = 200;

export interface GuardedCommand {
  /** Nested repositories (folders) the sandbox must hold read-only, as it holds the root's .git. */
  readonly repos: string[];
  /**
   * The command's first process on this computer (bwrap) started: stopped with its descendants while the guard looks.
   */
  started(pid: number): void;
  /** After the command: the last look; every note of this command (also given to onNote as they came). */
  leave(): Promise<string[]>;
}

export interface GitGuards {
  /**
   * Before a sandboxed command: its guard once the project's first walk is done, or undefined when it cannot write the
   * project.
   */
  enter(spec: SandboxSpec, onNote: (note: string) => void): Promise<GuardedCommand | undefined>;
  /** At start: sweeps `root` when a Garuda process died while a command ran there; the notes. */
  sweepAtStart(root: string): Promise<string[]>;
  /** Leases the guard of `root` soon, so its walk runs in the background before the first command. */
  prepare(root: string): void;
  /** Lets go of every guard this session held. */
  close(): Promise<void>;
}

/** Whether a sandboxed command with this spec can write inside its root. */
function writesRoot(spec: SandboxSpec, root: string): boolean {
  if (!spec.projectReadOnly) return true;
  return spec.writePaths.some((path) => {
    const lexical = path === "~" || path.startsWith("~/") ? join(spec.home, path.slice(1)) : resolve(spec.root, path);
    return isInside(lexical, root) || isInside(lexical, spec.root);
  });
}

const realRoot = (root: string) => {
  try {
    return realpathSync(root);
  } catch {
    return resolve(root);
  }
};

export function createGuardSession(host: GitGuardHost): GitGuards {
  const held = new Map<string, GuardLease>();
  /** Projects whose coverage note this session was given. */
  const told = new Set<string>();
  let closed = false;

  const hold = (root: string): GuardLease => {
    let lease = held.get(root);
    if (!lease) {
      lease = host.lease(root);
      held.set(root, lease);
    }
    return lease;
  };

  function tellCoverage(guard: GitGuard, run: GuardedRun): void {
    if (told.has(guard.root)) return;
    const note = coverageNote(guard.watch, host.maxWatches);
    if (!note) return;
    told.add(guard.root);
    run.notes.push(note);
    run.onNote(note);
  }

  return {
    async enter(spec, onNote) {
      const root = realRoot(spec.root);
      if (closed || !writesRoot(spec, root)) return undefined;
      const guard = await hold(root).guard;
      host.retry(); // without an inotify instance: one may be free now (the guard then watches before it begins)
      const run: GuardedRun = { notes: [], onNote };
      await guard.begin(run);
      tellCoverage(guard, run);
      host.arm();
      return {
        repos: guard.heldRepos(),
        started(pid) {
          run.pid = pid;
        },
        async leave() {
          // The command's processes are gone, so every event they caused is queued: once an event
          // made after them has come through, all of theirs have been handed to the guard.
          await host.pass();
          await guard.end(run);
          tellCoverage(guard, run);
          host.arm();
          return run.notes;
        },
      };
    },
    prepare(root) {
      setTimeout(() => {
        if (!closed) void hold(realRoot(root)).guard.catch(() => undefined);
      }, PREPARE_DELAY_MS).unref();
    },
    async sweepAtStart(root) {
      const real = realRoot(root);
      // A guard of this process already runs there: it swept when it started.
      if (host.has(real)) return [];
      const owners = openGuardRecord(host.stateDir, real).owners();
      if (!owners.dead.some((owner) => owner.active)) return [];
      const guard = await hold(real).guard;
      await guard.ready;
      // The notes stay pending as well: the next command in this project gets them, for the model.
      return guard.pendingNotes();
    },
    async close() {
      closed = true;
      const leases = [...held.values()];
      held.clear();
      for (const lease of leases) await lease.release();
    },
  };
}
