// The session's network: its egress proxy (src/sandbox/egressProxy.ts) under the team policy and
// the permission engine. The proxy keeps the allowlist and the blocked hosts; the engine refuses by
// its deny rules (allowlisted hosts too), asks about the rest and keeps the session's answers.
import type { TeamPolicy } from "../permission/teamPolicy.ts";
import type { PermissionEngine } from "../permission/engine.ts";
import { QuestionWithdrawn } from "../core-types/withdrawn.ts";
import type { Approver, PermissionRequest } from "../permission/types.ts";
import type { Mode } from "../core-types/mode.ts";
import { type EgressProxy, type EgressProxyOptions, startEgressProxy } from "../sandbox/egressProxy.ts";
import type { ProxyConnectionBudget } from "../sandbox/proxyAdmission.ts";
import type { AuditSink } from "../store/auditEvents.ts";

export interface SessionNetworkOptions {
  policy: TeamPolicy;
  /** The project settings' network.allow (trusted), added to the policy's unless the policy is strict. */
  projectAllow: readonly string[];
  engine: PermissionEngine;
  approver: Approver | undefined;
  audit: AuditSink;
  mode: () => Mode;
  signal: () => AbortSignal | undefined;
  /** The folder the proxy's socket folder goes in (the session's own folder); default the temp folder. */
  dir?: string;
  /** The process-wide budget of proxy connections (sandbox/proxyAdmission.ts); default the proxy's own. */
  connections?: ProxyConnectionBudget;
  /** Tests: a loopback TCP listener (macOS always has one), other ports, name resolution. */
  testing?: Pick<EgressProxyOptions, "tcp" | "ports" | "localAddresses" | "resolve">;
}

/** What a network question withdrawn for its connection's end says. */
export const COMMAND_ENDED = "the command ended; not asked";

/**
 * The session's egress proxy. The permission engine has the last word on every host: its deny
 * rules refuse even allowlisted hosts, and it keeps the session's "allow for this session"
 * answers (so /permissions revoke takes effect at the next connection). Every decision is audited.
 */
export async function startSessionNetwork(options: SessionNetworkOptions): Promise<EgressProxy> {
  const { policy, engine, approver } = options;
  const strict = policy.network.strictAllowlist !== null;
  const request = (host: string, port: number): PermissionRequest => ({
    tool: "network",
    readOnly: false,
    target: { kind: "network", host, port },
    title: `Network: ${host}:${port}`,
    preview: `A command or a local MCP server in the sandbox wants to connect to ${host} (port ${port}).`,
    question: "Allow a sandboxed command to reach this host (the network allowlist)?",
  });
  return startEgressProxy({
    // A strict team allowlist is the whole list: a project cannot add to it.
    allow: strict ? [...policy.network.allow] : [...policy.network.allow, ...options.projectAllow],
    block: policy.network.blockedHosts,
    strict,
    // Seatbelt can only allow a TCP port, not a Unix socket.
    tcp: process.platform === "darwin",
    ...(options.dir !== undefined && { dir: options.dir }),
    ...(options.connections && { connections: options.connections }),
    ...options.testing,
    vetoHost: (host, port) => engine.refusal(request(host, port), options.mode()),
    rememberSessionAnswers: false,
    askHost: async (host, port, gone) => {
      // The question lasts while the turn runs and some connection still waits for it: when the
      // last one has gone (the command ended), it is withdrawn, saying why.
      const withdrawn = new AbortController();
      gone.addEventListener("abort", () => withdrawn.abort(new QuestionWithdrawn(COMMAND_ENDED)), { once: true });
      const turn = options.signal();
      const signal = turn ? AbortSignal.any([turn, withdrawn.signal]) : withdrawn.signal;
      const decision = await engine.authorize(request(host, port), {
        mode: options.mode(),
        ...(approver && { approver }),
        signal,
      });
      if (decision.outcome !== "allow") return "deny";
      return decision.by === "user" ? "once" : "session";
    },
    onDecision: (decision) =>
      options.audit.record({
        type: "sandbox",
        event: "network",
        denied: !decision.allowed,
        detail: `${decision.host}:${decision.port} ${decision.allowed ? `allowed (${decision.via})` : `refused: ${decision.reason ?? decision.via}`}`,
      }),
  });
}
