// Where the native relay cannot be built (no TinyCC in this Bun, a platform without it), the egress
// proxy relays every connection in JavaScript (spliceRelay.ts): the tunnel works both ways, half-
// close included, and nothing is counted as spliced. `bun:ffi`'s cc is replaced by one that throws,
// as on a build without TinyCC; this file runs in a process of its own, so the process-wide
// relay is loaded (and fails) here first. The control (the real cc: spliced) is spliceRelay.test.ts.
import { expect, mock, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ffi = await import("bun:ffi");
let compileCalls = 0;
mock.module("bun:ffi", () => ({
  ...ffi,
  cc: () => {
    compileCalls++;
    throw new Error("TinyCC is not available in this build");
  },
}));

const { startEgressProxy } = await import("../../src/sandbox/egressProxy.ts");
const { loadSpliceRelays } = await import("../../src/sandbox/spliceRelay.ts");

test("no TinyCC: loadSpliceRelays says so with undefined, and does not throw", () => {
  const folder = mkdtempSync(join(tmpdir(), "garuda-splice-fallback-"));
  try {
    expect(loadSpliceRelays(folder)).toBeUndefined();
    expect(compileCalls).toBe(1); // the replaced cc was the one asked
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("no TinyCC: tunnels go through the JS relay, whole answers after a half-close, and the compile is tried once", async () => {
  const server = Bun.listen<{ got: string }>({
    hostname: "127.0.0.1",
    port: 0,
    allowHalfOpen: true,
    socket: {
      open: (socket) => void (socket.data = { got: "" }),
      data: (socket, bytes) => void (socket.data.got += new TextDecoder().decode(bytes)),
      end: (socket) => void socket.end(`echo:${socket.data.got}`),
    },
  });
  const proxy = await startEgressProxy({ allow: [`t.test:${server.port}`], resolve: async () => ["127.0.0.1"] });
  const before = compileCalls;
  try {
    for (const round of [1, 2]) {
      const { promise: ended, resolve: end } = Promise.withResolvers<string>();
      let text = "";
      let spliced = -1;
      const socket = await Bun.connect({
        unix: proxy.socketPath,
        allowHalfOpen: true,
        socket: {
          data(s, bytes) {
            text += new TextDecoder().decode(bytes);
            if (spliced < 0 && text.includes("\r\n\r\n")) {
              spliced = proxy.splicedConnections;
              s.write(`round ${round}`);
              s.shutdown();
            }
          },
          end: () => end(text),
          close: () => end(text),
        },
      });
      socket.write(`CONNECT t.test:${server.port} HTTP/1.1\r\nProxy-Authorization: Basic ${Buffer.from(`g:${proxy.token}`).toString("base64")}\r\n\r\n`);
      expect(await ended).toBe(`HTTP/1.1 200 Connection Established\r\n\r\necho:round ${round}`);
      expect(spliced).toBe(0);
    }
    // Tried at the first connection let through, not again for the second.
    expect(compileCalls - before).toBeLessThanOrEqual(1);
  } finally {
    await proxy.close();
    server.stop(true);
  }
});
