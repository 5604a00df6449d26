// The executor contract: the one place processes start (architecture rule 6).

/** What a sandboxed command may touch. Pure data: launchers turn it into argv per OS. */
export interface SandboxSpec {
  /** The project root (absolute, real path). Writable unless `projectReadOnly`. */
  root: string;
  home: string;
  /** A private temp folder for this session, writable, given as TMPDIR. */
  tmpDir: string;
  /** Plan mode: the root is read-only too. */
  projectReadOnly: boolean;
  /** Extra writable folders (package caches, project settings' writePaths). */
  writePaths: string[];
  /** Stay read-only inside writable folders, whether or not they exist yet (.git/hooks, .garuda …). */
  protectedPaths: string[];
  /** Unreadable (~/.ssh, credentials, policy denyPaths …). */
  denyReadPaths: string[];
  /** No network, or only through Garuda's egress proxy listening on a Unix socket. */
  network: { mode: "none" } | { mode: "proxy"; socketPath: string };
}

export interface ExecRequest {
  /** A shell command line, run with `bash -c` (or `sh -c` when bash is missing). */
  command: string;
  cwd: string;
  /** Run inside the OS sandbox with this spec, or on the host (only after a question). */
  sandbox: SandboxSpec | null;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Streaming output as it comes, stdout and stderr interleaved. */
  onOutput?: (chunk: string) => void;
  /** Extra environment variables (on top of the executor's allowlist). */
  env?: Record<string, string>;
  stdin?: string;
  /** Cap of output kept in the result; the middle is cut, head and tail kept. */
  maxOutputBytes?: number;
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
}

/** A long-running process (process_manager, MCP stdio servers). */
export interface RunningProcess {
  readonly id: string;
  readonly pid: number;
  readonly command: string;
  /** Output so far (capped ring). */
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

export interface Executor {
  readonly sandbox: SandboxAvailability;
  run(request: ExecRequest): Promise<ExecResult>;
  start(request: Omit<ExecRequest, "onOutput" | "timeoutMs"> & { raw?: boolean }): RunningProcess;
  /** Kills every process group this executor started, at once. */
  shutdown(): Promise<void>;
}
