// Red team of the egress proxy's question withdrawal (NOTES-chatfix.md item 1): real sockets
// against the real proxy, each attack a sandboxed client could make on its own connections.
import { afterAll, describe, expect, test } from "bun:test";
import {
  type EgressProxy,
  type EgressProxyOptions,
  type HostAnswer,
  startEgressProxy,
} from "../../src/sandbox/egressProxy.ts";
import { httpServer } from "../support/sandboxSupport.ts";

const server = httpServer();
afterAll(() => server.stop());
const resolve = async (host: string) => (host.endsWith(".test") ? ["127.0.0.1"] : []);
const auth = (token: string) => `Proxy-Authorization: Basic ${Buffer.from(`garuda:${token}`).toString("base64")}\r\n`;

async function withProxy(options: EgressProxyOptions, body: (proxy: EgressProxy) => Promise<void>) {
  const proxy = await startEgressProxy({ resolve, ports: [server.port], localAddresses: "any", ...options });
  try {
    await body(proxy);
  } finally {
    await proxy.close();
  }
}

/** A raw client over the proxy's socket: what it got back, and whether the proxy ended it. */
async function client(proxy: EgressProxy, allowHalfOpen = false) {
  let got = "";
  const { promise: ended, resolve: onEnd } = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    unix: proxy.socketPath,
    allowHalfOpen,
    socket: { data: (_s, b) => void (got += new TextDecoder().decode(b)), close: () => onEnd(), end: () => onEnd() },
  });
  return { socket, ended, got: () => got };
}

/** An askHost that records each question and its signal, and answers when told. */
function person() {
  const questions: Array<{ host: string; signal: AbortSignal; answer: (a: HostAnswer) => void }> = [];
  const askHost = (host: string, _port: number, signal: AbortSignal) =>
    new Promise<HostAnswer>((answer) => {
      questions.push({ host, signal, answer });
    });
  return { questions, askHost };
}

const until = async (check: () => boolean, ms = 2000) => {
  for (let t = 0; t < ms && !check(); t += 20) await Bun.sleep(20);
  return check();
};

describe("egress proxy withdrawal, attacked", () => {
  test(
    "a client that sends more than a head's worth while it waits, then leaves: the " + "question is still withdrawn",
    async () => {
      const p = person();
      await withProxy({ askHost: p.askHost }, async (proxy) => {
        const c = await client(proxy);
        c.socket.write(`CONNECT stuck.test:${server.port} HTTP/1.1\r\n${auth(proxy.token)}\r\n`);
        expect(await until(() => p.questions.length === 1)).toBe(true);
        // 256 KiB while deciding: the proxy pauses the client past 64 KiB.
        c.socket.write(new Uint8Array(256 * 1024).fill(120));
        await Bun.sleep(100);
        c.socket.end();
        expect(await until(() => p.questions[0]?.signal.aborted === true)).toBe(true);
        expect(c.got()).not.toContain("200 Connection Established");
      });
    },
  );

  test(
    "control: a plain-HTTP request whose body passes a head's worth while it waits " +
      "is held, not refused, and goes through on a yes",
    async () => {
      const p = person();
      await withProxy({ askHost: p.askHost }, async (proxy) => {
        const c = await client(proxy);
        const body = new Uint8Array(256 * 1024).fill(120);
        c.socket.write(
          `POST http://big.test:${server.port}/upload HTTP/1.1\r\nHost: ` +
            `big.test\r\nContent-Length: ${body.byteLength}\r\n${auth(proxy.token)}\r\n`,
        );
        expect(await until(() => p.questions.length === 1)).toBe(true);
        // Bun's socket takes what it can now: the rest is written as it takes more (the proxy pauses
        // the client past a head's worth while it decides).
        let sent = c.socket.write(body);
        await Bun.sleep(100);
        expect(p.questions[0]?.signal.aborted).toBe(false);
        p.questions[0]?.answer("once");
        while (sent < body.byteLength) {
          sent += Math.max(0, c.socket.write(body.subarray(sent)));
          if (sent < body.byteLength) await Bun.sleep(1);
        }
        await c.ended;
        expect(c.got()).toContain("hello /upload");
      });
    },
  );

  test(
    "an answer that comes after the withdrawal lets nothing through, and a " +
      "connection that comes meanwhile is asked, not refused unasked",
    async () => {
      const p = person();
      await withProxy({ askHost: p.askHost }, async (proxy) => {
        const head = `CONNECT late.test:${server.port} HTTP/1.1\r\n${auth(proxy.token)}\r\n`;
        const first = await client(proxy);
        first.socket.write(head);
        expect(await until(() => p.questions.length === 1)).toBe(true);
        first.socket.end();
        expect(await until(() => p.questions[0]?.signal.aborted === true)).toBe(true);
        // The front end takes a moment to take its question down; a new connection comes now.
        const second = await client(proxy);
        second.socket.write(head);
        await Bun.sleep(100);
        // The withdrawn question's answer arrives late (the user had pressed y): no tunnel for anyone on it.
        p.questions[0]?.answer("once");
        await Bun.sleep(100);
        expect(first.got()).not.toContain("200 Connection Established");
        // The second connection is alive and its host was never put to the user for it: it must be asked.
        expect(second.got()).not.toContain("the connection ended before the user answered");
        expect(await until(() => p.questions.length === 2)).toBe(true);
        p.questions[1]?.answer("deny");
        await second.ended;
        expect(second.got()).toContain("the user refused late.test");
      });
    },
  );

  test(
    "a request pipelined behind an allowed plain-HTTP one goes to the allowed " +
      "server only, never to the host it names",
    async () => {
      const other = httpServer();
      const hits: string[] = [];
      const spy = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: (r) => (hits.push(r.url), new Response("spy\n")),
      });
      try {
        await withProxy(
          { allow: [`ok.test:${server.port}`], ports: [server.port, spy.port as number] },
          async (proxy) => {
            const c = await client(proxy);
            c.socket.write(
              `GET http://ok.test:${server.port}/one HTTP/1.1\r\nHost: ok.test\r\n${auth(proxy.token)}\r\n` +
                (`GET http://evil.test:${spy.port}/two HTTP/1.1\r\nHost: ` +
                  `evil.test:${spy.port}\r\n${auth(proxy.token)}\r\n`),
            );
            await c.ended;
            expect(c.got()).toContain("hello /one");
            expect(hits).toEqual([]);
          },
        );
      } finally {
        spy.stop(true);
        other.stop();
      }
    },
  );

  test("closing one of two connections to a host, or half-closing the other, never turns into an allow", async () => {
    const p = person();
    await withProxy({ askHost: p.askHost }, async (proxy) => {
      const head = `CONNECT two.test:${server.port} HTTP/1.1\r\n${auth(proxy.token)}\r\n`;
      const a = await client(proxy);
      const b = await client(proxy, true);
      a.socket.write(head);
      b.socket.write(head);
      expect(await until(() => p.questions.length === 1)).toBe(true);
      a.socket.end();
      await Bun.sleep(100);
      expect(p.questions[0]?.signal.aborted).toBe(false);
      b.socket.shutdown();
      expect(await until(() => p.questions[0]?.signal.aborted === true)).toBe(true);
      // The user's yes lands after the withdrawal: still nothing through.
      p.questions[0]?.answer("once");
      await b.ended;
      expect(b.got()).toContain("403");
      expect(b.got()).not.toContain("200 Connection Established");
      expect(p.questions[0]?.signal.aborted).toBe(true);
      expect(p.questions).toHaveLength(1);
    });
  });
});
