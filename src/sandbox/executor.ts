// The Executor: the one place commands start (architecture rule 6). One per runtime. Every
// command runs in its own process group (and, sandboxed on Linux, its own PID namespace), gets
// an allowlisted environment only, streams its output, and is ended as a whole on cancel,
// timeout, stop or shutdown: SIGTERM, then SIGKILL after the grace period.
import { existsSync, mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CgroupSupport, findCgroups } from "./cgroup.ts";
import { spawnOrExplain } from "./commandTooLong.ts";
import { childEnv } from "./env.ts";
import { type LaunchContext, commandLaunch } from "./commandLaunch.ts";
import { type EndReason, type Job, spawnJob } from "./job.ts";
import { hostHiddenPaths, hostNamespaceWorks } from "./hostNamespace.ts";
import { keeperCommandFor } from "./keeper.ts";
import { type LimitedCommand, createLimiter } from "./limiter.ts";
import { type CommandLimits, defaultCommandLimits, readHardLimits } from "./limits.ts";
import { DEFAULT_OUTPUT_BYTES, HeadTailBuffer, TailBuffer } from "./output.ts";
import { type SandboxProbe, probeSandbox } from "./probe.ts";
import { type ProcessWide, createProcessWide } from "./processWide.ts";
import { type GitGuardHost, createGitGuardHost } from "./gitGuard/host.ts";
import { type GitGuards, createGuardSession } from "./gitGuard/session.ts";
import { guardedRoots, outermostFolders } from "./guardedRoots.ts";
import { type JoinResult, type Stoppable, createSessionNetworks, findNsenter } from "./sessionNetwork.ts";
import { realFs } from "./fsView.ts";
import { embeddedRipgrep, type RipgrepProgram } from "./ripgrep/program.ts";
import { createRipgrepRunner } from "./ripgrep/runner.ts";
import { sandboxPaths } from "./paths.ts";
import type { ExecRequest, ExecResult, ProcessExecutor, RunningProcess, SandboxSpec, SpecOptions } from "./types.ts";

/** The undo stores (config/paths.ts garudaPaths().snapshots): Garuda's own git works there. */
const UNDO_STORES = ".garuda/snapshots";

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
  /** What each sandboxed command may use (limits.ts). Default: defaultCommandLimits(); null: no limits (bench/limits.ts measures what they cost). */
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
  /** The ripgrep the file tools search with (ripgrep/program.ts). Default: the one embedded in the binary, if any; null: none. */
  ripgrep?: RipgrepProgram | null;
}

export { SandboxUnavailableError } from "./commandLaunch.ts";

export const KILL_GRACE_MS = 2_000;
export const BRIDGE_PORT = 3128;
/** Output kept by start()'s ring. */
export const RING_BYTES = 64 * 1024;
/** The end of a sandboxed command's output that is searched for a refused fork or allocation. */
const LIMIT_SCAN_BYTES = 16 * 1024;

function findShell(path: string | undefined): string {
  for (const candidate of ["/bin/bash", "/usr/bin/bash"]) if (existsSync(candidate)) return candidate;
  return Bun.which("bash", { PATH: path ?? "" }) ?? "/bin/sh";
}

export async function createExecutor(options: ExecutorOptions): Promise<ProcessExecutor> {
  if (options.selfCommand.length === 0)
    throw new Error("selfCommand must name the program that runs the sandbox bridge");
  const base = options.env ?? process.env;
  const ownTmp = options.tmpDir === undefined;
  const tmpDir = options.tmpDir ?? mkdtempSync(join(tmpdir(), "garuda-session-"));
  const probe = options.probe ?? (await probeSandbox({ env: base, tmpDir, root: options.root }));
  const processWide = options.processWide ?? createProcessWide();
  // Daemons a host command detaches stay in Garuda's tree; its environment is not readable
  // (processGuards.ts). Not awaited: it is done long before a model asks for a command, and
  // session/new does not wait for bun:ffi to load.
  void processWide.guard();
  const shell = findShell(base.PATH);
  // Host commands run under a keeper on Linux (keeper.ts): what they detach dies with them and with Garuda.
  const keeper =
    process.platform === "linux" && options.keeperCommand !== false
      ? (options.keeperCommand ?? keeperCommandFor(options.selfCommand))
      : undefined;
  const graceMs = options.killGraceMs ?? KILL_GRACE_MS;
  const bridgePort = options.bridgePort ?? BRIDGE_PORT;
  const bwrap = probe.launcher?.kind === "bwrap";
  // Linux only: on macOS RLIMIT_NPROC counts all of the user's processes (no user namespace), so
  // a cap there would fail commands whenever the desktop runs many; seatbelt commands get none.
  const limiter =
    options.limits === null
      ? undefined
      : createLimiter({
          limits: options.limits ?? defaultCommandLimits(),
          hard: readHardLimits(),
          cgroups: options.cgroups === null || !bwrap ? undefined : (options.cgroups ?? findCgroups()),
          nprocApplies: process.getuid?.() !== 0,
        });
  // One network namespace per session for commands that go through the proxy, served by the
  // proxy itself (sessionNetwork.ts); the fallback, without nsenter (or without serveProxy: a
  // proxy that is not in this process), is a namespace and bridge per command (bridge.ts).
  const nsenter =
    probe.launcher?.kind !== "bwrap" || options.nsenter === null ? undefined : (options.nsenter ?? findNsenter());
  const serveProxy = options.serveProxy;
  const networks =
    probe.launcher?.kind === "bwrap" && nsenter && serveProxy
      ? createSessionNetworks({
          bwrap: probe.launcher.path,
          nsenter,
          selfCommand: options.selfCommand,
          port: bridgePort,
          env: childEnv({ base, allow: options.envAllowlist, home: options.home, tmpDir }),
          serve: serveProxy,
          native: processWide.native,
        })
      : undefined;
  /** The socket of the session network a request joins, if it joins one. */
  const joins = (request: Pick<ExecRequest, "sandbox">): string | undefined =>
    networks && request.sandbox?.network.mode === "proxy" ? request.sandbox.network.socketPath : undefined;
  /** The session network for a request that joins one: its child hides what the request's command cannot read. */
  const ready = (socket: string, request: Pick<ExecRequest, "sandbox">): Promise<JoinResult> =>
    (networks as NonNullable<typeof networks>).ready(socket, () =>
      request.sandbox ? sandboxPaths(request.sandbox, realFs).denyRead : [],
    );
  const live = new Set<Job>();
  const ownGuards =
    options.gitGuard === false || options.gitGuards
      ? undefined
      : createGitGuardHost({
          stateDir: options.gitGuardDir ?? join(options.home, ".garuda", "git-guard"),
          path: base.PATH,
          native: processWide.native,
          ...(options.gitGuardWatches !== undefined && { maxWatches: options.gitGuardWatches }),
        });
  const guardHost = options.gitGuard === false ? undefined : (options.gitGuards ?? ownGuards);
  const gitGuards: GitGuards | undefined = guardHost && createGuardSession(guardHost);
  // A Garuda process killed while a command ran here may have left something the guard never saw.
  const projects = [options.root, ...(options.extraRoots ?? [])];
  const startupNotices = probe.availability.available
    ? (await Promise.all(projects.map((project) => gitGuards?.sweepAtStart(project) ?? []))).flat()
    : [];
  // The guard's first walk of each project, in the background: the first command need not wait for it.
  if (probe.availability.available) for (const project of outermostFolders(projects)) gitGuards?.prepare(project);
  let closed = false;
  let counter = 0;

  function spec(o: SpecOptions = {}): SandboxSpec {
    const runtimeDir = base.XDG_RUNTIME_DIR; // session bus, wayland, ssh/gpg agents: sockets out of the sandbox
    return {
      root: options.root,
      home: options.home,
      tmpDir,
      projectReadOnly: o.projectReadOnly ?? false,
      ...(o.extraRoots && o.extraRoots.length > 0 && { extraRoots: o.extraRoots }),
      writePaths: o.writePaths ?? [],
      protectedPaths: o.protectedPaths ?? [],
      denyReadPaths: [...(runtimeDir ? [runtimeDir] : []), ...(o.denyReadPaths ?? [])],
      network: o.network ?? { mode: "none" },
    };
  }

  /** Whether Garuda's own host commands get a PID namespace here (hostNamespace.ts): tried once, at the first. */
  let namespaceTrial: Promise<boolean> | undefined;
  const contained = async (request: ExecRequest): Promise<boolean> => {
    if (!request.internal || request.sandbox !== null || probe.launcher?.kind !== "bwrap") return false;
    namespaceTrial ??= hostNamespaceWorks(probe.launcher.path, { PATH: base.PATH ?? "/usr/bin:/bin" });
    return namespaceTrial;
  };

  const launchContext: LaunchContext = {
    shell,
    base,
    envAllowlist: options.envAllowlist,
    home: options.home,
    tmpDir,
    probe,
    keeper,
    // The sandbox's hidden places, but the folder the command works in and the undo store's.
    hostHidden: (cwd) =>
      hostHiddenPaths(sandboxPaths(spec(), realFs).denyRead, [cwd, join(options.home, UNDO_STORES)], realFs.kind),
    graceMs,
    limiter,
    selfCommand: options.selfCommand,
    bridgePort,
  };

  function begin(
    request: ExecRequest,
    joined: JoinResult | undefined,
    capture: "all" | "stderr",
    stdin: "ignore" | "pipe" | Uint8Array,
    onText: (text: string) => unknown,
    inNamespace = false,
  ): { job: Job; limited: LimitedCommand | undefined } {
    if (closed) throw new Error("the executor has been shut down");
    const { limited, ...launched } = commandLaunch(launchContext, request, joined, inNamespace);
    let job: Job;
    try {
      job = spawnOrExplain(request.command, () => spawnJob({ ...launched, stdin, capture, graceMs, onText }));
    } catch (error) {
      limited?.abandon();
      throw error;
    }
    live.add(job);
    job.exited.finally(() => live.delete(job));
    return { job, limited };
  }

  function watch(job: Job, signal: AbortSignal | undefined, timeoutMs: number | undefined): () => void {
    const onAbort = () => void job.terminate("cancel");
    signal?.addEventListener("abort", onAbort, { once: true });
    // Aborted while the command waited for its network: it ends at once.
    if (signal?.aborted) onAbort();
    const timer = timeoutMs !== undefined ? setTimeout(() => void job.terminate("timeout"), timeoutMs) : undefined;
    return () => {
      signal?.removeEventListener("abort", onAbort);
      if (timer) clearTimeout(timer);
    };
  }

  /**
   * A sandboxed command that may write the project runs under the git guard: nested repositories
   * it knows are held read-only, and what the command plants is moved aside as it happens; the
   * notes reach the output as they come and the command's result.
   */
  async function guarded(
    request: ExecRequest,
    onNote: (note: string) => void,
  ): Promise<{ request: ExecRequest; started: (pid: number) => void; leave: () => Promise<unknown> }> {
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

  type End = { exitCode: number | null; signal: string | null; endedBy: EndReason | undefined };
  /** `seen`: the end of what the command printed, where a refused fork or allocation shows (limits.ts). */
  const result = (
    end: End,
    output: string,
    truncated: boolean,
    started: number,
    limited?: LimitedCommand,
    seen = output,
  ): ExecResult => {
    const finished = limited?.finish({ output: seen, exitCode: end.exitCode, signal: end.signal });
    const hit = finished?.hit;
    return {
      exitCode: end.exitCode,
      signal: end.signal,
      output: hit ? `${output}${output.endsWith("\n") || output === "" ? "" : "\n"}${hit.message}\n` : output,
      truncated,
      timedOut: end.endedBy === "timeout",
      killed: end.endedBy !== undefined && end.endedBy !== "timeout",
      durationMs: Math.round(performance.now() - started),
      ...(hit && { limit: hit }),
      ...(finished && Object.keys(finished.peaks).length > 0 && { peak: finished.peaks }),
    };
  };

  // The file tools' searches: the embedded rg in a sandbox of its own (ripgrep/runner.ts), on Linux with bwrap.
  const program = options.ripgrep === null ? undefined : (options.ripgrep ?? embeddedRipgrep());
  const ripgrep =
    program && probe.launcher?.kind === "bwrap" && probe.availability.available
      ? createRipgrepRunner({
          program,
          bwrap: probe.launcher.path,
          disableUserns: probe.launcher.disableUserns,
          root: options.root,
          denyRead: () => sandboxPaths(spec(), realFs).denyRead,
        })
      : undefined;

  return {
    sandbox: probe.availability,
    ...(ripgrep && { ripgrep }),
    tmpDir,
    limits: limiter?.inForce ?? null,
    startupNotices,
    spec,

    async run(request) {
      const started = performance.now();
      if (request.signal?.aborted) {
        return {
          exitCode: null,
          signal: null,
          output: "",
          truncated: false,
          timedOut: false,
          killed: true,
          durationMs: 0,
        };
      }
      const socket = joins(request);
      const joined = socket === undefined ? undefined : await ready(socket, request);
      const inNamespace = await contained(request);
      if (request.signal?.aborted) {
        return {
          exitCode: null,
          signal: null,
          output: "",
          truncated: false,
          timedOut: false,
          killed: true,
          durationMs: Math.round(performance.now() - started),
        };
      }
      const kept = new HeadTailBuffer(request.maxOutputBytes ?? DEFAULT_OUTPUT_BYTES);
      const stdin = request.stdin !== undefined ? new TextEncoder().encode(request.stdin) : "ignore";
      const seen = new TailBuffer(LIMIT_SCAN_BYTES);
      const emit = (text: string) => {
        kept.push(text);
        seen.push(text);
        return request.onOutput?.(text);
      };
      const git = await guarded(request, emit);
      let begun: ReturnType<typeof begin>;
      try {
        begun = begin(git.request, joined, "all", stdin, emit, inNamespace);
      } catch (error) {
        await git.leave();
        throw error;
      }
      const { job, limited } = begun;
      git.started(job.pid);
      const unwatch = watch(job, request.signal, request.timeoutMs);
      try {
        const end = await job.exited;
        await git.leave();
        return result(end, kept.text(), kept.truncated, started, limited, seen.text());
      } finally {
        unwatch();
      }
    },

    async start(request) {
      const started = performance.now();
      const ring = new TailBuffer(request.maxOutputBytes ?? RING_BYTES);
      const stdin = request.raw
        ? "pipe"
        : request.stdin !== undefined
          ? new TextEncoder().encode(request.stdin)
          : "ignore";
      const socket = joins(request);
      const joined = socket === undefined || closed ? undefined : await ready(socket, request);
      const inNamespace = await contained(request);
      // The guard's first walk of the project may still run: the command waits for it, not the event loop.
      const git = await guarded(request, (note) => ring.push(note));
      let begun: ReturnType<typeof begin>;
      try {
        begun = begin(
          git.request,
          joined,
          request.raw ? "stderr" : "all",
          stdin,
          (text) => {
            ring.push(text);
            return request.onOutput?.(text);
          },
          inNamespace,
        );
      } catch (error) {
        void git.leave();
        throw error;
      }
      const { job, limited } = begun;
      git.started(job.pid);
      if (request.raw && request.stdin !== undefined) job.stdin?.write(request.stdin);
      const unwatch = watch(job, request.signal, undefined);
      const exited = job.exited.then(async (end) => {
        unwatch();
        await git.leave();
        const seen = ring.text();
        return result(end, seen, false, started, limited, seen);
      });
      const sink = job.stdin;
      const process: RunningProcess = {
        id: `p${++counter}`,
        pid: job.pid,
        command: request.command,
        output: () => ring.text(),
        exited,
        async stop() {
          await job.terminate("stop");
          return exited;
        },
        stdin: sink
          ? new WritableStream<Uint8Array>({
              async write(chunk) {
                sink.write(chunk);
                await sink.flush();
              },
              async close() {
                await sink.end();
              },
            })
          : undefined,
        stdout: job.stdout,
      };
      return process;
    },

    async shutdown() {
      closed = true;
      const jobs = [...live];
      await Promise.all(jobs.map((job) => job.terminate("shutdown")));
      await Promise.all(jobs.map((job) => job.exited));
      await networks?.close();
      await limiter?.settle();
      await gitGuards?.close();
      await ownGuards?.close();
      if (ownTmp) await rm(tmpDir, { recursive: true, force: true });
    },
  };
}
