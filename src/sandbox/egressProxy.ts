// Garuda's egress proxy: the only way out of a sandbox's network namespace. An HTTP proxy on a
// Unix socket in a private 0700 folder (and, for macOS, on a loopback TCP port), speaking CONNECT
// (https and anything tunnelled) and absolute-URI plain HTTP. Every request must carry the
// session's token (Proxy-Authorization: Basic, any user name); every host passes proxyPolicy.ts;
// an unknown host is put to the user through `askHost` (hostQuestions.ts: one question per host
// at a time, withdrawn when every connection waiting on it has gone). A refusal is a 403 whose
// body says why, so the model can read it. A connection let through is relayed unread (relay.ts).
//
// A plain-HTTP request goes to the origin rebuilt (httpHead.ts): its Host is the allowed host,
// and only its own body follows it (requestBody.ts), never a second request. Connections are
// bounded per proxy and per process, and a head must be complete in time (proxyAdmission.ts).
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { lookup } from "node:dns/promises";
import { rm } from "node:fs/promises";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Socket, SocketListener } from "bun";
import { messageOf } from "../errors/caught.ts";
import { type AskHost, type HostQuestions, createHostQuestions } from "./hostQuestions.ts";
import { HeadReader } from "./headReader.ts";
import {
  MAX_HEAD_BYTES,
  type RequestHead,
  bodyFraming,
  header,
  hostHeader,
  originHead,
  parseRequestHead,
  proxyTarget,
  reply,
} from "./httpHead.ts";
import {
  CONNECTIONS_PER_PROXY,
  HEAD_DEADLINE_MS,
  type ProxyConnectionBudget,
  authRequired,
  proxyAdmission,
  proxyConnectionBudget,
  tokenMatches,
} from "./proxyAdmission.ts";
import {
  type HostRule,
  type PolicyState,
  canonicalHost,
  decideHost,
  isLocalAddress,
  parseHostRule,
} from "./proxyPolicy.ts";
import { RequestBody } from "./requestBody.ts";
import {
  type RelayEnd,
  link,
  relayClosed,
  relayData,
  relayDrain,
  relayEnd,
  relayEnded,
  relayHandlers,
  sendTo,
} from "./relay.ts";
import type { SandboxNetwork } from "./types.ts";

export type { HostAnswer } from "./hostQuestions.ts";

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

/** Refused hosts remembered for refusedHosts(). */
const MAX_REFUSED = 100;

interface ClientEnd extends RelayEnd {
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

async function systemResolve(host: string): Promise<string[]> {
  const answers = await lookup(host, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

export async function startEgressProxy(options: EgressProxyOptions = {}): Promise<EgressProxy> {
  const token = randomBytes(24).toString("hex");
  const folder = mkdtempSync(join(options.dir ?? tmpdir(), "garuda-proxy-")); // mode 0700
  const socketPath = join(folder, "proxy.sock");
  const resolve = options.resolve ?? systemResolve;
  const state: PolicyState = {
    allow: (options.allow ?? []).map(parseHostRule),
    block: (options.block ?? []).map(parseHostRule),
    session: [],
    ports: options.ports ?? [80, 443],
    strict: options.strict ?? false,
    canAsk: options.askHost !== undefined,
  };
  /** Undefined without askHost: decideHost then never says "ask" (state.canAsk). */
  const questions: HostQuestions | undefined = options.askHost && createHostQuestions(options.askHost);
  const refused: string[] = [];
  const admission = proxyAdmission(
    options.maxConnections ?? CONNECTIONS_PER_PROXY,
    options.connections ?? proxyConnectionBudget(),
  );
  /** Every admitted client connection still open: close() ends them. */
  const clients = new Set<Socket<ClientEnd>>();
  const headDeadlineMs = options.headDeadlineMs ?? HEAD_DEADLINE_MS;

  const decided = (decision: ProxyDecision) => {
    if (!decision.allowed) refused.push(`${decision.host}:${decision.port}`);
    if (refused.length > MAX_REFUSED) refused.shift();
    options.onDecision?.(decision);
  };

  const finish = (client: ClientEnd, text: string) => {
    client.phase = "relay";
    client.endWhenFlushed = true;
    sendTo(client, new TextEncoder().encode(text));
  };
  const refuse = (client: ClientEnd, host: string, port: number, reason: string) => {
    decided({ host, port, allowed: false, via: "policy", reason });
    finish(
      client,
      reply(403, "Forbidden", `Garuda's egress proxy refused ${host}:${port}: ${reason}\n`, {
        "X-Proxy-Error": "blocked-by-allowlist",
      }),
    );
  };

  /**
   * A connection that ends (FIN) or closes while it waits for a question has gone: curl gave up,
   * the command ended. A CONNECT client sends nothing after its head until the tunnel opens, and
   * a plain-HTTP one that half-closes while a person is asked is rare enough to be refused too.
   */
  const gone = (client: ClientEnd) => questions?.gone(client);

  /** The policy's answer, asking the user when it says so: [allowed via, names the exact host] or a refusal. */
  async function permit(
    host: string,
    port: number,
    client: ClientEnd,
  ): Promise<{ via: string; listed: boolean } | { reason: string }> {
    const verdict = decideHost(state, host, port);
    if (verdict.kind === "deny") return { reason: verdict.reason };
    const vetoed = options.vetoHost?.(canonicalHost(host), port);
    if (vetoed !== undefined) return { reason: vetoed };
    if (verdict.kind === "allow")
      return { via: state.allow.includes(verdict.rule) ? "allowlist" : "session", listed: verdict.listed };
    const answer = await (questions as HostQuestions).ask(host, port, client);
    if (answer === "withdrawn") return { reason: "the connection ended before the user answered" };
    if (answer === "deny") return { reason: `the user refused ${host}` };
    const remember = options.rememberSessionAnswers ?? true;
    if (remember && answer === "session" && !state.session.some((rule) => rule.host === host))
      state.session.push({ host });
    return { via: answer, listed: false };
  }

  async function handle(client: ClientEnd, head: RequestHead, rest: Uint8Array): Promise<void> {
    if (!tokenMatches(header(head, "proxy-authorization"), token)) return finish(client, authRequired());
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
      return refuse(client, host, port, "plain HTTP goes to the proxy as an absolute http:// URL, not through CONNECT");
    const permission = await permit(host, port, client);
    // Answered meanwhile (refused for what it sent while it waited): the decision is not its any more.
    if (client.phase !== "deciding") return;
    if ("reason" in permission) return refuse(client, host, port, permission.reason);

    let address = host;
    if (isIP(host) === 0) {
      const addresses = await resolve(host).catch(() => [] as string[]);
      if (addresses.length === 0) {
        decided({ host, port, allowed: false, via: "dns", reason: "no address" });
        return finish(client, reply(502, "Bad Gateway", `Garuda's egress proxy could not resolve ${host}\n`));
      }
      const local = addresses.find(isLocalAddress);
      if (local && !permission.listed && options.localAddresses !== "any") {
        return refuse(
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
      decided({ host, port, allowed: false, via: "connect", reason: messageOf(error) });
      return finish(client, reply(502, "Bad Gateway", `Garuda's egress proxy could not connect to ${host}:${port}\n`));
    }
    decided({ host, port, allowed: true, via: permission.via });
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
  function toUpstream(client: ClientEnd, bytes: Uint8Array): Uint8Array | undefined {
    if (!client.body) return bytes;
    const part = client.body.take(bytes);
    if (part === undefined) client.socket?.terminate();
    return part;
  }

  /** Counts a new connection in, or answers it 503 and closes it; starts its head's deadline. */
  function admit(socket: Socket<ClientEnd>): void {
    const client = socket.data;
    const verdict = admission.admit();
    if (!verdict.admitted) {
      client.reader = undefined;
      return finish(client, reply(503, "Service Unavailable", `Garuda's egress proxy: ${verdict.reason}\n`));
    }
    client.admitted = true;
    clients.add(socket);
    client.headTimer = setTimeout(() => {
      if (client.phase !== "head") return;
      client.reader = undefined;
      finish(client, reply(408, "Request Timeout", `no complete request head within ${headDeadlineMs} ms\n`));
    }, headDeadlineMs);
  }

  /** The connection has closed: its place is given back. */
  function release(socket: Socket<ClientEnd>): void {
    const client = socket.data;
    clearTimeout(client.headTimer);
    client.reader = undefined;
    if (!client.admitted) return;
    client.admitted = false;
    clients.delete(socket);
    admission.release();
  }

  /** Holds a deciding client's reading back (its head and what came after it are already held). */
  function pauseClient(client: ClientEnd): void {
    (client.socket as { pause?: () => void } | undefined)?.pause?.();
  }

  const handlers = {
    binaryType: "uint8array" as const,
    open(socket: Socket<ClientEnd>) {
      socket.data = {
        ...relayEnd(),
        phase: "head",
        reader: new HeadReader("proxy-authorization"),
        held: [],
        heldBytes: 0,
        admitted: false,
        socket,
      };
      admit(socket);
    },
    data(socket: Socket<ClientEnd>, bytes: Uint8Array) {
      const client = socket.data;
      if (client.phase === "relay") {
        // Else it was answered (refused): what it sends now is dropped.
        const part = client.peer && toUpstream(client, bytes);
        if (part && client.peer) relayData(client, part);
        return;
      }
      if (client.phase === "deciding") {
        // Bun hands each read a buffer of its own: it is kept as it is. What a client sends ahead
        // while its host is decided is held, up to a head's size. Past that a plain-HTTP request
        // (its body) is paused; a CONNECT client is refused, since it has nothing to send before
        // its tunnel opens, and pausing it would hide its leaving (a paused Bun socket reports no
        // end or close) and keep its question up (gone()).
        client.held.push(bytes);
        client.heldBytes += bytes.byteLength;
        if (client.heldBytes > MAX_HEAD_BYTES) {
          if (client.connect) {
            gone(client);
            client.held = [];
            client.heldBytes = 0;
            finish(client, reply(400, "Bad Request", "data sent before the tunnel was open\n"));
          } else pauseClient(client);
        }
        return;
      }
      const reader = client.reader;
      if (!reader) return;
      const progress = reader.push(bytes);
      // The token is checked as soon as its header line is complete: a connection without it is
      // answered and closed before more of its head is held.
      if (reader.watched !== undefined && !client.tokenSeen) {
        if (!tokenMatches(reader.watched, token)) {
          client.reader = undefined;
          return finish(client, authRequired());
        }
        client.tokenSeen = true;
      }
      if (progress.kind === "more") return;
      client.reader = undefined;
      clearTimeout(client.headTimer);
      if (progress.kind === "tooLarge")
        return finish(client, reply(431, "Request Header Fields Too Large", "request head too large\n"));
      const head = parseRequestHead(progress.text);
      if (!head) return finish(client, reply(400, "Bad Request", "malformed request head\n"));
      // Not paused while deciding: a paused Bun socket reports no end or close, and a connection
      // that goes away while its host is asked about must withdraw the question (gone()).
      client.phase = "deciding";
      client.connect = head.method === "CONNECT";
      handle(client, head, progress.rest).catch((error: unknown) => {
        finish(client, reply(502, "Bad Gateway", `Garuda's egress proxy failed: ${messageOf(error)}\n`));
      });
    },
    drain(socket: Socket<ClientEnd>) {
      relayDrain(socket.data);
    },
    end(socket: Socket<ClientEnd>) {
      if (socket.data.phase === "relay") relayEnded(socket.data);
      else socket.data.ended = true; // link() passes it on once the request is let through
      gone(socket.data);
    },
    close(socket: Socket<ClientEnd>) {
      release(socket);
      gone(socket.data);
      relayClosed(socket.data);
    },
    error(socket: Socket<ClientEnd>) {
      release(socket);
      gone(socket.data);
      relayClosed(socket.data);
    },
  };

  const listeners: Array<SocketListener<ClientEnd>> = [];
  let tcpPort: number | undefined;
  try {
    listeners.push(Bun.listen<ClientEnd>({ unix: socketPath, allowHalfOpen: true, socket: handlers }));
    if (options.tcp) {
      const tcp = Bun.listen<ClientEnd>({ hostname: "127.0.0.1", port: 0, allowHalfOpen: true, socket: handlers });
      listeners.push(tcp);
      tcpPort = tcp.port;
    }
  } catch (error) {
    for (const listener of listeners) listener.stop(true);
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
  const network: SandboxNetwork =
    tcpPort === undefined ? { mode: "proxy", socketPath, token } : { mode: "proxy", socketPath, token, tcpPort };

  return {
    socketPath,
    token,
    tcpPort,
    network,
    allowHost(pattern) {
      const rule: HostRule = parseHostRule(pattern);
      state.allow.push(rule);
    },
    refusedHosts: () => [...refused],
    serve(fd) {
      // Bun.listen takes a listening descriptor at run time; bun-types does not declare it.
      const listener = Bun.listen<ClientEnd>({
        fd,
        allowHalfOpen: true,
        socket: handlers,
      } as unknown as Parameters<typeof Bun.listen<ClientEnd>>[0]);
      listeners.push(listener);
      return {
        stop() {
          // Its connections end with it; each one's upstream follows (relayClosed).
          listener.stop(true);
          const at = listeners.indexOf(listener);
          if (at >= 0) listeners.splice(at, 1);
        },
      };
    },
    get openConnections() {
      return admission.open;
    },
    async close() {
      // Every client connection ends with the proxy, whichever listener it came through.
      for (const socket of [...clients]) socket.terminate();
      for (const listener of listeners) listener.stop(true);
      await rm(folder, { recursive: true, force: true });
    },
  };
}
