import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { type EgressProxyOptions, type HostAnswer, startEgressProxy } from "../../src/sandbox/egressProxy.ts";
import { httpServer } from "../support/sandboxSupport.ts";

const server = httpServer(5 * 1024 * 1024);
afterAll(() => server.stop());

/** Every *.test name resolves to the loopback server's address. */
const resolve = async (host: string) => (host.endsWith(".test") ? ["127.0.0.1"] : []);

async function withProxy(
  options: EgressProxyOptions,
  body: (proxy: Awaited<ReturnType<typeof startEgressProxy>>, url: string) => Promise<void>,
) {
  const proxy = await startEgressProxy({ tcp: true, resolve, ...options });
  try {
    await body(proxy, `http://garuda:${proxy.token}@127.0.0.1:${proxy.tcpPort}`);
  } finally {
    await proxy.close();
  }
}

/** A raw exchange with the proxy over its Unix socket or TCP port: sends `request`, returns all it got back. */
async function exchange(target: { unix: string } | { port: number }, request: string, then?: string): Promise<string> {
  const chunks: string[] = [];
  const { promise, resolve: done } = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    ...("unix" in target ? { unix: target.unix } : { hostname: "127.0.0.1", port: target.port }),
    socket: {
      data(s, bytes) {
        chunks.push(new TextDecoder().decode(bytes));
        if (
          then &&
          chunks.join("").includes("200 Connection Established\r\n\r\n") &&
          !chunks.join("").includes("hello")
        )
          s.write(then);
      },
      close: () => done(),
      end: () => done(),
    },
  } as Parameters<typeof Bun.connect>[0]);
  socket.write(request);
  await promise;
  return chunks.join("");
}

const auth = (token: string) => `Proxy-Authorization: Basic ${Buffer.from(`garuda:${token}`).toString("base64")}\r\n`;

describe("egress proxy", () => {
  test("plain HTTP to a listed host:port is forwarded", async () => {
    await withProxy({ allow: [`svc.test:${server.port}`] }, async (_, proxy) => {
      const response = await fetch(server.url("/a", "svc.test"), { proxy });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe("hello /a\n");
    });
  });

  test("CONNECT over the Unix socket opens a tunnel", async () => {
    await withProxy({ allow: [`svc.test:${server.port}`] }, async (proxy) => {
      const request =
        `CONNECT svc.test:${server.port} HTTP/1.1\r\nHost: ` + `svc.test:${server.port}\r\n${auth(proxy.token)}\r\n`;
      const inner = `GET /tunnelled HTTP/1.1\r\nHost: svc.test\r\nConnection: close\r\n\r\n`;
      const answer = await exchange({ unix: proxy.socketPath }, request, inner);
      expect(answer.startsWith("HTTP/1.1 200 Connection Established\r\n\r\n")).toBe(true);
      expect(answer).toContain("hello /tunnelled");
    });
  });

  test(
    "a server that speaks first and hangs up (an SSH banner): the client gets the " +
      "200, then the banner, then the end",
    async () => {
      const banner = Bun.listen({
        hostname: "127.0.0.1",
        port: 0,
        socket: {
          open(socket) {
            socket.end("SSH-2.0-Test\r\n");
          },
          data() {},
        },
      });
      try {
        await withProxy({ allow: [`banner.test:${banner.port}`] }, async (proxy) => {
          const answer = await exchange(
            { unix: proxy.socketPath },
            `CONNECT banner.test:${banner.port} HTTP/1.1\r\n${auth(proxy.token)}\r\n`,
          );
          expect(answer).toBe("HTTP/1.1 200 Connection Established\r\n\r\nSSH-2.0-Test\r\n");
        });
      } finally {
        banner.stop(true);
      }
    },
  );

  test("5 MB arrive intact through the proxy", async () => {
    await withProxy({ allow: [`svc.test:${server.port}`] }, async (_, proxy) => {
      const body = new Uint8Array(await (await fetch(server.url("/big", "svc.test"), { proxy })).arrayBuffer());
      expect(body.byteLength).toBe(5 * 1024 * 1024);
      expect(body.every((byte) => byte === 97)).toBe(true);
    });
  });

  test("no token or a wrong one: 407, and the target is never contacted", async () => {
    await withProxy({ allow: [`svc.test:${server.port}`] }, async (proxy) => {
      const bare = await exchange(
        { unix: proxy.socketPath },
        `GET ${server.url("/x", "svc.test")} HTTP/1.1\r\nHost: svc.test\r\n\r\n`,
      );
      expect(bare).toStartWith("HTTP/1.1 407 ");
      expect(bare).toContain('Proxy-Authenticate: Basic realm="garuda"');
      const wrong = await exchange(
        { unix: proxy.socketPath },
        `GET ${server.url("/x", "svc.test")} HTTP/1.1\r\n${auth("nope")}\r\n`,
      );
      expect(wrong).toStartWith("HTTP/1.1 407 ");
      // negative control: the same request with the token goes through
      const good = await exchange(
        { unix: proxy.socketPath },
        `GET ${server.url("/x", "svc.test")} HTTP/1.1\r\nHost: svc.test\r\n${auth(proxy.token)}\r\n`,
      );
      expect(good).toStartWith("HTTP/1.1 200 ");
    });
  });

  test("refusals are 403 with a reason the model can read", async () => {
    await withProxy(
      { allow: [`svc.test:${server.port}`], block: ["bad.test"], ports: [80, 443, server.port] },
      async (proxy, url) => {
        const cases: Array<[string, string]> = [
          [server.url("/", "svc.test").replace(String(server.port), "9"), "port 9 is not allowed"],
          [server.url("/", "127.0.0.1"), "IP address 127.0.0.1 is refused"],
          [server.url("/", "bad.test"), "bad.test is blocked by policy"],
          [server.url("/", "unknown.test"), "unknown.test is not in the network allowlist"],
        ];
        for (const [target, reason] of cases) {
          const response = await fetch(target, { proxy: url });
          expect(response.status).toBe(403);
          expect(response.headers.get("x-proxy-error")).toBe("blocked-by-allowlist");
          expect(await response.text()).toContain(reason);
        }
        expect(proxy.refusedHosts()).toHaveLength(4);
      },
    );
  });

  test("an unknown host is asked about once at a time; 'session' sticks, 'once' does not, 'deny' refuses", async () => {
    const asked: string[] = [];
    const answers: Record<string, HostAnswer> = { "a.test": "session", "b.test": "once", "c.test": "deny" };
    const askHost = async (host: string, port: number) => {
      asked.push(`${host}:${port}`);
      await Bun.sleep(30);
      return answers[host] ?? "deny";
    };
    await withProxy({ askHost, ports: [server.port], localAddresses: "any" }, async (_, proxy) => {
      const get = (host: string) => fetch(server.url("/q", host), { proxy });
      const [first, second] = await Promise.all([get("a.test"), get("a.test")]);
      expect([first.status, second.status]).toEqual([200, 200]);
      expect((await get("a.test")).status).toBe(200);
      expect((await get("b.test")).status).toBe(200);
      expect((await get("b.test")).status).toBe(200);
      const refused = await get("c.test");
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain("the user refused c.test");
      const p = `:${server.port}`;
      expect(asked).toEqual([`a.test${p}`, `b.test${p}`, `b.test${p}`, `c.test${p}`]);
    });
  });

  test(
    "a question is withdrawn when every connection waiting for it has gone, not " + "before; the proxy waits no longer",
    async () => {
      const signals: AbortSignal[] = [];
      const { promise: asked, resolve: onAsked } = Promise.withResolvers<void>();
      const askHost = (_host: string, _port: number, signal: AbortSignal) =>
        new Promise<HostAnswer>((resolve) => {
          signals.push(signal);
          onAsked();
          // Answers only by its withdrawal: a person who never answers.
          signal.addEventListener("abort", () => resolve("deny"), { once: true });
        });
      await withProxy({ askHost, ports: [server.port], localAddresses: "any" }, async (proxy) => {
        const host = `w.test:${server.port}`;
        const head = `CONNECT ${host} HTTP/1.1\r\nHost: ${host}\r\n${auth(proxy.token)}\r\n`;
        const open = () => Bun.connect({ unix: proxy.socketPath, socket: { data() {} } });
        const first = await open();
        const second = await open();
        first.write(head);
        await asked;
        second.write(head);
        await Bun.sleep(50);
        expect(signals).toHaveLength(1);
        // One of two waiting connections gives up: the question stays (negative control).
        first.end();
        await Bun.sleep(100);
        expect(signals[0]?.aborted).toBe(false);
        // The last one gives up (curl's --max-time): withdrawn.
        second.end();
        for (let i = 0; i < 50 && !signals[0]?.aborted; i++) await Bun.sleep(20);
        expect(signals[0]?.aborted).toBe(true);
        // The host is asked about again by the next connection: nothing was kept from the withdrawn one.
        const third = await open();
        third.write(head);
        for (let i = 0; i < 50 && signals.length < 2; i++) await Bun.sleep(20);
        expect(signals).toHaveLength(2);
        third.end();
      });
    },
  );

  test("strict allowlist: unknown hosts are refused without a question", async () => {
    const asked: string[] = [];
    await withProxy(
      { strict: true, ports: [server.port], askHost: async (host) => (asked.push(host), "session") },
      async (_, proxy) => {
        expect((await fetch(server.url("/", "x.test"), { proxy })).status).toBe(403);
        expect(asked).toEqual([]);
      },
    );
  });

  test("a name the user allowed that resolves to loopback is refused; an exactly listed one is not", async () => {
    await withProxy(
      { allow: [`svc.test:${server.port}`], ports: [server.port], askHost: async () => "session" },
      async (_, proxy) => {
        const rebound = await fetch(server.url("/", "rebind.test"), { proxy });
        expect(rebound.status).toBe(403);
        expect(await rebound.text()).toContain("resolves to a local address (127.0.0.1)");
        expect((await fetch(server.url("/", "svc.test"), { proxy })).status).toBe(200);
      },
    );
  });

  test("allowHost adds a pattern for the rest of the session", async () => {
    await withProxy({ strict: true }, async (proxy, url) => {
      expect((await fetch(server.url("/", "late.test"), { proxy: url })).status).toBe(403);
      proxy.allowHost(`late.test:${server.port}`);
      expect((await fetch(server.url("/", "late.test"), { proxy: url })).status).toBe(200);
    });
  });

  test("the socket lives in a private 0700 folder that close() removes", async () => {
    const proxy = await startEgressProxy({});
    const folder = dirname(proxy.socketPath);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(proxy.network).toEqual({ mode: "proxy", socketPath: proxy.socketPath, token: proxy.token });
    await proxy.close();
    expect(existsSync(folder)).toBe(false);
  });

  test("malformed requests get 400", async () => {
    await withProxy({}, async (proxy) => {
      expect(
        await exchange({ unix: proxy.socketPath }, `CONNECT nohost HTTP/1.1\r\n${auth(proxy.token)}\r\n`),
      ).toStartWith("HTTP/1.1 400 ");
      expect(
        await exchange({ unix: proxy.socketPath }, `GET /relative HTTP/1.1\r\n${auth(proxy.token)}\r\n`),
      ).toStartWith("HTTP/1.1 400 ");
      expect(await exchange({ unix: proxy.socketPath }, "garbage\r\n\r\n")).toStartWith("HTTP/1.1 400 ");
    });
  });
});
