// The options of createExecutor (executor.ts), apart from it so the parts it is built from
// (executorGuards.ts, executorNetworks.ts, ripgrep/executorRipgrep.ts) can name the options they
// read without importing the executor itself. Each option says its default.
import type { CgroupSupport } from "./cgroup.ts";
import type { GitGuardHost } from "./gitGuard/host.ts";
import type { CommandLimits } from "./limits.ts";
import type { SandboxProbe } from "./probe.ts";
import type { ProcessWide } from "./processWide.ts";
import type { RipgrepProgram } from "./ripgrep/program.ts";
import type { Stoppable } from "./sessionNetwork.ts";

export const KILL_GRACE_MS = 2_000;
export const BRIDGE_PORT = 3128;

export interface ExecutorOptions {
  /** The project root (absolute). */
  root: string;
  /**
   * The session's other project folders (an editor's additionalDirectories), real: the git guard
   * sweeps and walks them at start as it does the root. Commands name them in their spec.
   */
  extraRoots?: readonly string[];
  home: string;
  /** The session's temp folder; default a private one, removed by shutdown(). */
  tmpDir?: string;
  /** Variables commands may inherit on top of ENV_ALLOWLIST (settings' env.allow). */
  envAllowlist?: string[];
  /**
   * How to start Garuda's sandbox bridge: [process.execPath, "__sandbox-bridge"] in the compiled
   * binary, [bun, "<repo>/src/sandbox/bridgeMain.ts"] from source. Its arguments follow.
   */
  selfCommand: string[];
  /**
   * How to start the process keeper of host commands (keeper.ts). Default: from selfCommand.
   * false: host commands run without one (only tests' negative controls).
   */
  keeperCommand?: string[] | false;
  /** Where allowlisted values are read from. Default process.env (as it is now, keys removed). */
  env?: Record<string, string | undefined>;
  /** A probe already made (tests; a runtime that probed once). Default: probe now. */
  probe?: SandboxProbe;
  /** SIGTERM → SIGKILL grace. Default 2 s. */
  killGraceMs?: number;
  /** The bridge's port inside the network namespace. Default 3128. */
  bridgePort?: number;
  /**
   * Serves the egress proxy at `socketPath` on a session network's listening socket, when this is
   * that proxy (EgressProxy.serve): the proxy accepts there itself (sessionNetwork.ts). Without it
   * (or without nsenter) each proxied command gets its own namespace and bridge (bridge.ts).
   */
  serveProxy?: (socketPath: string, fd: number) => Stoppable | undefined;
  /** nsenter's path; null: as if there were none (the per-command bridge; tests of that fallback). Default: found. */
  nsenter?: string | null;
  /** What the process holds once for all its executors (processWide.ts). Default: one of this executor's own. */
  processWide?: ProcessWide;
  /**
   * What each sandboxed command may use (limits.ts). Default: defaultCommandLimits(); null: no limits (bench/limits.ts
   * measures what they cost).
   */
  limits?: CommandLimits | null;
  /** Where command cgroups are made; null: nowhere (resource limits only). Default: findCgroups() (as root). */
  cgroups?: CgroupSupport | null;
  /**
   * The git guard (gitGuard/) for sandboxed commands that may write the project. Default on;
   * off only for benches and the tests' negative controls.
   */
  gitGuard?: boolean;
  /**
   * The process's git guards (gitGuard/host.ts), made once by the front end: every session of a
   * project shares its guard, its walk and its watches. Default: the executor makes its own, with
   * its records in `gitGuardDir` (default <home>/.garuda/git-guard) and at most `gitGuardWatches`
   * watches (default from the kernel's limit), and closes it at shutdown.
   */
  gitGuards?: GitGuardHost;
  gitGuardDir?: string;
  gitGuardWatches?: number;
  /**
   * The ripgrep the file tools search with (ripgrep/program.ts). Default: the one embedded in the binary, if any; null:
   * none.
   */
  ripgrep?: RipgrepProgram | null;
}
