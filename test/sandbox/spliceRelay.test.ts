// The egress proxy's native relay (spliceRelay.ts): once a connection is let through, its bytes
// move by splice(2) in a thread, with the same ends as the JS relay (relay.ts): a FIN is passed on
// and the answer still comes back, a reset ends the connection, close() ends idle tunnels, and no
// descriptor is left. Each case runs with the native relay and, as the control, without it.
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { createHash } from "node:crypto";
import type { Socket } from "bun";
import { type EgressProxy, startEgressProxy } from "../../src/sandbox/egressProxy.ts";

const resolve = async () => ["127.0.0.1"];
const openFds = () => readdirSync("/proc/self/fd").length;
const auth = (token: string) => `Proxy-Authorization: Basic ${Buffer.from(`garuda:${token}`).toString("base64")}\r\n`;
const ESTABLISHED = "HTTP/1.1 200 Connection Established\r\n\r\n";

/** A raw TCP server: `onData`/`onEnd` get the server side's socket and everything it has read. */
function rawServer(handlers: { onData?: (socket: Socket<{ got: number[] }>, bytes: Uint8Array) => void; onEnd?: (socket: Socket<{ got: number[] }>) => void }) {
  return Bun.listen<{ got: number[] }>({
    hostname: "127.0.0.1",
    port: 0,
    allowHalfOpen: true,
    socket: {
      open(socket) {
        socket.data = { got: [] };
      },
      data(socket, bytes) {
        handlers.onData?.(socket, bytes);
      },
      end(socket) {
        handlers.onEnd?.(socket);
      },
    },
  });
}

/** A CONNECT tunnel through the proxy's Unix socket; resolves with what came back and how it ended. */
async function tunnel(proxy: EgressProxy, port: number, send: (socket: Socket<undefined>) => void) {
  const received: Uint8Array[] = [];
  const { promise: ended, resolve: done } = Promise.withResolvers<"end" | "close">();
  const { promise: opened, resolve: open } = Promise.withResolvers<Socket<undefined>>();
  let head: Uint8Array | undefined = new Uint8Array(0);
  const socket = await Bun.connect({
    unix: proxy.socketPath,
    allowHalfOpen: true,
    socket: {
      data(s, bytes) {
        if (!head) return void received.push(bytes);
        head = Buffer.concat([head, bytes]);
        if (head.byteLength < ESTABLISHED.length) return;
        expect(new TextDecoder().decode(head.subarray(0, ESTABLISHED.length))).toBe(ESTABLISHED);
        if (head.byteLength > ESTABLISHED.length) received.push(head.subarray(ESTABLISHED.length));
        head = undefined;
        open(s as Socket<undefined>);
      },
      end: () => done("end"),
      close: () => done("close"),
    },
  } as Parameters<typeof Bun.connect>[0]);
  socket.write(`CONNECT t.test:${port} HTTP/1.1\r\n${auth(proxy.token)}\r\n`);
  const client = await opened;
  send(client);
  return { ended, received: () => Buffer.concat(received), socket: client };
}

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

for (const splice of [true, false]) {
  describe(`egress proxy tunnels, ${splice ? "native splice relay" : "JS relay (control)"}`, () => {
    test("a client that half-closes after its request still gets the whole answer, then the end", async () => {
      const answer = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);
      let request = 0;
      const server = rawServer({
        onData: (_, bytes) => {
          request += bytes.byteLength;
        },
        onEnd: (socket) => {
          // Answers only after the client's FIN came through the proxy.
          let at = 0;
          const pump = () => {
            while (at < answer.byteLength) {
              const written = socket.write(answer.subarray(at, at + 256 * 1024));
              at += written;
              if (written === 0) return setTimeout(pump, 1);
            }
            socket.end();
          };
          pump();
        },
      });
      const proxy = await startEgressProxy({ allow: [`t.test:${server.port}`], resolve, splice });
      try {
        const open = await tunnel(proxy, server.port, (socket) => {
          socket.write("x".repeat(1000));
          socket.shutdown();
        });
        await open.ended;
        expect(request).toBe(1000);
        expect(sha(open.received())).toBe(sha(answer));
      } finally {
        await proxy.close();
        server.stop(true);
      }
    });

    test("20 MB sent up arrive intact; the native relay carries the tunnel while it is open", async () => {
      const upload = new Uint8Array(20 * 1024 * 1024).map((_, i) => (i * 7) % 256);
      const got: Uint8Array[] = [];
      const server = rawServer({
        onData: (_, bytes) => void got.push(bytes),
        onEnd: (socket) => void socket.end(sha(Buffer.concat(got))),
      });
      const proxy = await startEgressProxy({ allow: [`t.test:${server.port}`], resolve, splice });
      try {
        const open = await tunnel(proxy, server.port, () => {});
        expect(proxy.splicedConnections).toBe(splice ? 1 : 0);
        let at = 0;
        await new Promise<void>((sent) => {
          const pump = () => {
            while (at < upload.byteLength) {
              const written = open.socket.write(upload.subarray(at, at + 512 * 1024));
              at += written;
              if (written === 0) return void setTimeout(pump, 1);
            }
            open.socket.shutdown();
            sent();
          };
          pump();
        });
        await open.ended;
        expect(new TextDecoder().decode(open.received())).toBe(sha(upload));
        await Bun.sleep(50);
        expect(proxy.splicedConnections).toBe(0);
      } finally {
        await proxy.close();
        server.stop(true);
      }
    });

    test("a server that resets ends the client's connection", async () => {
      const server = rawServer({ onData: (socket) => socket.terminate() });
      const proxy = await startEgressProxy({ allow: [`t.test:${server.port}`], resolve, splice });
      try {
        const open = await tunnel(proxy, server.port, (socket) => void socket.write("hello"));
        expect(await Promise.race([open.ended, Bun.sleep(3000).then(() => "still open")])).not.toBe("still open");
      } finally {
        await proxy.close();
        server.stop(true);
      }
    });

    test("close() ends an idle tunnel, and no descriptor is left", async () => {
      const server = rawServer({});
      const proxy = await startEgressProxy({ allow: [`t.test:${server.port}`], resolve, splice });
      // Warm up first (the native relay's one-time load opens and keeps what it needs).
      const warm = await tunnel(proxy, server.port, (socket) => void socket.end());
      await warm.ended;
      await Bun.sleep(50);
      const before = openFds();
      const open = await tunnel(proxy, server.port, () => {});
      expect(openFds()).toBeGreaterThan(before);
      await proxy.close();
      expect(await Promise.race([open.ended, Bun.sleep(3000).then(() => "still open")])).not.toBe("still open");
      server.stop(true);
      await Bun.sleep(100);
      expect(openFds()).toBeLessThanOrEqual(before - 1); // the proxy's own listener is gone too
    });
  });
}
