// The long-running processes one session started with process_manager: what was started, how
// (sandboxed or not), and how each ended. The executor owns the processes themselves (and kills
// them all at shutdown); this table only remembers them for list, output and stop, and stops the
// ones that can write the project when the session switches to plan mode.
import type { ExecResult, RunningProcess } from "../sandbox/types.ts";

/** A background process the session started (process_manager), as the mode switch names it. */
export interface BackgroundJob {
  id: string;
  command: string;
  sandboxed: boolean;
}

/** The session's background processes, as the Runtime sees them. */
export interface BackgroundJobs {
  /**
   * Stops every running one that can write the project (started in build mode or outside the sandbox); resolves with
   * them once they are gone.
   */
  stopWriters(): Promise<BackgroundJob[]>;
}

export interface ManagedProcess {
  readonly process: RunningProcess;
  readonly command: string;
  readonly sandboxed: boolean;
  /** It can write the project: it runs outside the sandbox, or in build mode's sandbox. */
  readonly writesProject: boolean;
  readonly startedAt: number;
  /** Set once it has exited. */
  end?: ExecResult;
  /** Stopped through process_manager (not by itself). */
  stopped: boolean;
  /** Stopped because the session switched to plan mode. */
  stoppedForPlan?: boolean;
}

/** At most this many processes run at once per session. */
export const MAX_RUNNING = 10;

export class ProcessTable implements BackgroundJobs {
  readonly #entries = new Map<string, ManagedProcess>();

  add(process: RunningProcess, how: { sandboxed: boolean; writesProject: boolean }, now = Date.now()): ManagedProcess {
    const entry: ManagedProcess = { process, command: process.command, ...how, startedAt: now, stopped: false };
    this.#entries.set(process.id, entry);
    process.exited.then(
      (end) => {
        entry.end = end;
      },
      () => {
        entry.end = {
          exitCode: null,
          signal: null,
          output: "",
          truncated: false,
          timedOut: false,
          killed: true,
          durationMs: 0,
        };
      },
    );
    return entry;
  }

  get(id: string): ManagedProcess | undefined {
    return this.#entries.get(id);
  }

  list(): ManagedProcess[] {
    return [...this.#entries.values()];
  }

  running(): ManagedProcess[] {
    return this.list().filter((entry) => entry.end === undefined);
  }

  /** Stops every process still running (the executor's shutdown does the same at session end). */
  async stopAll(): Promise<void> {
    await Promise.all(this.running().map((entry) => entry.process.stop()));
  }

  /**
   * Plan mode began: stops every running process that can write the project (a bwrap mount
   * cannot be made read-only from outside, so it ends). Resolves, once they are gone, with them.
   */
  async stopWriters(): Promise<BackgroundJob[]> {
    const writers = this.running().filter((entry) => entry.writesProject);
    for (const entry of writers) {
      entry.stopped = true;
      entry.stoppedForPlan = true;
    }
    await Promise.all(writers.map(async (entry) => (entry.end ??= await entry.process.stop())));
    return writers.map((entry) => ({ id: entry.process.id, command: entry.command, sandboxed: entry.sandboxed }));
  }
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60
    ? `${m}m${String(s % 60).padStart(2, "0")}s`
    : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

/** "running for 2m05s", "exited with code 1", "stopped". */
export function statusOf(entry: ManagedProcess, now = Date.now()): string {
  const end = entry.end;
  if (!end) return `running for ${duration(now - entry.startedAt)}`;
  if (entry.stoppedForPlan) return "stopped when plan mode began";
  if (entry.stopped) return "stopped";
  if (end.killed) return "killed (the session ended or the sandbox stopped it)";
  if (end.exitCode !== null) return `exited with code ${end.exitCode}`;
  return `ended by ${end.signal ?? "a signal"}`;
}
