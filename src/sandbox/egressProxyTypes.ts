// What the egress proxy (egressProxy.ts) takes and gives: its options, the decision it reports
// for each connection, and the running proxy's interface. Apart so the proxy's request handling
// (proxyRequest.ts) and its users name these types without importing the proxy itself.
import type { AskHost } from "./hostQuestions.ts";
import type { ProxyConnectionBudget } from "./proxyAdmission.ts";
import type { SandboxNetwork } from "./types.ts";

export interface ProxyDecision {
  host: string;
  port: number;
  allowed: boolean;
  /** allowlist | session | once (the user) | policy reason for a refusal. */
  via: string;
  reason?: string;
}

export interface EgressProxyOptions {
  /** Host patterns always allowed (see proxyPolicy.ts). */
  allow?: string[];
  /** Host patterns always refused. */
  block?: string[];
  /** Refuse hosts outside the allowlist without asking. */
  strict?: boolean;
  /**
   * Asked for a host outside the allowlist; without it such hosts are refused. `signal` aborts when
   * every connection that waits for this answer has gone: the question should then be withdrawn.
   */
  askHost?: AskHost;
  /** Ports any allowed host may use. Default 80 and 443. */
  ports?: number[];
  /** Also listen on 127.0.0.1 (macOS, where Seatbelt can only allow a TCP port). */
  tcp?: boolean;
  /** Where the private socket folder is made. Default the OS temp folder. */
  dir?: string;
  /** Name resolution (tests). Default the system resolver. */
  resolve?: (host: string) => Promise<string[]>;
  /**
   * A name that resolves to a loopback, link-local or metadata address is refused unless the exact
   * name is in `allow` ("listed"); "any" lets every allowed name through (tests).
   */
  localAddresses?: "listed" | "any";
  /**
   * A refusal from outside the proxy's own lists (the permission engine's deny rules), asked for
   * every host that is not blocked, allowlisted ones too: the reason, or undefined to go on.
   */
  vetoHost?: (host: string, port: number) => string | undefined;
  /**
   * false: a "session" answer is not kept here, so every connection to a host outside the
   * allowlist goes to askHost, which keeps the session's answers itself (the permission engine's
   * session rules: revoking one then takes effect at once). Default true.
   */
  rememberSessionAnswers?: boolean;
  onDecision?: (decision: ProxyDecision) => void;
  /** Open client connections this proxy holds at most (proxyAdmission.ts). Default CONNECTIONS_PER_PROXY. */
  maxConnections?: number;
  /**
   * The process-wide budget of client connections, shared by every proxy given it (made once by
   * whoever starts sessions). Default: one of this proxy's own.
   */
  connections?: ProxyConnectionBudget;
  /** Time a connection has to send its whole request head. Default HEAD_DEADLINE_MS. */
  headDeadlineMs?: number;
}

export interface EgressProxy {
  readonly socketPath: string;
  readonly token: string;
  readonly tcpPort: number | undefined;
  /** What a SandboxSpec's `network` should say to use this proxy. */
  readonly network: SandboxNetwork;
  /** Adds a pattern to the allowlist for the rest of the session (the user allowed it "always" elsewhere). */
  allowHost(pattern: string): void;
  /** Hosts refused so far, newest last (for a command's result). */
  refusedHosts(): string[];
  /**
   * Also accepts on `fd`, a listening socket made elsewhere (a session network's, inside its
   * namespace: sessionNetwork.ts), with the same checks; stop() closes it and its connections.
   */
  serve(fd: number): { stop(): void };
  /** Client connections open now (those the admission counts: proxyAdmission.ts). */
  readonly openConnections: number;
  close(): Promise<void>;
}
