import { afterAll, describe, expect, test } from "bun:test";
import type { Socket } from "bun";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BRIDGE_FAILED, parseBridgeArgs, runBridge } from "../../src/sandbox/bridge.ts";
import { startEgressProxy } from "../../src/sandbox/egressProxy.ts";
import { tempDir } from "../support/tempDir.ts";
import { SELF_COMMAND, httpServer } from "../support/sandboxSupport.ts";

const server = httpServer();
afterAll(() => server.stop());

/** A port nothing listens on right now. */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/**
 * The command a large-transfer test runs behind the bridge: one CONNECT tunnel that reads the
 * payload slowly (its socket pauses after every read), then one that sends the payload and reads
 * the answer. Writes { down: { size, sha256 }, up: <answer> } as JSON.
 *   bun -e TUNNEL_CLIENT <bridge port> <token> <download host:port> <upload host:port> <payload file> <out file>
 */
const TUNNEL_CLIENT = String.raw`
const [port, token, downTarget, upTarget, payloadPath, outPath] = process.argv.slice(-6);
const payload = await Bun.file(payloadPath).bytes();
function tunnel(target, send) {
  const { promise, resolve, reject } = Promise.withResolvers();
  const hasher = new Bun.CryptoHasher("sha256");
  const received = [];
  let head = new Uint8Array(0), open = false, size = 0, sent = 0, finished = false;
  const pump = (s) => {
    if (!open || !send || finished) return;
    while (sent < payload.byteLength) { const n = s.write(payload.subarray(sent)); if (n <= 0) return; sent += n; }
    finished = true;
    s.shutdown(); // a FIN: the answer still comes back
  };
  Bun.connect({ hostname: "127.0.0.1", port: Number(port), allowHalfOpen: true, socket: {
    open(s) {
      const auth = "Proxy-Authorization: Basic " + btoa("garuda:" + token);
      s.write("CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n" + auth + "\r\n\r\n");
    },
    data(s, bytes) {
      if (!open) {
        head = Buffer.concat([head, bytes]);
        const end = head.indexOf("\r\n\r\n");
        if (end < 0) return;
        if (!head.toString("latin1").startsWith("HTTP/1.1 200 ")) return reject(new Error(head.toString()));
        open = true;
        bytes = head.subarray(end + 4);
        pump(s);
      }
      hasher.update(bytes);
      size += bytes.byteLength;
      if (send) received.push(new TextDecoder().decode(bytes));
      s.pause();
      setTimeout(() => s.resume(), 1);
    },
    drain: pump,
    end(s) { s.end(); },
    // a socket that half-closed first gets no "end", only "close"
    close() { resolve(send ? received.join("") : { size, sha256: hasher.digest("hex") }); },
    error(_s, e) { reject(e); },
  } }).catch(reject);
  return promise;
}
const down = await tunnel(downTarget, false);
const up = await tunnel(upTarget, true);
await Bun.write(outPath, JSON.stringify({ down, up }));
`;

describe("parseBridgeArgs", () => {
  test("socket, port, then the command after --", () => {
    expect(parseBridgeArgs(["--socket", "/s.sock", "--port", "3128", "--", "bash", "-c", "true"])).toEqual({
      socket: "/s.sock",
      port: 3128,
      argv: ["bash", "-c", "true"],
    });
  });

  test.each([
    [["--socket", "/s"]],
    [["--port", "1", "--", "true"]],
    [["--socket", "/s", "--port", "x", "--", "true"]],
    [["--bogus", "1", "--", "true"]],
  ])("refuses %p", (args) => {
    expect(() => parseBridgeArgs(args)).toThrow();
  });
});

describe("runBridge (outside a sandbox, in this process)", () => {
  test(
    "relays 127.0.0.1:<port> to the proxy's socket while the command runs, and " + "returns its exit status",
    async () => {
      using dir = tempDir();
      const proxy = await startEgressProxy({ allow: [`svc.test:${server.port}`], resolve: async () => ["127.0.0.1"] });
      try {
        const port = freePort();
        const out = join(dir.path, "body");
        const fetchScript =
          `const r = await fetch(${JSON.stringify(server.url("/bridged", "svc.test"))}, { ` +
          `proxy: "http://garuda:${proxy.token}@127.0.0.1:${port}" }); await ` +
          `Bun.write(${JSON.stringify(out)}, await r.text()); process.exit(3);`;
        const status = await runBridge([
          "--socket",
          proxy.socketPath,
          "--port",
          String(port),
          "--",
          process.execPath,
          "-e",
          fetchScript,
        ]);
        expect(status).toBe(3);
        expect(readFileSync(out, "utf8")).toBe("hello /bridged\n");
      } finally {
        await proxy.close();
      }
    },
  );

  test("20 MB each way through bridge + proxy arrive byte-identical, with slow readers at both ends", async () => {
    using dir = tempDir();
    const size = 20 * 1024 * 1024;
    const payload = new Uint8Array(size);
    for (let i = 0, x = 0x2545f491; i < size; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      payload[i] = x & 0xff;
    }
    const expected = new Bun.CryptoHasher("sha256").update(payload).digest("hex");
    const payloadPath = join(dir.path, "payload");
    writeFileSync(payloadPath, payload);

    type Origin = { hasher: Bun.CryptoHasher; got: number; sent: number };
    /** Sends the payload as fast as the socket takes it, then hangs up. */
    const send = (socket: Socket<Origin>) => {
      while (socket.data.sent < size) {
        const written = socket.write(payload.subarray(socket.data.sent));
        if (written <= 0) return;
        socket.data.sent += written;
      }
      socket.end();
    };
    const origin = (mode: "download" | "upload") =>
      Bun.listen<Origin>({
        hostname: "127.0.0.1",
        port: 0,
        allowHalfOpen: true,
        socket: {
          open(socket) {
            socket.data = { hasher: new Bun.CryptoHasher("sha256"), got: 0, sent: 0 };
            if (mode === "download") send(socket);
          },
          drain(socket) {
            if (mode === "download") send(socket);
          },
          // The upload's reader is slow too: it pauses after every read.
          data(socket, bytes) {
            socket.data.hasher.update(bytes);
            socket.data.got += bytes.byteLength;
            socket.pause();
            setTimeout(() => socket.resume(), 1);
          },
          end(socket) {
            if (mode === "upload") socket.end(`${socket.data.got} ${socket.data.hasher.digest("hex")}`);
          },
        },
      });
    const download = origin("download");
    const upload = origin("upload");
    const proxy = await startEgressProxy({
      allow: [`dl.test:${download.port}`, `ul.test:${upload.port}`],
      resolve: async () => ["127.0.0.1"],
    });
    try {
      const port = freePort();
      const out = join(dir.path, "result.json");
      const argv = [String(port), proxy.token, `dl.test:${download.port}`, `ul.test:${upload.port}`, payloadPath, out];
      const status = await runBridge([
        "--socket",
        proxy.socketPath,
        "--port",
        String(port),
        "--",
        process.execPath,
        "-e",
        TUNNEL_CLIENT,
        ...argv,
      ]);
      expect(status).toBe(0);
      expect(JSON.parse(readFileSync(out, "utf8"))).toEqual({
        down: { size, sha256: expected },
        up: `${size} ${expected}`,
      });
    } finally {
      download.stop(true);
      upload.stop(true);
      await proxy.close();
    }
  }, 30_000);

  test("a command killed by a signal gives 128 + its number", async () => {
    const proxy = await startEgressProxy({});
    try {
      expect(
        await runBridge([
          "--socket",
          proxy.socketPath,
          "--port",
          String(freePort()),
          "--",
          "bash",
          "-c",
          "kill -TERM $$",
        ]),
      ).toBe(143);
    } finally {
      await proxy.close();
    }
  });

  test("bad arguments: the command does not run", async () => {
    expect(await runBridge(["--socket", "/nowhere"])).toBe(BRIDGE_FAILED);
  });

  test("the source entry point runs the same bridge", async () => {
    const proxy = await startEgressProxy({});
    try {
      const proc = Bun.spawn(
        [
          ...SELF_COMMAND,
          "--socket",
          proxy.socketPath,
          "--port",
          String(freePort()),
          "--",
          "bash",
          "-c",
          "echo from-child; exit 4",
        ],
        {
          env: { PATH: process.env.PATH ?? "" },
          stdout: "pipe",
        },
      );
      expect(await new Response(proc.stdout).text()).toBe("from-child\n");
      expect(await proc.exited).toBe(4);
    } finally {
      await proxy.close();
    }
  });
});
