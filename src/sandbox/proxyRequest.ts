// An egress proxy's request, from a complete head to a relayed connection: the session's token,
// the target (CONNECT or an absolute http:// URI), the host's permission (proxyPolicy.ts, a veto
// from the permission engine, the user asked through hostQuestions.ts), the address it resolves
// to, and the upstream connection it is linked to (relay.ts). Apart from egressProxy.ts, which
// owns the listeners and each connection's life until its head is read.
import { isIP } from "node:net";
import { messageOf } from "../errors/caught.ts";
import type { EgressProxyOptions, ProxyDecision } from "./egressProxyTypes.ts";
import type { HeadReader } from "./headReader.ts";
import type { HostQuestions } from "./hostQuestions.ts";
import { type RequestHead, bodyFraming, header, hostHeader, originHead, proxyTarget, reply } from "./httpHead.ts";
import { authRequired, tokenMatches } from "./proxyAdmission.ts";
import { type PolicyState, canonicalHost, decideHost, isLocalAddress } from "./proxyPolicy.ts";
import { RequestBody } from "./requestBody.ts";
import { type RelayEnd, link, relayDrain, relayEnd, relayHandlers, sendTo } from "./relay.ts";

/** What a request's handling reads of its proxy. */
export interface ProxyRequestContext {
  /** The session's token every request must carry. */
  token: string;
  state: PolicyState;
  /** Undefined without askHost: decideHost then never says "ask" (state.canAsk). */
  questions: HostQuestions | undefined;
  options: Pick<EgressProxyOptions, "vetoHost" | "rememberSessionAnswers" | "localAddresses">;
  resolve: (host: string) => Promise<string[]>;
  /** Reports a decision (refusals are kept for refusedHosts()). */
  decided: (decision: ProxyDecision) => void;
}

export interface ClientEnd extends RelayEnd {
  phase: "head" | "deciding" | "relay";
  /** Reads the head (phase "head"). */
  reader: HeadReader | undefined;
  /** What it sent after its head while its host was decided, in order. */
  held: Uint8Array[];
  heldBytes: number;
  /** A plain-HTTP request's body: only it goes on to the origin, nothing after it. */
  body?: RequestBody;
  /** Counted in by the admission (released once, when it closes). */
  admitted: boolean;
  /** Its head's token header was complete and right (checked once, before the head's end). */
  tokenSeen?: boolean;
  /** Ends a connection whose head is not complete in time. */
  headTimer?: ReturnType<typeof setTimeout>;
  /** Its request is a CONNECT. */
  connect?: boolean;
}

/** Answers the client `text` and closes it once it is sent. */
export function finish(client: ClientEnd, text: string): void {
  client.phase = "relay";
  client.endWhenFlushed = true;
  sendTo(client, new TextEncoder().encode(text));
}

/** A 403 whose body says why, so the model can read it; reported as a decision. */
function refuse(ctx: ProxyRequestContext, client: ClientEnd, host: string, port: number, reason: string): void {
  ctx.decided({ host, port, allowed: false, via: "policy", reason });
  finish(
    client,
    reply(403, "Forbidden", `Garuda's egress proxy refused ${host}:${port}: ${reason}\n`, {
      "X-Proxy-Error": "blocked-by-allowlist",
    }),
  );
}

/** The policy's answer, asking the user when it says so: [allowed via, names the exact host] or a refusal. */
async function permit(
  ctx: ProxyRequestContext,
  host: string,
  port: number,
  client: ClientEnd,
): Promise<{ via: string; listed: boolean } | { reason: string }> {
  const verdict = decideHost(ctx.state, host, port);
  if (verdict.kind === "deny") return { reason: verdict.reason };
  const vetoed = ctx.options.vetoHost?.(canonicalHost(host), port);
  if (vetoed !== undefined) return { reason: vetoed };
  if (verdict.kind === "allow")
    return { via: ctx.state.allow.includes(verdict.rule) ? "allowlist" : "session", listed: verdict.listed };
  const answer = await (ctx.questions as HostQuestions).ask(host, port, client);
  if (answer === "withdrawn") return { reason: "the connection ended before the user answered" };
  if (answer === "deny") return { reason: `the user refused ${host}` };
  const remember = ctx.options.rememberSessionAnswers ?? true;
  if (remember && answer === "session" && !ctx.state.session.some((rule) => rule.host === host))
    ctx.state.session.push({ host });
  return { via: answer, listed: false };
}

/**
 * A client's request once its head is read: the token, the target, the host's permission (the
 * user asked when the policy says so), its address, and the upstream connection it is linked to.
 */
export async function handleRequest(
  ctx: ProxyRequestContext,
  client: ClientEnd,
  head: RequestHead,
  rest: Uint8Array,
): Promise<void> {
  if (!tokenMatches(header(head, "proxy-authorization"), ctx.token)) return finish(client, authRequired());
  const target = proxyTarget(head);
  if (target.kind === "invalid") {
    finish(client, reply(400, "Bad Request", `${target.reason}\n`));
    return;
  }
  const framing = target.kind === "http" ? bodyFraming(head) : undefined;
  if (framing?.kind === "invalid") return finish(client, reply(400, "Bad Request", `${framing.reason}\n`));
  const host = canonicalHost(target.host);
  const port = target.port;
  // A tunnel to port 80 would carry plain HTTP the proxy never reads: any Host, any number of
  // requests, to a front end that serves many hosts. Plain HTTP goes as an absolute URI, whose
  // Host is the allowed host (originHead). A port listed with a host (`host:8080`) may tunnel.
  if (target.kind === "connect" && port === 80)
    return refuse(
      ctx,
      client,
      host,
      port,
      "plain HTTP goes to the proxy as an absolute http:// URL, not through CONNECT",
    );
  const permission = await permit(ctx, host, port, client);
  // Answered meanwhile (refused for what it sent while it waited): the decision is not its any more.
  if (client.phase !== "deciding") return;
  if ("reason" in permission) return refuse(ctx, client, host, port, permission.reason);

  let address = host;
  if (isIP(host) === 0) {
    const addresses = await ctx.resolve(host).catch(() => [] as string[]);
    if (addresses.length === 0) {
      ctx.decided({ host, port, allowed: false, via: "dns", reason: "no address" });
      return finish(client, reply(502, "Bad Gateway", `Garuda's egress proxy could not resolve ${host}\n`));
    }
    const local = addresses.find(isLocalAddress);
    if (local && !permission.listed && ctx.options.localAddresses !== "any") {
      return refuse(
        ctx,
        client,
        host,
        port,
        `${host} resolves to a local address (${local}); list the exact host to allow it`,
      );
    }
    address = addresses.find((a) => isIP(a) === 4) ?? (addresses[0] as string);
  }

  const upstream = relayEnd();
  try {
    await Bun.connect<RelayEnd>({
      hostname: address,
      port,
      data: upstream,
      allowHalfOpen: true,
      socket: relayHandlers,
    });
  } catch (error) {
    ctx.decided({ host, port, allowed: false, via: "connect", reason: messageOf(error) });
    return finish(client, reply(502, "Bad Gateway", `Garuda's egress proxy could not connect to ${host}:${port}\n`));
  }
  ctx.decided({ host, port, allowed: true, via: permission.via });
  if (client.closed || client.phase !== "deciding") {
    upstream.socket?.end();
    return;
  }
  // The 200 goes first: a server that speaks first (SSH, SMTP) may already have sent bytes, held
  // in upstream.early, which link() passes on. What the client sent after its head goes before
  // link() too, which also passes on a FIN the client sent while the proxy was deciding.
  if (target.kind === "connect")
    sendTo(client, new TextEncoder().encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
  else if (framing) {
    // The Host the origin gets is the host the policy allowed, whatever the client's said.
    sendTo(upstream, new TextEncoder().encode(originHead(head, target.path, hostHeader(host, port), framing)));
    client.body = new RequestBody(framing);
  }
  for (const bytes of [rest, ...client.held]) {
    const part = toUpstream(client, bytes);
    if (part) sendTo(upstream, part);
  }
  client.held = [];
  client.heldBytes = 0;
  if (client.closed) {
    upstream.socket?.end();
    return;
  }
  client.phase = "relay";
  link(client, upstream);
  relayDrain(client);
  // From here on every chunk goes straight through toUpstream; reading resumes unless the relay
  // itself is holding the client back (the upstream's queue is already full).
  if (!client.paused) (client.socket as { resume?: () => void } | undefined)?.resume?.();
}

/**
 * The part of a client's bytes that goes to the origin: all of a tunnel's; a plain request's
 * body and nothing after it. Undefined when its chunked body is broken: the client is closed
 * (and with it the origin's connection, which has a request it cannot finish).
 */
export function toUpstream(client: ClientEnd, bytes: Uint8Array): Uint8Array | undefined {
  if (!client.body) return bytes;
  const part = client.body.take(bytes);
  if (part === undefined) client.socket?.terminate();
  return part;
}
