// Garuda's egress proxy: the only way out of a sandbox's network namespace. An HTTP proxy on a
// Unix socket in a private 0700 folder (and, for macOS, on a loopback TCP port), speaking CONNECT
// (https and anything tunnelled) and absolute-URI plain HTTP. Every request must carry the
// session's token (Proxy-Authorization: Basic, any user name); every host passes proxyPolicy.ts;
// an unknown host is put to the user through `askHost` (hostQuestions.ts: one question per host
// at a time, withdrawn when every connection waiting on it has gone). A refusal is a 403 whose
// body says why, so the model can read it. A connection let through is relayed unread (relay.ts).
import { randomBytes, timingSafeEqual } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { lookup } from "node:dns/promises";
import { rm } from "node:fs/promises";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Socket, SocketListener } from "bun";
import { messageOf } from "../errors/caught.ts";
import { type AskHost, type HostQuestions, createHostQuestions } from "./hostQuestions.ts";
import {
  MAX_HEAD_BYTES,
  type RequestHead,
  headEnd,
  header,
  originHead,
  parseRequestHead,
  proxyTarget,
  reply,
} from "./httpHead.ts";
import {
  type HostRule,
  type PolicyState,
  canonicalHost,
  decideHost,
  isLocalAddress,
  parseHostRule,
} from "./proxyPolicy.ts";
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
  close(): Promise<void>;
}

/** Refused hosts remembered for refusedHosts(). */
const MAX_REFUSED = 100;

interface ClientEnd extends RelayEnd {
  phase: "head" | "deciding" | "relay";
  buffered: Uint8Array;
  /** Its request is a CONNECT. */
  connect?: boolean;
}

async function systemResolve(host: string): Promise<string[]> {
  const answers = await lookup(host, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

function tokenMatches(head: RequestHead, token: string): boolean {
  const value = header(head, "proxy-authorization");
  const basic = value && /^basic\s+(\S+)$/i.exec(value);
  if (!basic) return false;
  const decoded = Buffer.from(basic[1] as string, "base64").toString("utf8");
  const given = Buffer.from(decoded.slice(decoded.indexOf(":") + 1));
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const EMPTY = new Uint8Array(0);

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
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
    if (!tokenMatches(head, token)) {
      finish(
        client,
        reply(407, "Proxy Authentication Required", "Garuda's egress proxy needs the session token\n", {
          "Proxy-Authenticate": 'Basic realm="garuda"',
        }),
      );
      return;
    }
    const target = proxyTarget(head);
    if (target.kind === "invalid") {
      finish(client, reply(400, "Bad Request", `${target.reason}\n`));
      return;
    }
    const host = canonicalHost(target.host);
    const port = target.port;
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
    else
      sendTo(upstream, new TextEncoder().encode(originHead(head, target.path, port === 80 ? host : `${host}:${port}`)));
    sendTo(upstream, rest);
    sendTo(upstream, client.buffered);
    client.buffered = EMPTY;
    client.phase = "relay";
    link(client, upstream);
    relayDrain(client);
    // From here on every chunk goes straight through relayData; reading resumes unless the relay
    // itself is holding the client back (the upstream's queue is already full).
    if (!client.paused) (client.socket as { resume?: () => void } | undefined)?.resume?.();
  }

  /** Holds a deciding client's reading back (its head and what came after it are already held). */
  function pauseClient(client: ClientEnd): void {
    (client.socket as { pause?: () => void } | undefined)?.pause?.();
  }

  const handlers = {
    binaryType: "uint8array" as const,
    open(socket: Socket<ClientEnd>) {
      socket.data = { ...relayEnd(), phase: "head", buffered: EMPTY, socket };
    },
    data(socket: Socket<ClientEnd>, bytes: Uint8Array) {
      const client = socket.data;
      if (client.phase === "relay") {
        if (client.peer) relayData(client, bytes); // else it was answered (refused): what it sends now is dropped
        return;
      }
      // Bun hands each read a buffer of its own, so the first one is kept as it is.
      client.buffered = client.buffered.byteLength === 0 ? bytes : concat(client.buffered, bytes);
      if (client.phase === "deciding") {
        // What a client sends ahead while its host is decided is held, up to a head's size. Past
        // that a plain-HTTP request (its body) is paused; a CONNECT client is refused, since it
        // has nothing to send before its tunnel opens, and pausing it would hide its leaving
        // (a paused Bun socket reports no end or close) and keep its question up (gone()).
        if (client.buffered.byteLength > MAX_HEAD_BYTES) {
          if (client.connect) {
            gone(client);
            client.buffered = EMPTY;
            finish(client, reply(400, "Bad Request", "data sent before the tunnel was open\n"));
          } else pauseClient(client);
        }
        return;
      }
      const end = headEnd(client.buffered);
      if (end < 0) {
        if (client.buffered.byteLength > MAX_HEAD_BYTES)
          finish(client, reply(431, "Request Header Fields Too Large", "request head too large\n"));
        return;
      }
      const head = parseRequestHead(new TextDecoder().decode(client.buffered.subarray(0, end)));
      const rest = client.buffered.subarray(end);
      client.buffered = EMPTY;
      if (!head) return finish(client, reply(400, "Bad Request", "malformed request head\n"));
      // Not paused while deciding: a paused Bun socket reports no end or close, and a connection
      // that goes away while its host is asked about must withdraw the question (gone()).
      client.phase = "deciding";
      client.connect = head.method === "CONNECT";
      handle(client, head, rest).catch((error: unknown) => {
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
      gone(socket.data);
      relayClosed(socket.data);
    },
    error(socket: Socket<ClientEnd>) {
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
    async close() {
      for (const listener of listeners) listener.stop(true);
      await rm(folder, { recursive: true, force: true });
    },
  };
}
