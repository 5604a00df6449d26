// The git guard (gitGuard/) as one executor uses it: the process's guards or, when none is given,
// a host of the executor's own; the sweep at start of what a killed Garuda process may have left;
// the first walk of each project in the background; and, around each sandboxed command that may
// write the project, the guard of every project folder it may write (guarded()).
import { join } from "node:path";
import type { ExecutorOptions } from "./executorOptions.ts";
import type { ChangeAnswer } from "./gitGuard/changeLog.ts";
import { createGitGuardHost } from "./gitGuard/host.ts";
import { type GitGuards, createGuardSession } from "./gitGuard/session.ts";
import { guardedRoots, outermostFolders } from "./guardedRoots.ts";
import type { Native } from "./native.ts";
import type { ExecRequest } from "./types.ts";

/** A request as the guard lets it run, and what the executor tells the guard as it does. */
export interface GuardedRequest {
  /** The request, its sandbox holding the nested repositories the guards know read-only. */
  request: ExecRequest;
  /** The command's first process started (the guards stop its processes while they look). */
  started: (pid: number) => void;
  /** After the command: the guards' last look. */
  leave: () => Promise<unknown>;
}

export interface ExecutorGitGuard {
  /** What the sweep at start found (ProcessExecutor.startupNotices). */
  startupNotices: string[];
  guarded(request: ExecRequest, onNote: (note: string) => void): Promise<GuardedRequest>;
  /** What changed in a project the guards watch (gitGuard/changeLog.ts); "all" where none does. */
  changesSince(root: string, token: string | undefined): Promise<ChangeAnswer>;
  /** Lets go of the session's guards, and closes the host if it is the executor's own. */
  close(): Promise<void>;
}

type GuardOptions = Pick<
  ExecutorOptions,
  "root" | "extraRoots" | "home" | "gitGuard" | "gitGuards" | "gitGuardDir" | "gitGuardWatches"
>;

export async function createExecutorGitGuard(
  options: GuardOptions,
  context: { path: string | undefined; native: () => Native | undefined; sandboxAvailable: boolean },
): Promise<ExecutorGitGuard> {
  const ownGuards =
    options.gitGuard === false || options.gitGuards
      ? undefined
      : createGitGuardHost({
          stateDir: options.gitGuardDir ?? join(options.home, ".garuda", "git-guard"),
          path: context.path,
          native: context.native,
          ...(options.gitGuardWatches !== undefined && { maxWatches: options.gitGuardWatches }),
        });
  const guardHost = options.gitGuard === false ? undefined : (options.gitGuards ?? ownGuards);
  const gitGuards: GitGuards | undefined = guardHost && createGuardSession(guardHost);
  // A Garuda process killed while a command ran here may have left something the guard never saw.
  const projects = [options.root, ...(options.extraRoots ?? [])];
  const startupNotices = context.sandboxAvailable
    ? (await Promise.all(projects.map((project) => gitGuards?.sweepAtStart(project) ?? []))).flat()
    : [];
  // The guard's first walk of each project, in the background: the first command need not wait for it.
  if (context.sandboxAvailable) for (const project of outermostFolders(projects)) gitGuards?.prepare(project);

  /**
   * A sandboxed command that may write the project runs under the git guard: nested repositories
   * it knows are held read-only, and what the command plants is moved aside as it happens; the
   * notes reach the output as they come and the command's result.
   */
  async function guarded(request: ExecRequest, onNote: (note: string) => void): Promise<GuardedRequest> {
    const spec = request.sandbox;
    // One guard per project folder the command may write: the root and each extra root (guardedRoots.ts).
    const entered =
      spec && gitGuards
        ? await Promise.all(guardedRoots(spec).map((rooted) => gitGuards.enter(rooted, (note) => onNote(`${note}\n`))))
        : [];
    const commands = entered.filter((command) => command !== undefined);
    if (!spec || commands.length === 0) return { request, started: () => undefined, leave: async () => [] };
    const sandbox = { ...spec, gitRepos: [...(spec.gitRepos ?? []), ...commands.flatMap((command) => command.repos)] };
    return {
      request: { ...request, sandbox },
      // The guards stop its processes while they look (gitGuard/freeze.ts).
      started: (pid) => {
        for (const command of commands) command.started(pid);
      },
      leave: () => Promise.all(commands.map((command) => command.leave())),
    };
  }

  return {
    startupNotices,
    guarded,
    changesSince: async (root, token) =>
      context.sandboxAvailable && guardHost ? guardHost.changesSince(root, token) : { token: "", paths: "all" },
    async close() {
      await gitGuards?.close();
      await ownGuards?.close();
    },
  };
}
