import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BRIDGE_FAILED, parseBridgeArgs, runBridge } from "../../src/sandbox/bridge.ts";
import { startEgressProxy } from "../../src/sandbox/egressProxy.ts";
import { tempDir } from "../support/tempDir.ts";
import { SELF_COMMAND, httpServer } from "./support.ts";

const server = httpServer();
afterAll(() => server.stop());

/** A port nothing listens on right now. */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

describe("parseBridgeArgs", () => {
  test("socket, port, then the command after --", () => {
    expect(parseBridgeArgs(["--socket", "/s.sock", "--port", "3128", "--", "bash", "-c", "true"])).toEqual({ socket: "/s.sock", port: 3128, argv: ["bash", "-c", "true"] });
  });

  test.each([[["--socket", "/s"]], [["--port", "1", "--", "true"]], [["--socket", "/s", "--port", "x", "--", "true"]], [["--bogus", "1", "--", "true"]]])("refuses %p", (args) => {
    expect(() => parseBridgeArgs(args)).toThrow();
  });
});

describe("runBridge (outside a sandbox, in this process)", () => {
  test("relays 127.0.0.1:<port> to the proxy's socket while the command runs, and returns its exit status", async () => {
    using dir = tempDir();
    const proxy = await startEgressProxy({ allow: [`svc.test:${server.port}`], resolve: async () => ["127.0.0.1"] });
    try {
      const port = freePort();
      const out = join(dir.path, "body");
      const fetchScript = `const r = await fetch(${JSON.stringify(server.url("/bridged", "svc.test"))}, { proxy: "http://garuda:${proxy.token}@127.0.0.1:${port}" }); await Bun.write(${JSON.stringify(out)}, await r.text()); process.exit(3);`;
      const status = await runBridge(["--socket", proxy.socketPath, "--port", String(port), "--", process.execPath, "-e", fetchScript]);
      expect(status).toBe(3);
      expect(readFileSync(out, "utf8")).toBe("hello /bridged\n");
    } finally {
      await proxy.close();
    }
  });

  test("a command killed by a signal gives 128 + its number", async () => {
    const proxy = await startEgressProxy({});
    try {
      expect(await runBridge(["--socket", proxy.socketPath, "--port", String(freePort()), "--", "bash", "-c", "kill -TERM $$"])).toBe(143);
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
      const proc = Bun.spawn([...SELF_COMMAND, "--socket", proxy.socketPath, "--port", String(freePort()), "--", "bash", "-c", "echo from-child; exit 4"], {
        env: { PATH: process.env.PATH ?? "" },
        stdout: "pipe",
      });
      expect(await new Response(proc.stdout).text()).toBe("from-child\n");
      expect(await proc.exited).toBe(4);
    } finally {
      await proxy.close();
    }
  });
});
