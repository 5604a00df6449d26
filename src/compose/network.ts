// The session's network: its egress proxy (src/sandbox/egressProxy.ts) under the team policy and
// the permission engine. The proxy keeps the allowlist and the blocked hosts; the engine refuses by
// its deny rules (allowlisted hosts too), asks about the rest and keeps the session's answers.
import type { TeamPolicy } from "../permission/teamPolicy.ts";
import type { PermissionEngine } from "../permission/engine.ts";
import { QuestionWithdrawn } from "../core-types/withdrawn.ts";
import type { Approver, Choice, PermissionRequest } from "../permission/types.ts";
import type { Mode } from "../core-types/mode.ts";
import { type EgressProxy, type EgressProxyOptions, startEgressProxy } from "../sandbox/egressProxy.ts";
import type { ProxyConnectionBudget } from "../sandbox/proxyAdmission.ts";
import type { AuditSink } from "../store/auditEvents.ts";

export interface SessionNetworkOptions {
  policy: TeamPolicy;
  /** The project settings' network.allow (trusted), added to the policy's unless the policy is strict. */
  projectAllow: readonly string[];
  /**
   * The hosts the user chose to remember for this project (~/.garuda/trust.json), allowed like
   * projectAllow, and how a new one is remembered. Absent: no "remember" answer is offered.
   */
  remembered?: { hosts: readonly string[]; remember(host: string): void };
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

/** The lasting answer of a network question, for a front end that offers one (Approver.askLasting). */
function rememberChoice(host: string) {
  return {
    label: "Remember for this project",
    description: `Allows ${host} in every session in this project (kept in ~/.garuda/trust.json)`,
  };
}

/**
 * The approver for one network question: where the front end offers lasting answers, the
 * question also offers "Remember for this project", which the engine hears as "session" (its
 * session rule is added) and `onRemember` keeps beyond the session.
 */
function rememberingApprover(approver: Approver, host: string, onRemember: () => void): Approver {
  const askLasting = approver.askLasting?.bind(approver);
  if (!askLasting) return approver;
  return {
    async ask(request, signal): Promise<Choice> {
      const answer = await askLasting({ ...request, lasting: rememberChoice(host) }, signal);
      if (answer !== "lasting") return answer;
      if (signal.aborted || !request.choices.includes("session")) return "deny";
      onRemember();
      return "session";
    },
  };
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
    allow: strict
      ? [...policy.network.allow]
      : [...policy.network.allow, ...options.projectAllow, ...(options.remembered?.hosts ?? [])],
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
      let remember = false;
      const remembered = options.remembered;
      const asking =
        approver && remembered && !strict
          ? rememberingApprover(approver, host, () => {
              remember = true;
            })
          : approver;
      const decision = await engine.authorize(request(host, port), {
        mode: options.mode(),
        ...(asking && { approver: asking }),
        signal,
      });
      if (decision.outcome !== "allow") return "deny";
      if (remember && remembered && decision.by === "session") {
        try {
          remembered.remember(host);
          options.audit.record({
            type: "sandbox",
            event: "network",
            denied: false,
            detail: `${host} remembered for this project`,
          });
        } catch {
          // A broken trust.json is reported at session start; the yes holds for this session.
        }
      }
      return decision.by === "user" ? "once" : "session";
    },
    onDecision: (decision) =>
      options.audit.record({
        type: "sandbox",
        event: "network",
        denied: !decision.allowed,
        detail:
          `${decision.host}:${decision.port} ` +
          `${decision.allowed ? `allowed (${decision.via})` : `refused: ${decision.reason ?? decision.via}`}`,
      }),
  });
}
