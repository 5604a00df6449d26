// How the executor (executor.ts) turns a request into the process to spawn: the program and its
// argv, environment and folder, and what stands above the command: on the host a process keeper
// (keeper.ts) or, for Garuda's own git, a PID namespace (hostNamespace.ts); in the sandbox bwrap
// (bwrapLaunch.ts, under the resource limiter's wrapper) or Seatbelt. No process starts here: the
// executor spawns what this returns, and releases `limited` if that fails.
import { bwrapLaunch } from "./bwrapLaunch.ts";
import { childEnv, proxyEnv, proxyUrl } from "./env.ts";
import { type HiddenPath, hostPidNamespaceArgv } from "./hostNamespace.ts";
import { keeperLaunch } from "./keeper.ts";
import type { LimitedCommand, Limiter } from "./limiter.ts";
import type { SandboxProbe } from "./probe.ts";
import { seatbeltArgv } from "./seatbelt.ts";
import type { JoinResult } from "./sessionNetwork.ts";
import type { ExecRequest } from "./types.ts";

/** Thrown by run()/start() for a sandboxed request when no sandbox works here. */
export class SandboxUnavailableError extends Error {
  constructor(
    readonly reason: string,
    readonly fix: string,
  ) {
    super(`the OS sandbox is not available: ${reason}. Fix: ${fix}`);
    this.name = "SandboxUnavailableError";
  }
}

/** Exit status of a sandboxed command that could not start because its network did not (as the bridge's own). */
const NETWORK_FAILED = 125;

/** How a command is started: the program, its environment and folder, and what stands above the command. */
export interface Launch {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  pidNamespace: boolean;
  keeper: boolean;
  /** The command's resource limits (limiter.ts), released if it cannot start. */
  limited?: LimitedCommand;
  /** Descriptors the command gets as its 3 and 4 (the session network's, JoinResult.fds). */
  fds?: [number, number];
}

/** What every launch of one executor shares. */
export interface LaunchContext {
  shell: string;
  /** Where allowlisted variables are read from, and the extra allowed names. */
  base: Record<string, string | undefined>;
  envAllowlist: string[] | undefined;
  home: string;
  tmpDir: string;
  probe: SandboxProbe;
  /** The keeper's command for host commands; undefined: they run without one. */
  keeper: string[] | undefined;
  /** What Garuda's own host commands in `cwd` cannot read either (hostNamespace.ts). */
  hostHidden?: (cwd: string) => HiddenPath[];
  graceMs: number;
  limiter: Limiter | undefined;
  selfCommand: string[];
  bridgePort: number;
}

export type LaunchRequest = Pick<ExecRequest, "command" | "cwd" | "sandbox" | "env" | "readPaths">;

/**
 * The program to start and its environment, on the host or in the sandbox. `joined`: the session
 * network the command joins (sessionNetwork.ts), or why it could not; `inNamespace`: a host
 * command of Garuda's own that runs in a PID namespace instead of under the keeper.
 */
export function commandLaunch(
  ctx: LaunchContext,
  request: LaunchRequest,
  joined: JoinResult | undefined,
  inNamespace = false,
): Launch {
  const { shell, base, probe } = ctx;
  const sandbox = request.sandbox;
  const inner = [shell, "-c", request.command];
  const extra = request.env ?? {};
  if (sandbox === null) {
    const env = childEnv({ base, allow: ctx.envAllowlist, home: ctx.home, tmpDir: ctx.tmpDir, extra });
    // Garuda's own git: a PID namespace ends what it leaves, at a fraction of a keeper's memory.
    if (inNamespace && probe.launcher?.kind === "bwrap") {
      return {
        argv: hostPidNamespaceArgv(probe.launcher.path, request.cwd, inner, ctx.hostHidden?.(request.cwd) ?? []),
        env,
        cwd: request.cwd,
        pidNamespace: true,
        keeper: false,
      };
    }
    if (!ctx.keeper) return { argv: inner, env, cwd: request.cwd, pidNamespace: false, keeper: false };
    const kept = keeperLaunch(ctx.keeper, {
      parent: process.pid,
      graceMs: ctx.graceMs,
      cwd: request.cwd,
      argv: inner,
      env,
    });
    return { ...kept, cwd: "/", pidNamespace: false, keeper: true };
  }
  const launcher = probe.launcher;
  if (!launcher) {
    const why = probe.availability.available ? { reason: "no launcher", fix: "" } : probe.availability;
    throw new SandboxUnavailableError(why.reason, why.fix);
  }
  let env = childEnv({ base, allow: ctx.envAllowlist, home: sandbox.home, tmpDir: sandbox.tmpDir, extra });
  const network = sandbox.network;
  if (launcher.kind === "seatbelt") {
    if (network.mode === "proxy" && network.tcpPort !== undefined)
      env = { ...env, ...proxyEnv(proxyUrl(network.token, network.tcpPort)) };
    return { argv: seatbeltArgv(sandbox, inner), env, cwd: request.cwd, pidNamespace: false, keeper: false };
  }
  if (joined && "error" in joined) {
    // Nothing of the command runs: a shell on the host prints why (an argument, never parsed) and fails.
    const message = `garuda sandbox: the command did not run: ${joined.error}`;
    return {
      argv: [shell, "-c", 'printf "%s\\n" "$0" >&2; exit ' + NETWORK_FAILED, message],
      env,
      cwd: "/",
      pidNamespace: false,
      keeper: false,
    };
  }
  const limited = ctx.limiter?.command(shell, request.command);
  const launched = bwrapLaunch({
    spec: sandbox,
    argv: limited?.inner ?? inner,
    env,
    cwd: request.cwd,
    bwrap: launcher.path,
    disableUserns: launcher.disableUserns,
    selfCommand: ctx.selfCommand,
    bridgePort: ctx.bridgePort,
    ...(joined && { join: joined.prefix }),
    ...(request.readPaths && { readPaths: request.readPaths }),
  });
  const fds = joined && "fds" in joined ? joined.fds : undefined;
  return {
    argv: limited ? limited.outer(launched.argv) : launched.argv,
    env: launched.env,
    cwd: request.cwd,
    pidNamespace: true,
    keeper: false,
    ...(limited && { limited }),
    ...(fds && { fds }),
  };
}
