// The executor contract: the one place processes start (architecture rule 6).
import type { ChangeAnswer } from "./gitGuard/changeLog.ts";
import type { RipgrepRunner } from "./ripgrep/runner.ts";
import type { CommandPeaks, LimitsInForce } from "./limiter.ts";
import type { LimitHit } from "./limits.ts";

/**
 * How sandboxed commands reach the network. `none`: no network at all (a network namespace with
 * only loopback on Linux; no outbound rule on macOS). `proxy`: only through Garuda's egress proxy
 * (see egressProxy.ts), which applies the host allowlist.
 */
export type SandboxNetwork =
  | { mode: "none" }
  | {
      mode: "proxy";
      /** The proxy's Unix socket (Linux: bind-mounted in and reached through the bridge). */
      socketPath: string;
      /** The per-session secret the proxy requires in Proxy-Authorization. */
      token: string;
      /** The proxy's loopback TCP port (macOS, where the profile allows only this port). */
      tcpPort?: number;
    };

/** What a sandboxed command may touch. Pure data: launchers turn it into argv per OS. */
export interface SandboxSpec {
  /** The project root (absolute, real path). Writable unless `projectReadOnly`. */
  root: string;
  home: string;
  /** A private temp folder for this session, writable, given as TMPDIR (and mounted at /tmp on Linux). */
  tmpDir: string;
  /** Plan mode: the root is read-only too. */
  projectReadOnly: boolean;
  /**
   * The session's other project folders (an editor's additionalDirectories), absolute and real:
   * writable as the root is (read-only in plan mode), with the same protected paths inside them.
   */
  extraRoots?: string[];
  /** Extra writable folders (project settings' writePaths). Existing package caches are added by the launchers. */
  writePaths: string[];
  /**
   * Stay read-only inside writable folders, whether or not they exist yet (.git/hooks, .garuda …),
   * on top of the launchers' defaults (paths.ts). A path that does not exist is held by a read-only
   * placeholder: a trailing "/" makes it an empty directory, otherwise an empty file.
   */
  protectedPaths: string[];
  /** Unreadable (~/.ssh, credentials, policy denyPaths …), on top of the launchers' defaults. */
  denyReadPaths: string[];
  /**
   * Nested repositories under the root (their folders) whose config, hooks and redirect files stay
   * read-only as the root's .git does. The executor fills it in from its git guard (gitGuard/host.ts).
   */
  gitRepos?: string[];
  /** No network, or only through Garuda's egress proxy. */
  network: SandboxNetwork;
  /**
   * The host's PATH folders. Where one lies in the home and the home is inside a writable folder
   * (a session at ~), it stays read-only: the shell on the host runs what lands there.
   */
  pathFolders?: readonly string[];
  /**
   * The folder that holds every session's own folder (sessionFolders.ts). Linux: hidden from the
   * command wherever it would be visible (a writePath over the temp folder, a TMPDIR in the home),
   * all but this session's tmp.
   */
  sessionsDir?: string;
}

export interface ExecRequest {
  /** A shell command line, run with `bash -c` (or `sh -c` when bash is missing). */
  command: string;
  cwd: string;
  /** Run inside the OS sandbox with this spec, or on the host (only after a question). */
  sandbox: SandboxSpec | null;
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * Streaming output as it comes, stdout and stderr interleaved. A returned promise pauses the
   * reading of the output until it settles: the command's writes then wait, as at a terminal
   * that cannot keep up (they are read again at the latest when the command ends or is stopped).
   */
  onOutput?: (chunk: string) => unknown;
  /** Extra environment variables (on top of the executor's allowlist). */
  env?: Record<string, string>;
  stdin?: string;
  /**
   * Paths the program itself needs to be visible inside the sandbox although they live where the
   * sandbox hides (the host's /tmp): an MCP server's binary or script. Each is mounted read-only
   * as named, never the folder around it (one under /tmp may hold another program's socket).
   */
  readPaths?: string[];
  /** Cap of output kept in the result; the middle is cut, head and tail kept. */
  maxOutputBytes?: number;
  /**
   * With `sandbox: null`: a command Garuda runs for itself with a fixed environment (undo's git),
   * not one a user approved. On Linux with bwrap it runs on the host's files with the user's
   * rights but in a PID namespace of its own that ends with it and with Garuda
   * (hostNamespace.ts), instead of under a process keeper; elsewhere as any host command.
   */
  internal?: boolean;
}

export interface ExecResult {
  exitCode: number | null;
  signal: string | null;
  /** stdout and stderr interleaved as they arrived, capped. */
  output: string;
  truncated: boolean;
  timedOut: boolean;
  /** Ended by cancel or shutdown. */
  killed: boolean;
  durationMs: number;
  /** A sandbox limit the command ran into; its message also ends `output`. */
  limit?: LimitHit;
  /** The most tasks and memory the command used at once, where a cgroup counted them. */
  peak?: CommandPeaks;
}

/** A long-running process (process_manager, MCP stdio servers). */
export interface RunningProcess {
  readonly id: string;
  readonly pid: number;
  readonly command: string;
  /** Output so far (capped ring). With `raw`, stderr only: stdout is the caller's pipe. */
  output(): string;
  readonly exited: Promise<ExecResult>;
  /** SIGTERM to the group, SIGKILL after the grace period. */
  stop(): Promise<ExecResult>;
  /** Raw pipes for protocols spoken over stdio (MCP). */
  readonly stdin?: WritableStream<Uint8Array> | undefined;
  readonly stdout?: ReadableStream<Uint8Array> | undefined;
}

export type SandboxAvailability =
  | { available: true; kind: "bwrap" | "seatbelt" }
  | { available: false; reason: string; fix: string };

/** What a caller chooses per command; the executor fills in root, home, tmpDir and the defaults. */
export interface SpecOptions {
  projectReadOnly?: boolean;
  extraRoots?: string[];
  writePaths?: string[];
  protectedPaths?: string[];
  denyReadPaths?: string[];
  network?: SandboxNetwork;
}

export interface Executor {
  readonly sandbox: SandboxAvailability;
  /**
   * The embedded ripgrep in its own sandbox (ripgrep/runner.ts), for the file tools' searches; absent where there is
   * none.
   */
  readonly ripgrep?: RipgrepRunner;
  run(request: ExecRequest): Promise<ExecResult>;
  /**
   * What changed in the project at `root` (a real path) since `token`, as the git guard's watches saw it
   * (gitGuard/changeLog.ts): every change made before the call is counted. Absent, or "all", when it cannot be known.
   */
  changesSince?(root: string, token: string | undefined): Promise<ChangeAnswer>;
  /**
   * `onOutput` streams what the process prints (not its stdout with `raw`) for as long as it runs.
   * Resolves once the process has started (a session's first networked command waits for its network).
   */
  start(request: Omit<ExecRequest, "timeoutMs"> & { raw?: boolean }): Promise<RunningProcess>;
  /** Kills every process group this executor started, at once. */
  shutdown(): Promise<void>;
}

/** The real executor (createExecutor): the contract plus what the runtime needs to build specs. */
export interface ProcessExecutor extends Executor {
  /** The session's private temp folder (TMPDIR of every command). */
  readonly tmpDir: string;
  /** What each sandboxed command may use, and how that is held here; null: no limits (made so for a bench). */
  readonly limits: LimitsInForce | null;
  /** What the user should know at start (the git guard's sweep after a Garuda process was killed mid-command). */
  readonly startupNotices: string[];
  /** A SandboxSpec for this executor's root, home and tmpDir. */
  spec(options?: SpecOptions): SandboxSpec;
}
