// The egress proxy's native relay (nativeRelay.ts): once a connection is let through, its bytes
// move by recv()/send() in a thread, with the same ends as the JS relay (relay.ts): a FIN is passed on
// and the answer still comes back, a reset ends the connection, close() ends idle tunnels, and no
// descriptor is left; a client that stops reading costs no CPU; the threads are bounded and
// named, end with their connections, and the C is compiled once per process. Each case runs with
// the native relay and, as the control, without it.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { createHash } from "node:crypto";
import type { Socket } from "bun";
import { type EgressProxy, startEgressProxy } from "../../src/sandbox/egressProxy.ts";
import { MAX_NATIVE_RELAYS } from "../../src/sandbox/nativeRelay.ts";

const resolve = async () => ["127.0.0.1"];
const openFds = () => readdirSync("/proc/self/fd").length;
/** The native relay's threads in this process (nativeRelay.c.ts names them). */
const relayThreads = () =>
  readdirSync("/proc/self/task").filter((task) => {
    try {
      return readFileSync(`/proc/self/task/${task}/comm`, "utf8").trim() === "garuda-relay";
    } catch {
      return false; // ended meanwhile
    }
  }).length;
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** A server in a process of its own (its CPU is not this one's) that, once a client sent a byte, writes `chunk`-byte segments as fast as they are taken. */
async function floodServer(chunk: number) {
  const proc = Bun.spawn(
    [
      process.execPath,
      "-e",
      `const net = require("node:net");
const s = net.createServer((c) => { c.setNoDelay(true); c.on("error", () => {}); const b = Buffer.alloc(${chunk}, 97);
  const pump = () => { while (c.write(b)); c.once("drain", pump); }; c.once("data", pump); });
s.listen(0, "127.0.0.1", () => console.log(s.address().port));`,
    ],
    { stdout: "pipe", env: { PATH: process.env.PATH ?? "" } },
  );
  const { value } = await proc.stdout.getReader().read();
  return { port: Number(new TextDecoder().decode(value)), [Symbol.dispose]: () => proc.kill("SIGKILL") };
}
const auth = (token: string) => `Proxy-Authorization: Basic ${Buffer.from(`garuda:${token}`).toString("base64")}\r\n`;
const ESTABLISHED = "HTTP/1.1 200 Connection Established\r\n\r\n";

/** A raw TCP server: `onData`/`onEnd` get the server side's socket and everything it has read. */
function rawServer(handlers: {
  onData?: (socket: Socket<{ got: number[] }>, bytes: Uint8Array) => void;
  onEnd?: (socket: Socket<{ got: number[] }>) => void;
}) {
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

for (const native of [true, false]) {
  describe(`egress proxy tunnels, ${native ? "native relay" : "JS relay (control)"}`, () => {
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
      const proxy = await startEgressProxy({ allow: [`t.test:${server.port}`], resolve, nativeRelay: native });
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

    test("a TCP client that half-closes and reads slower than its server sends still gets the whole answer and a clean end (the native relay's last close reset it: Bun's terminate() sets SO_LINGER 0)", async () => {
      const size = 8 * 1024 * 1024;
      const server = rawServer({
        onEnd: (socket) => {
          const answer = new Uint8Array(size).fill(97);
          let at = 0;
          const pump = () => {
            while (at < answer.byteLength) {
              const written = socket.write(answer.subarray(at, at + 256 * 1024));
              at += written;
              if (written === 0) return void setTimeout(pump, 1);
            }
            socket.end();
          };
          pump();
        },
      });
      const proxy = await startEgressProxy({
        allow: [`t.test:${server.port}`],
        resolve,
        nativeRelay: native,
        tcp: true,
      });
      // The client in a process of its own, over TCP (a sandboxed command's way in): its request,
      // its FIN, a second without reading (the answer waits in the kernel's buffers), then all of it.
      const client = Bun.spawn(
        [
          process.execPath,
          "-e",
          `const net = require("node:net");
const c = net.connect({ host: "127.0.0.1", port: ${proxy.tcpPort}, allowHalfOpen: true });
let head = "", got = 0, error = "";
c.on("error", (e) => { error = e.code || String(e); });
c.on("data", (d) => {
  if (head !== null) {
    head += d.toString("latin1");
    const at = head.indexOf("\\r\\n\\r\\n");
    if (at < 0) return;
    got += head.length - at - 4;
    head = null;
    c.end("GET / HTTP/1.0\\r\\n\\r\\n");
    c.pause();
    setTimeout(() => c.resume(), 1000);
  } else got += d.length;
});
c.on("close", () => console.log(JSON.stringify({ got, error })));
c.write("CONNECT t.test:${server.port} HTTP/1.1\\r\\n${auth(proxy.token).replaceAll("\r\n", "\\r\\n")}\\r\\n");`,
        ],
        { stdout: "pipe", env: { PATH: process.env.PATH ?? "" } },
      );
      try {
        const said = JSON.parse(await new Response(client.stdout).text()) as { got: number; error: string };
        expect(said).toEqual({ got: size, error: "" });
      } finally {
        client.kill("SIGKILL");
        await proxy.close();
        server.stop(true);
      }
    }, 20_000);

    test("20 MB sent up arrive intact; the native relay carries the tunnel while it is open", async () => {
      const upload = new Uint8Array(20 * 1024 * 1024).map((_, i) => (i * 7) % 256);
      const got: Uint8Array[] = [];
      const server = rawServer({
        onData: (_, bytes) => void got.push(bytes),
        onEnd: (socket) => void socket.end(sha(Buffer.concat(got))),
      });
      const proxy = await startEgressProxy({ allow: [`t.test:${server.port}`], resolve, nativeRelay: native });
      try {
        const open = await tunnel(proxy, server.port, () => {});
        expect(proxy.nativeConnections).toBe(native ? 1 : 0);
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
        expect(proxy.nativeConnections).toBe(0);
      } finally {
        await proxy.close();
        server.stop(true);
      }
    });

    test("a server that resets ends the client's connection", async () => {
      const server = rawServer({ onData: (socket) => socket.terminate() });
      const proxy = await startEgressProxy({ allow: [`t.test:${server.port}`], resolve, nativeRelay: native });
      try {
        const open = await tunnel(proxy, server.port, (socket) => void socket.write("hello"));
        expect(await Promise.race([open.ended, Bun.sleep(3000).then(() => "still open")])).not.toBe("still open");
      } finally {
        await proxy.close();
        server.stop(true);
      }
    });

    test("a server that answers, ends and resets an upload it did not read: the answer still reaches the client (what a failed side sent before is read)", async () => {
      // The server, in a process of its own: at a connection's first bytes it answers, ends its
      // side and closes with the rest of the upload unread, which resets the connection; the
      // answer, the end and the reset often all wait at the proxy when its relay next looks.
      const answer = "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\n\r\n";
      const serverProc = Bun.spawn(
        [
          process.execPath,
          "-e",
          `const net = require("node:net");
const s = net.createServer({ allowHalfOpen: true }, (c) => { c.on("error", () => {}); c.once("data", () => { c.pause(); c.end(${JSON.stringify(answer)}, () => c.destroy()); }); });
s.listen(0, "127.0.0.1", () => console.log(s.address().port));`,
        ],
        { stdout: "pipe", env: { PATH: process.env.PATH ?? "" } },
      );
      const port = Number(new TextDecoder().decode((await serverProc.stdout.getReader().read()).value));
      const proxy = await startEgressProxy({ allow: [`t.test:${port}`], resolve, nativeRelay: native });
      try {
        for (let round = 0; round < 20; round++) {
          let stop = false;
          const open = await tunnel(proxy, port, (socket) => {
            const chunk = new Uint8Array(256 * 1024).fill(120);
            const pump = () => {
              while (!stop && socket.write(chunk) > 0);
              if (!stop) setTimeout(pump, 1);
            };
            pump();
          });
          expect(await Promise.race([open.ended, Bun.sleep(5000).then(() => "still open")])).not.toBe("still open");
          stop = true;
          expect(new TextDecoder().decode(open.received())).toBe(answer);
        }
      } finally {
        await proxy.close();
        serverProc.kill("SIGKILL");
      }
    });

    test("stopping a served listener (a session network's socket) ends the tunnels that came through it", async () => {
      const { dlopen, ptr } = await import("bun:ffi");
      const libc = dlopen(process.platform === "linux" ? "libc.so.6" : "libc.dylib", {
        socket: { args: ["i32", "i32", "i32"], returns: "i32" },
        bind: { args: ["i32", "ptr", "u32"], returns: "i32" },
        listen: { args: ["i32", "i32"], returns: "i32" },
      });
      const path = `${dirname(import.meta.path)}/.served-${process.pid}-${native}.sock`;
      const fd = libc.symbols.socket(1, 1 | 0o2000000, 0);
      const address = new Uint8Array(110);
      new DataView(address.buffer).setUint16(0, 1, true);
      address.set(new TextEncoder().encode(path), 2);
      expect(libc.symbols.bind(fd, ptr(address), 110)).toBe(0);
      expect(libc.symbols.listen(fd, 16)).toBe(0);
      const server = rawServer({ onData: (socket, bytes) => void socket.write(bytes) });
      const proxy = await startEgressProxy({ allow: [`t.test:${server.port}`], resolve, nativeRelay: native });
      const served = proxy.serve(fd);
      try {
        const { promise: ended, resolve: done } = Promise.withResolvers<string>();
        const { promise: open, resolve: opened } = Promise.withResolvers<void>();
        const socket = await Bun.connect({
          unix: path,
          allowHalfOpen: true,
          socket: { data: () => opened(), end: () => done("end"), close: () => done("close") },
        } as Parameters<typeof Bun.connect>[0]);
        socket.write(`CONNECT t.test:${server.port} HTTP/1.1\r\n${auth(proxy.token)}\r\n`);
        await open;
        expect(proxy.nativeConnections).toBe(native ? 1 : 0);
        served.stop();
        expect(await Promise.race([ended, Bun.sleep(2000).then(() => "still open")])).not.toBe("still open");
      } finally {
        await proxy.close();
        server.stop(true);
        rmSync(path, { force: true });
      }
    });

    test("close() ends an idle tunnel, and no descriptor is left", async () => {
      const server = rawServer({});
      const proxy = await startEgressProxy({ allow: [`t.test:${server.port}`], resolve, nativeRelay: native });
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

    test("a client that closes an idle tunnel to a server that ignores its FIN: the connection goes at once", async () => {
      // The JS relay sees the Unix socket's close; the native one first kept the thread and its
      // descriptors until the server or the session ended.
      const server = rawServer({}); // reads, never answers, never closes
      const proxy = await startEgressProxy({ allow: [`t.test:${server.port}`], resolve, nativeRelay: native });
      try {
        const warm = await tunnel(proxy, server.port, () => {});
        warm.socket.terminate();
        for (let i = 0; i < 50 && (proxy.nativeConnections > 0 || relayThreads() > 0); i++) await Bun.sleep(20);
        await Bun.sleep(50);
        const before = openFds();
        const open = await tunnel(proxy, server.port, (socket) => void socket.write("hello"));
        expect(proxy.nativeConnections).toBe(native ? 1 : 0);
        open.socket.terminate();
        for (let i = 0; i < 50 && (proxy.nativeConnections > 0 || relayThreads() > 0); i++) await Bun.sleep(20);
        expect(proxy.nativeConnections).toBe(0);
        expect(relayThreads()).toBe(0);
        await Bun.sleep(50);
        expect(openFds()).toBeLessThanOrEqual(before + 1); // the server's own end, which it keeps
      } finally {
        await proxy.close();
        server.stop(true);
      }
    });

    test("a client that stops reading while the server floods small segments costs no CPU, and nothing is left when it goes", async () => {
      // Small segments fill the pipe's slots long before its bytes: the first version then spun
      // on a readable socket it could not read (1.2-1.7 s of CPU in 2 s; the JS relay pauses).
      using server = await floodServer(100);
      const proxy = await startEgressProxy({ allow: [`t.test:${server.port}`], resolve, nativeRelay: native });
      try {
        const open = await tunnel(proxy, server.port, (socket) => void socket.write("x"));
        (open.socket as Socket<undefined> & { pause(): void }).pause();
        await Bun.sleep(1000); // everything between the server and the client fills up
        expect(proxy.nativeConnections).toBe(native ? 1 : 0);
        expect(relayThreads()).toBe(native ? 1 : 0);
        const before = cpuMs();
        await Bun.sleep(1500);
        expect(cpuMs() - before).toBeLessThan(300);
        open.socket.terminate();
        for (let i = 0; i < 50 && (proxy.nativeConnections > 0 || relayThreads() > 0); i++) await Bun.sleep(20);
        expect(proxy.nativeConnections).toBe(0);
        expect(relayThreads()).toBe(0);
      } finally {
        await proxy.close();
      }
    }, 20_000);
  });
}

describe("egress proxy, native relay bounds", () => {
  test(`past ${MAX_NATIVE_RELAYS} open connections the JS relay carries the rest, each works, and every thread and descriptor goes with its connection`, async () => {
    const echo = rawServer({
      onData: (socket, bytes) => void socket.write(bytes),
      onEnd: (socket) => void socket.end(),
    });
    const proxy = await startEgressProxy({ allow: [`t.test:${echo.port}`], resolve });
    try {
      const warm = await tunnel(proxy, echo.port, (socket) => void socket.end());
      await warm.ended;
      await Bun.sleep(50);
      const fdsBefore = openFds();
      const count = MAX_NATIVE_RELAYS + 8;
      const tunnels = [];
      for (let i = 0; i < count; i++) tunnels.push(await tunnel(proxy, echo.port, () => {}));
      // A thread names itself as it starts: give the last ones a moment.
      for (let i = 0; i < 50 && relayThreads() < MAX_NATIVE_RELAYS; i++) await Bun.sleep(20);
      expect(proxy.nativeConnections).toBe(MAX_NATIVE_RELAYS);
      expect(relayThreads()).toBe(MAX_NATIVE_RELAYS);
      for (const [i, open] of tunnels.entries()) {
        open.socket.write(`ping ${i}`);
        open.socket.shutdown();
      }
      await Promise.all(tunnels.map((open) => open.ended));
      expect(tunnels.map((open) => open.received().toString())).toEqual(tunnels.map((_, i) => `ping ${i}`));
      // A thread ends before its end reaches the proxy's JS (a callback on the event loop): wait for both.
      for (let i = 0; i < 100 && (relayThreads() > 0 || proxy.nativeConnections > 0); i++) await Bun.sleep(20);
      expect(proxy.nativeConnections).toBe(0);
      expect(relayThreads()).toBe(0);
      await Bun.sleep(50);
      expect(openFds()).toBeLessThanOrEqual(fdsBefore);
    } finally {
      await proxy.close();
      echo.stop(true);
    }
  }, 30_000);

  test("the C is compiled once per process, not once per proxy (session)", async () => {
    const server = rawServer({ onEnd: (socket) => void socket.end() });
    const written: boolean[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const proxy = await startEgressProxy({ allow: [`t.test:${server.port}`], resolve });
        const open = await tunnel(proxy, server.port, () => {});
        expect(proxy.nativeConnections).toBe(1);
        written.push(existsSync(join(dirname(proxy.socketPath), "native-relay.c")));
        open.socket.shutdown();
        await open.ended;
        await proxy.close();
      }
      // The first proxy of this file compiled it already, or the first of these two did.
      expect(written.filter(Boolean).length).toBeLessThanOrEqual(1);
    } finally {
      server.stop(true);
    }
  });
});
