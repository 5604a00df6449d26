// The launch step after bwrapArgv (Linux): what stands around a sandboxed command — the way into
// the session's network or a bridge of its own, the proxy variables, the paths under the host's
// /tmp that must stay readable — as one pure function over its inputs, pinned by inline snapshots
// (test/sandbox/bwrapLaunch.test.ts) as bwrapArgv is. commandLaunch.ts adds only what
// is not pure: the resource limiter's wrapper (and executor.ts the spawn).
import { dirname, isAbsolute } from "node:path";
import { bwrapArgv } from "./bwrap.ts";
import { proxyEnv, proxyUrl } from "./env.ts";
import type { FsView } from "./fsView.ts";
import type { SandboxSpec } from "./types.ts";

export interface BwrapLaunchInput {
  spec: SandboxSpec;
  /** The command to run inside (the shell, possibly under the limiter's inner wrapper). */
  argv: string[];
  /** The command's environment, without the proxy variables (added here). */
  env: Record<string, string>;
  cwd: string;
  /** The bwrap program and whether it has --disable-userns. */
  bwrap: string;
  disableUserns: boolean;
  /** How to start Garuda's sandbox bridge (ExecutorOptions.selfCommand). */
  selfCommand: string[];
  /** The proxy's port on the sandbox's loopback. */
  bridgePort: number;
  /**
   * The command joins the session's network namespace through this prefix (sessionNetwork.ts:
   * nsenter …): no network of its own and no bridge inside. Without it, a proxied command gets its
   * own namespace with a bridge in front of it.
   */
  join?: string[];
  /** Paths the request needs readable (its program, a test fixture), as named. */
  readPaths?: string[];
  fs?: FsView;
}

/**
 * What of Garuda's own command must be readable: the binary or Bun as they are; for an entry file
 * run from source, Garuda's `src/` folder that holds it (its modules import across src/), never
 * more of a checkout (one under /tmp would otherwise come in whole, with whatever sits beside it).
 */
function programPath(part: string): string {
  if (!/\.[cm]?[jt]s$/.test(part)) return part;
  const at = part.lastIndexOf("/src/");
  return at >= 0 ? part.slice(0, at + 4) : dirname(part);
}

/** The program, its arguments and environment for one sandboxed command under bwrap. */
export function bwrapLaunch(input: BwrapLaunchInput): { argv: string[]; env: Record<string, string> } {
  const network = input.spec.network;
  const proxied = network.mode === "proxy";
  const env = proxied ? { ...input.env, ...proxyEnv(proxyUrl(network.token, input.bridgePort)) } : input.env;
  const bridgeInside = proxied && input.join === undefined;
  const inner = bridgeInside
    ? [...input.selfCommand, "--socket", network.socketPath, "--port", String(input.bridgePort), "--", ...input.argv]
    : input.argv;
  const readPaths = [
    // Garuda's own program stays visible inside whether or not a bridge runs there: a bridge in
    // the command's sandbox needs it (the binary, or from source Bun and the source tree the entry
    // file imports from), and a command that runs the same Bun (a test, a script of the project)
    // would not find it when it lives under /tmp.
    ...input.selfCommand.filter((part) => isAbsolute(part)).map(programPath),
    // As named, never widened: the folder around a path under /tmp may hold another program's socket (tmux, ssh-agent).
    ...(input.readPaths ?? []).filter((part) => isAbsolute(part)),
  ];
  const args = bwrapArgv(input.spec, inner, {
    cwd: input.cwd,
    disableUserns: input.disableUserns,
    readPaths,
    sharedNetwork: input.join !== undefined,
    ...(input.fs && { fs: input.fs }),
  });
  return { argv: [...(input.join ?? []), input.bwrap, ...args], env };
}
