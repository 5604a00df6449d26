// Each bound of the egress proxy's admission (proxyAdmission.ts) against real sockets, with its
// control: the per-proxy cap, the process-wide budget shared by two proxies, the head's deadline
// and size, and the token checked as soon as its line is complete.
import { afterAll, describe, expect, test } from "bun:test";
import { type EgressProxy, type EgressProxyOptions, startEgressProxy } from "../../src/sandbox/egressProxy.ts";
import { proxyAdmission, proxyConnectionBudget } from "../../src/sandbox/proxyAdmission.ts";
import { httpServer } from "../support/sandboxSupport.ts";

const server = httpServer();
afterAll(() => server.stop());
const resolve = async (host: string) => (host.endsWith(".test") ? ["127.0.0.1"] : []);
const auth = (token: string) => `Proxy-Authorization: Basic ${Buffer.from(`garuda:${token}`).toString("base64")}\r\n`;
const halfHead = (token: string) => `GET http://svc.test:${server.port}/ HTTP/1.1\r\n${auth(token)}X-Pad: `;

const proxies: EgressProxy[] = [];
afterAll(() => Promise.all(proxies.map((proxy) => proxy.close())));
async function proxy(options: EgressProxyOptions = {}): Promise<EgressProxy> {
  const started = await startEgressProxy({
    allow: [`svc.test:${server.port}`],
    ports: [server.port],
    resolve,
    localAddresses: "any",
    ...options,
  });
  proxies.push(started);
  return started;
}

const until = async (check: () => boolean, ms = 3000) => {
  for (let t = 0; t < ms && !check(); t += 20) await Bun.sleep(20);
  return check();
};

/** A raw connection to `proxy` that sends `text`: what it got back and whether the proxy ended it. */
async function connection(target: EgressProxy, text: string) {
  const state = { got: "", ended: false };
  const socket = await Bun.connect({
    unix: target.socketPath,
    socket: {
      data: (_s, bytes) => void (state.got += new TextDecoder().decode(bytes)),
      end: () => void (state.ended = true),
      close: () => void (state.ended = true),
    },
  });
  socket.write(text);
  return { state, socket };
}

/** A CONNECT head with a `pad`-byte header: the proxy reads it whole, and the origin never sees it. */
const paddedConnect = (token: string, pad: number) =>
  `CONNECT svc.test:${server.port} HTTP/1.1\r\n${auth(token)}X-Pad: ${"a".repeat(pad)}\r\n\r\n`;

const fullRequest = (token: string, path = "/ok") =>
  `GET http://svc.test:${server.port}${path} HTTP/1.1\r\n${auth(token)}\r\n`;

describe("egress proxy admission", () => {
  test(
    "the per-proxy cap: past it a connection is answered 503 and closed, and a " +
      "place freed is taken again (control: under it, through)",
    async () => {
      const capped = await proxy({ maxConnections: 5 });
      const held = await Promise.all(Array.from({ length: 5 }, () => connection(capped, halfHead(capped.token))));
      expect(await until(() => capped.openConnections === 5)).toBe(true);
      const over = await connection(capped, fullRequest(capped.token));
      expect(await until(() => over.state.ended)).toBe(true);
      expect(over.state.got).toContain("503 Service Unavailable");
      expect(over.state.got).toContain("already has 5 connections open");
      expect(held.every((c) => !c.state.ended)).toBe(true);
      held[0]?.socket.end();
      expect(await until(() => capped.openConnections === 4)).toBe(true);
      const again = await connection(capped, fullRequest(capped.token, "/again"));
      expect(await until(() => again.state.ended)).toBe(true);
      expect(again.state.got).toContain("hello /again");
      for (const c of held) c.socket.end();
    },
  );

  test(
    "the process-wide budget is shared by the proxies given it (control: a proxy " +
      "with a budget of its own is not held back)",
    async () => {
      const budget = proxyConnectionBudget(6);
      const a = await proxy({ connections: budget, maxConnections: 100 });
      const b = await proxy({ connections: budget, maxConnections: 100 });
      const own = await proxy({ maxConnections: 100 });
      const held = await Promise.all(Array.from({ length: 6 }, () => connection(a, halfHead(a.token))));
      expect(await until(() => budget.open === 6)).toBe(true);
      const fromB = await connection(b, fullRequest(b.token));
      expect(await until(() => fromB.state.ended)).toBe(true);
      expect(fromB.state.got).toContain("503 Service Unavailable");
      expect(fromB.state.got).toContain("all sessions together already have 6 connections open");
      const fromOwn = await connection(own, fullRequest(own.token, "/own"));
      expect(await until(() => fromOwn.state.ended)).toBe(true);
      expect(fromOwn.state.got).toContain("hello /own");
      // Closing a proxy gives its places back to the budget.
      for (const c of held) c.socket.end();
      await a.close();
      expect(await until(() => budget.open === 0)).toBe(true);
      const later = await connection(b, fullRequest(b.token, "/later"));
      expect(await until(() => later.state.ended)).toBe(true);
      expect(later.state.got).toContain("hello /later");
    },
  );

  test(
    "a head not complete by the deadline is answered 408 and closed (control: one " + "completed in time goes through)",
    async () => {
      const quick = await proxy({ headDeadlineMs: 300 });
      const slow = await connection(quick, halfHead(quick.token));
      const inTime = await connection(quick, halfHead(quick.token));
      await Bun.sleep(100);
      inTime.socket.write("1\r\n\r\n");
      expect(await until(() => slow.state.ended)).toBe(true);
      expect(slow.state.got).toContain("408 Request Timeout");
      expect(await until(() => inTime.state.ended)).toBe(true);
      expect(inTime.state.got).toContain("hello /");
      expect(quick.openConnections).toBe(0);
    },
  );

  test("a head past 64 KiB, ended or not, is answered 431 (control: a long head under it goes through)", async () => {
    const p = await proxy();
    const long = await connection(p, `${halfHead(p.token)}${"a".repeat(70 * 1024)}`);
    expect(await until(() => long.state.ended)).toBe(true);
    expect(long.state.got).toContain("431");
    // Also when it arrives whole, its end included.
    const whole = await connection(p, paddedConnect(p.token, 70 * 1024));
    expect(await until(() => whole.state.ended)).toBe(true);
    expect(whole.state.got).toContain("431");
    const under = await connection(p, paddedConnect(p.token, 60 * 1024));
    expect(await until(() => under.state.got.includes("\r\n\r\n"))).toBe(true);
    expect(under.state.got).toContain("200 Connection Established");
    under.socket.end();
  });

  test(
    "a wrong token is answered 407 as soon as its line is complete, before the head " +
      "ends (control: the right one waits for the rest)",
    async () => {
      const p = await proxy();
      const wrong = await connection(
        p,
        `GET http://svc.test:${server.port}/ HTTP/1.1\r\n${auth("not-the-token")}X-Pad: `,
      );
      const right = await connection(p, halfHead(p.token));
      expect(await until(() => wrong.state.ended, 1000)).toBe(true);
      expect(wrong.state.got).toContain("407 Proxy Authentication Required");
      await Bun.sleep(100);
      expect(right.state.ended).toBe(false);
      expect(right.state.got).toBe("");
      right.socket.write("1\r\n\r\n");
      expect(await until(() => right.state.ended)).toBe(true);
      expect(right.state.got).toContain("hello /");
    },
  );

  test("a head that arrives in small pieces, its CRLFs split between them, is read as one", async () => {
    const p = await proxy();
    const text = paddedConnect(p.token, 8 * 1024);
    const c = await connection(p, "");
    for (let i = 0; i < text.length; i += 3) {
      c.socket.write(text.slice(i, i + 3));
      if (i % 300 === 0) await Bun.sleep(0);
    }
    expect(await until(() => c.state.got.includes("\r\n\r\n"))).toBe(true);
    expect(c.state.got).toContain("200 Connection Established");
    c.socket.end();
  });

  test("the count: places are taken up to each cap and given back", () => {
    const shared = proxyConnectionBudget(3);
    const one = proxyAdmission(2, shared);
    const two = proxyAdmission(2, shared);
    expect([one.admit().admitted, one.admit().admitted, one.admit().admitted]).toEqual([true, true, false]);
    expect([two.admit().admitted, two.admit().admitted]).toEqual([true, false]);
    one.release();
    expect(two.admit().admitted).toBe(true);
    expect(shared.open).toBe(3);
  });
});
