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
// This file owns the listeners and each connection until its head is read; what its request
// then does is proxyRequest.ts, the options and the interface egressProxyTypes.ts.
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { lookup } from "node:dns/promises";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Socket, SocketListener } from "bun";
import { messageOf } from "../errors/caught.ts";
import type { EgressProxy, EgressProxyOptions, ProxyDecision } from "./egressProxyTypes.ts";
import { type HostQuestions, createHostQuestions } from "./hostQuestions.ts";
import { HeadReader } from "./headReader.ts";
import { MAX_HEAD_BYTES, parseRequestHead, reply } from "./httpHead.ts";
import {
  CONNECTIONS_PER_PROXY,
  HEAD_DEADLINE_MS,
  authRequired,
  proxyAdmission,
  proxyConnectionBudget,
  tokenMatches,
} from "./proxyAdmission.ts";
import { type HostRule, type PolicyState, parseHostRule } from "./proxyPolicy.ts";
import { type ClientEnd, type ProxyRequestContext, finish, handleRequest, toUpstream } from "./proxyRequest.ts";
import { relayClosed, relayData, relayDrain, relayEnd, relayEnded } from "./relay.ts";
import type { SandboxNetwork } from "./types.ts";

export type { HostAnswer } from "./hostQuestions.ts";
export type { EgressProxy, EgressProxyOptions, ProxyDecision } from "./egressProxyTypes.ts";

/** Refused hosts remembered for refusedHosts(). */
const MAX_REFUSED = 100;

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
  const requests: ProxyRequestContext = { token, state, questions, options, resolve, decided };

  /**
   * A connection that ends (FIN) or closes while it waits for a question has gone: curl gave up,
   * the command ended. A CONNECT client sends nothing after its head until the tunnel opens, and
   * a plain-HTTP one that half-closes while a person is asked is rare enough to be refused too.
   */
  const gone = (client: ClientEnd) => questions?.gone(client);

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
      handleRequest(requests, client, head, progress.rest).catch((error: unknown) => {
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
