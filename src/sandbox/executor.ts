// The Executor: the one place commands start (architecture rule 6). One per runtime. Every
// command runs in its own process group (and, sandboxed on Linux, its own PID namespace), gets
// an allowlisted environment only, streams its output, and is ended as a whole on cancel,
// timeout, stop or shutdown: SIGTERM, then SIGKILL after the grace period. Here: the order of a
// command's start and end; its parts are apart: the options (executorOptions.ts), the request's
// launch (commandLaunch.ts), the session network (executorNetworks.ts), the git guard
// (executorGitGuard.ts), the result (commandResult.ts), start()'s handle (runningProcess.ts) and
// the file tools' ripgrep (ripgrep/executorRipgrep.ts).
import { existsSync, mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findCgroups } from "./cgroup.ts";
import { spawnOrExplain } from "./commandTooLong.ts";
import { type LaunchContext, commandLaunch } from "./commandLaunch.ts";
import { cancelledBeforeStart, commandResult } from "./commandResult.ts";
import { createExecutorGitGuard } from "./executorGitGuard.ts";
import { createExecutorNetworks } from "./executorNetworks.ts";
import { BRIDGE_PORT, type ExecutorOptions, KILL_GRACE_MS } from "./executorOptions.ts";
import { type Job, spawnJob } from "./job.ts";
import { hostHiddenPaths, hostNamespaceWorks } from "./hostNamespace.ts";
import { keeperCommandFor } from "./keeper.ts";
import { type LimitedCommand, createLimiter } from "./limiter.ts";
import { defaultCommandLimits, readHardLimits } from "./limits.ts";
import { DEFAULT_OUTPUT_BYTES, HeadTailBuffer, TailBuffer } from "./output.ts";
import { probeSandbox } from "./probe.ts";
import { createProcessWide } from "./processWide.ts";
import { realFs } from "./fsView.ts";
import { executorRipgrep } from "./ripgrep/executorRipgrep.ts";
import { runningProcess } from "./runningProcess.ts";
import { sandboxPaths } from "./paths.ts";
import type { ExecRequest, ProcessExecutor, SandboxSpec, SpecOptions } from "./types.ts";
import type { JoinResult } from "./sessionNetwork.ts";

/** The undo stores (config/paths.ts garudaPaths().snapshots): Garuda's own git works there. */
const UNDO_STORES = ".garuda/snapshots";
/** How long the paths hidden from Garuda's own host commands are used before they are worked out again. */
const HIDDEN_FRESH_MS = 2_000;

/** `make(key)`, kept per key for `ms`. */
function freshFor<T>(ms: number, make: (key: string) => T): { get(key: string): T } {
  const kept = new Map<string, { value: T; at: number }>();
  return {
    get(key) {
      const now = performance.now();
      const known = kept.get(key);
      if (known && now - known.at < ms) return known.value;
      const value = make(key);
      kept.set(key, { value, at: now });
      return value;
    },
  };
}

export { SandboxUnavailableError } from "./commandLaunch.ts";
export { BRIDGE_PORT, type ExecutorOptions, KILL_GRACE_MS } from "./executorOptions.ts";

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
  // One network namespace per session for commands that go through the proxy (executorNetworks.ts).
  const networks = createExecutorNetworks(options, {
    probe,
    base,
    tmpDir,
    port: bridgePort,
    native: processWide.native,
  });
  const live = new Set<Job>();
  // The git guard around sandboxed commands that may write the project (executorGitGuard.ts).
  const gitGuard = await createExecutorGitGuard(options, {
    path: base.PATH,
    native: processWide.native,
    sandboxAvailable: probe.availability.available,
  });
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

  // Worked out afresh at most every HIDDEN_FRESH_MS: a turn's snapshot runs a dozen git calls, and
  // working out the sandbox's paths for each cost 30 ms a turn and 14 MiB at three sessions' peak
  // (bench/acp.ts). A secret made since is hidden from the next set on.
  const hostHidden = freshFor(HIDDEN_FRESH_MS, (cwd: string) =>
    hostHiddenPaths(sandboxPaths(spec(), realFs).denyRead, [cwd, join(options.home, UNDO_STORES)], realFs.kind),
  );

  const launchContext: LaunchContext = {
    shell,
    base,
    envAllowlist: options.envAllowlist,
    home: options.home,
    tmpDir,
    probe,
    keeper,
    // The sandbox's hidden places, but the folder the command works in and the undo store's.
    hostHidden: (cwd) => hostHidden.get(cwd),
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

  // The file tools' searches: the embedded rg in a sandbox of its own (ripgrep/executorRipgrep.ts), on Linux with
  // bwrap.
  const ripgrep = executorRipgrep({
    ripgrep: options.ripgrep,
    probe,
    root: options.root,
    denyRead: () => sandboxPaths(spec(), realFs).denyRead,
  });

  return {
    sandbox: probe.availability,
    ...(ripgrep && { ripgrep }),
    tmpDir,
    limits: limiter?.inForce ?? null,
    startupNotices: gitGuard.startupNotices,
    spec,
    changesSince: gitGuard.changesSince,

    async run(request) {
      const started = performance.now();
      if (request.signal?.aborted) return cancelledBeforeStart(0);
      const socket = networks.socketFor(request);
      const joined = socket === undefined ? undefined : await networks.ready(socket, request);
      const inNamespace = await contained(request);
      if (request.signal?.aborted) return cancelledBeforeStart(Math.round(performance.now() - started));
      const kept = new HeadTailBuffer(request.maxOutputBytes ?? DEFAULT_OUTPUT_BYTES);
      const stdin = request.stdin !== undefined ? new TextEncoder().encode(request.stdin) : "ignore";
      const seen = new TailBuffer(LIMIT_SCAN_BYTES);
      const emit = (text: string) => {
        kept.push(text);
        seen.push(text);
        return request.onOutput?.(text);
      };
      const git = await gitGuard.guarded(request, emit);
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
        return commandResult(end, kept.text(), kept.truncated, started, limited, seen.text());
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
      const socket = networks.socketFor(request);
      const joined = socket === undefined || closed ? undefined : await networks.ready(socket, request);
      const inNamespace = await contained(request);
      // The guard's first walk of the project may still run: the command waits for it, not the event loop.
      const git = await gitGuard.guarded(request, (note) => ring.push(note));
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
        return commandResult(end, seen, false, started, limited, seen);
      });
      return runningProcess(`p${++counter}`, request.command, job, ring, exited);
    },

    async shutdown() {
      closed = true;
      const jobs = [...live];
      await Promise.all(jobs.map((job) => job.terminate("shutdown")));
      await Promise.all(jobs.map((job) => job.exited));
      await networks.close();
      await limiter?.settle();
      await gitGuard.close();
      if (ownTmp) await rm(tmpDir, { recursive: true, force: true });
    },
  };
}
