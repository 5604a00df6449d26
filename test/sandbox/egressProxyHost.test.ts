// Issue 31 item 7, attacked: a plain-HTTP request through the egress proxy reaches the host the
// policy allowed and nothing else. The origin here is a virtual-hosting front end on loopback (a
// CDN, a shared host): it serves whatever host a request's Host names, reads bare LF as a line
// end, and answers every request it reads on a connection, Connection: close or not, as lenient
// front ends do. "evil.test" being served there is the attack succeeding.
import { afterAll, describe, expect, test } from "bun:test";
import { type EgressProxy, startEgressProxy } from "../../src/sandbox/egressProxy.ts";

interface Served {
  host: string[];
  path: string;
  forwardedHost: string | undefined;
  body: string;
}

/** The front end: every request it reads, in order, with each Host header it carried. */
function frontEnd() {
  const served: Served[] = [];
  const server = Bun.listen<{ pending: string }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { pending: "" };
      },
      data(socket, bytes) {
        socket.data.pending += new TextDecoder().decode(bytes);
        for (;;) {
          const text = socket.data.pending;
          const end = /\r?\n\r?\n/.exec(text);
          if (!end) return;
          const lines = text.slice(0, end.index).split(/\r?\n/);
          const field = (name: string) =>
            lines
              .slice(1)
              .filter((line) => line.toLowerCase().startsWith(`${name}:`))
              .map((line) => line.slice(name.length + 1).trim());
          let bodyEnd = end.index + end[0].length;
          const length = Number(field("content-length")[0] ?? 0);
          if (field("transfer-encoding")[0]?.toLowerCase() === "chunked") {
            const last = text.indexOf("0\r\n\r\n", bodyEnd);
            if (last < 0) return;
            bodyEnd = last + 5;
          } else if (text.length < bodyEnd + length) return;
          else bodyEnd += length;
          const host = field("host");
          served.push({
            host,
            path: lines[0]?.split(" ")[1] ?? "",
            forwardedHost: field("x-forwarded-host")[0],
            body: text.slice(end.index + end[0].length, bodyEnd),
          });
          socket.data.pending = text.slice(bodyEnd);
          const answer = `served ${host.join(",")}${lines[0]?.split(" ")[1]}\n`;
          socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${answer.length}\r\n\r\n${answer}`);
        }
      },
    },
  });
  return { port: server.port, served, stop: () => server.stop(true) };
}

const front = frontEnd();
afterAll(() => front.stop());
const okHost = `ok.test:${front.port}`;
const resolve = async (host: string) => (host.endsWith(".test") ? ["127.0.0.1"] : []);
const auth = (token: string) => `Proxy-Authorization: Basic ${Buffer.from(`garuda:${token}`).toString("base64")}\r\n`;

async function withProxy(body: (proxy: EgressProxy) => Promise<void>) {
  // Only ok.test is allowed; evil.test (the same front end) is not.
  const proxy = await startEgressProxy({ allow: [okHost], resolve, ports: [front.port], localAddresses: "any" });
  try {
    await body(proxy);
  } finally {
    await proxy.close();
  }
}

const until = async (check: () => boolean, ms = 2000) => {
  for (let t = 0; t < ms && !check(); t += 20) await Bun.sleep(20);
  return check();
};

/**
 * Sends `request` (the token's header is `{auth}`) on one connection and returns all it got back
 * once it has `expect` (or the connection ended), plus a quiet moment for anything later.
 */
async function send(proxy: EgressProxy, request: string, expect: string): Promise<string> {
  let got = "";
  let ended = false;
  const socket = await Bun.connect({
    unix: proxy.socketPath,
    socket: {
      data: (_s, bytes) => void (got += new TextDecoder().decode(bytes)),
      end: () => void (ended = true),
      close: () => void (ended = true),
    },
  });
  socket.write(request.replaceAll("{auth}", auth(proxy.token)));
  await until(() => ended || got.includes(expect));
  await Bun.sleep(150);
  socket.end();
  return got;
}

const before = () => front.served.length;
const since = (start: number) => front.served.slice(start);

describe("the proxy's host is the host that was allowed (issue 31 item 7)", () => {
  test("control: an honest request reaches ok.test, with its Host", async () => {
    await withProxy(async (proxy) => {
      const start = before();
      const got = await send(proxy, `GET http://${okHost}/a HTTP/1.1\r\nHost: ${okHost}\r\n{auth}\r\n`, "served");
      expect(got).toContain(`served ${okHost}/a`);
      expect(since(start)).toEqual([{ host: [okHost], path: "/a", forwardedHost: undefined, body: "" }]);
    });
  });

  test("Host: evil.test on a request to ok.test: the front end is asked for ok.test", async () => {
    await withProxy(async (proxy) => {
      const start = before();
      const got = await send(proxy, `GET http://${okHost}/b HTTP/1.1\r\nHost: evil.test\r\n{auth}\r\n`, "served");
      expect(got).toContain(`served ${okHost}/b`);
      expect(since(start).map((s) => s.host)).toEqual([[okHost]]);
    });
  });

  test("two Host headers, or X-Forwarded-Host: only the allowed one reaches the front end", async () => {
    await withProxy(async (proxy) => {
      const start = before();
      await send(
        proxy,
        `GET http://${okHost}/c HTTP/1.1\r\nHost: ${okHost}\r\nHost: ` +
          `evil.test\r\nX-Forwarded-Host: evil.test\r\n{auth}\r\n`,
        "served",
      );
      expect(since(start)).toEqual([{ host: [okHost], path: "/c", forwardedHost: undefined, body: "" }]);
    });
  });

  test("a Host smuggled in another header's value by a bare LF: refused, the front end never reads it", async () => {
    await withProxy(async (proxy) => {
      const start = before();
      const got = await send(
        proxy,
        `GET http://${okHost}/d HTTP/1.1\r\nX-Note: a\nHost: evil.test\r\n{auth}\r\n`,
        "HTTP/1.1 400",
      );
      expect(got).toContain("400 Bad Request");
      expect(since(start)).toEqual([]);
    });
  });

  test(
    "a second request pipelined on the same connection, to a host that is not " +
      "allowed, never reaches the front end",
    async () => {
      await withProxy(async (proxy) => {
        const start = before();
        const got = await send(
          proxy,
          `GET http://${okHost}/first HTTP/1.1\r\nHost: ${okHost}\r\n{auth}\r\n` +
            `GET http://evil.test:${front.port}/second HTTP/1.1\r\nHost: evil.test\r\n{auth}\r\n`,
          "served",
        );
        expect(got).toContain(`served ${okHost}/first`);
        expect(since(start).map((s) => s.path)).toEqual(["/first"]);
      });
    },
  );

  test(
    "a request pipelined after a Content-Length body or a chunked one: the body " +
      "goes on, the request after it does not",
    async () => {
      await withProxy(async (proxy) => {
        const start = before();
        await send(
          proxy,
          `POST http://${okHost}/len HTTP/1.1\r\nContent-Length: 5\r\n{auth}\r\nhello` +
            `GET /next HTTP/1.1\r\nHost: evil.test\r\n\r\n`,
          "served",
        );
        await send(
          proxy,
          `POST http://${okHost}/chunked HTTP/1.1\r\nTransfer-Encoding: chunked\r\n{auth}\r\n5\r\nhello\r\n0\r\n\r\n` +
            `GET /next HTTP/1.1\r\nHost: evil.test\r\n\r\n`,
          "served",
        );
        expect(since(start)).toEqual([
          { host: [okHost], path: "/len", forwardedHost: undefined, body: "hello" },
          { host: [okHost], path: "/chunked", forwardedHost: undefined, body: "5\r\nhello\r\n0\r\n\r\n" },
        ]);
      });
    },
  );

  test("framings two parsers could read apart are refused before anything is sent", async () => {
    await withProxy(async (proxy) => {
      const start = before();
      const smuggled = `GET /x HTTP/1.1\r\nHost: evil.test\r\n\r\n`;
      const heads = [
        `POST http://${okHost}/s HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: ` +
          `chunked\r\n{auth}\r\n0\r\n\r\n${smuggled}`,
        `POST http://${okHost}/s HTTP/1.0\r\nTransfer-Encoding: chunked\r\n{auth}\r\n0\r\n\r\n${smuggled}`,
        `POST http://${okHost}/s HTTP/1.1\r\nContent-Length: 0\r\nContent-Length: 40\r\n{auth}\r\n${smuggled}`,
        `POST http://${okHost}/s HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n{auth}\r\n0\r\n\r\n${smuggled}`,
      ];
      for (const head of heads) expect(await send(proxy, head, "HTTP/1.1 400")).toContain("400 Bad Request");
      expect(since(start)).toEqual([]);
    });
  });

  test(
    "a chunked body whose framing breaks half-way: the connection is closed, " +
      "nothing after it is read as a request",
    async () => {
      await withProxy(async (proxy) => {
        const start = before();
        await send(
          proxy,
          `POST http://${okHost}/broken HTTP/1.1\r\nTransfer-Encoding: chunked\r\n{auth}\r\n5\r\nhelloXX0\r\n\r\n` +
            `GET /next HTTP/1.1\r\nHost: evil.test\r\n\r\n`,
          "never",
        );
        expect(since(start).some((s) => s.host.includes("evil.test"))).toBe(false);
      });
    },
  );
});

describe("plain HTTP through a tunnel (issue 31 item 7)", () => {
  test(
    "CONNECT to port 80 is refused: a tunnel there would carry any Host past the " +
      "proxy (control: a tunnel to a listed port opens)",
    async () => {
      const hits: string[] = [];
      const proxy = await startEgressProxy({
        allow: ["ok.test", okHost],
        resolve,
        ports: [80, 443, front.port],
        localAddresses: "any",
        onDecision: (decision) => hits.push(`${decision.host}:${decision.port} ${decision.allowed}`),
      });
      try {
        const refused = await send(proxy, "CONNECT ok.test:80 HTTP/1.1\r\n{auth}\r\n", "HTTP/1.1 403");
        expect(refused).toContain("403 Forbidden");
        expect(refused).toContain("not through CONNECT");
        expect(hits).toEqual(["ok.test:80 false"]);
        const open = await send(proxy, `CONNECT ${okHost} HTTP/1.1\r\n{auth}\r\n`, "\r\n\r\n");
        expect(open).toContain("200 Connection Established");
      } finally {
        await proxy.close();
      }
    },
  );
});
