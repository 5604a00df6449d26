// The session network (sessionNetwork.ts) as one executor uses it: commands that go through the
// egress proxy share one network namespace per session, served by the proxy itself, when bwrap
// runs them and nsenter is found here. The fallback, without nsenter (or without serveProxy: a
// proxy that is not in this process), is a namespace and bridge per command (bridge.ts), which
// commandLaunch.ts starts for a request that joins no session network.
import { childEnv } from "./env.ts";
import type { ExecutorOptions } from "./executorOptions.ts";
import { realFs } from "./fsView.ts";
import type { Native } from "./native.ts";
import { sandboxPaths } from "./paths.ts";
import type { SandboxProbe } from "./probe.ts";
import { type JoinResult, createSessionNetworks, findNsenter } from "./sessionNetwork.ts";
import type { ExecRequest } from "./types.ts";

export interface ExecutorNetworks {
  /** The socket of the session network a request joins, if it joins one. */
  socketFor(request: Pick<ExecRequest, "sandbox">): string | undefined;
  /** The session network for a request that joins one: its child hides what the request's command cannot read. */
  ready(socket: string, request: Pick<ExecRequest, "sandbox">): Promise<JoinResult>;
  /** Ends every network this executor made. */
  close(): Promise<void>;
}

type NetworkOptions = Pick<ExecutorOptions, "nsenter" | "serveProxy" | "selfCommand" | "envAllowlist" | "home">;

export function createExecutorNetworks(
  options: NetworkOptions,
  context: {
    probe: SandboxProbe;
    base: Record<string, string | undefined>;
    tmpDir: string;
    port: number;
    native: () => Native | undefined;
  },
): ExecutorNetworks {
  const { probe, base, tmpDir } = context;
  const nsenter =
    probe.launcher?.kind !== "bwrap" || options.nsenter === null ? undefined : (options.nsenter ?? findNsenter());
  const serveProxy = options.serveProxy;
  const networks =
    probe.launcher?.kind === "bwrap" && nsenter && serveProxy
      ? createSessionNetworks({
          bwrap: probe.launcher.path,
          nsenter,
          selfCommand: options.selfCommand,
          port: context.port,
          env: childEnv({ base, allow: options.envAllowlist, home: options.home, tmpDir }),
          serve: serveProxy,
          native: context.native,
        })
      : undefined;
  return {
    socketFor: (request) =>
      networks && request.sandbox?.network.mode === "proxy" ? request.sandbox.network.socketPath : undefined,
    ready: (socket, request) =>
      (networks as NonNullable<typeof networks>).ready(socket, () =>
        request.sandbox ? sandboxPaths(request.sandbox, realFs).denyRead : [],
      ),
    close: async () => {
      await networks?.close();
    },
  };
}
