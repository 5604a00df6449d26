// The native relay (nativeRelay.ts) inside the compiled binary, as an editor runs it:
// `garuda acp` with the real sandbox, a sandboxed curl downloading through the session's egress
// proxy from a loopback server that holds the answer half-sent, so the connection can be looked
// at while it is open. In the agent process: the relay thread (garuda-relay) is there while the
// download runs and gone after it ends, after a cancel mid-download, and no descriptor is left;
// the idle agent spends no CPU; closing stdin mid-download still ends the process with 0.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Socket } from "bun";
import * as acp from "@agentclientprotocol/sdk";
import { startAgent } from "../support/acpAgent.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { until } from "../support/processes.ts";
import { makeTempDir } from "../support/tempDir.ts";
import { probeSandbox } from "../../src/sandbox/probe.ts";
import { garudaBinary } from "../support/garudaBinary.ts";

const BODY = 8 * 1024 * 1024;
let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-relay-compiled-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const relayThreads = (pid: number) =>
  readdirSync(`/proc/${pid}/task`).filter((task) => {
    try {
      return readFileSync(`/proc/${pid}/task/${task}/comm`, "utf8").trim() === "garuda-relay";
    } catch {
      return false;
    }
  }).length;
const fdCount = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
/** utime + stime of the whole process, in clock ticks (1/100 s). */
const cpuTicks = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
};

/** An HTTP server that sends the head and the first MiB of an 8 MiB body, and the rest when released. */
function heldServer() {
  const held: Array<Socket<undefined>> = [];
  const body = new Uint8Array(BODY).fill(97);
  const pump = (socket: Socket<undefined>, from: number) => {
    let at = from;
    const push = () => {
      while (at < BODY) {
        const written = socket.write(body.subarray(at, at + 256 * 1024));
        if (written === 0) return void setTimeout(push, 2);
        at += written;
      }
    };
    push();
  };
  const server = Bun.listen<undefined>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket) {
        socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${BODY}\r\nConnection: close\r\n\r\n`);
        socket.write(body.subarray(0, 1024 * 1024));
        held.push(socket);
      },
      error() {},
    },
  });
  return {
    port: server.port,
    held,
    release: () => {
      for (const socket of held.splice(0)) pump(socket, 1024 * 1024);
    },
    stop: () => server.stop(true),
  };
}

const probe = await probeSandbox({ env: process.env, tmpDir: "/tmp", root: "/tmp" });
const sandboxed = probe.launcher?.kind === "bwrap" && Bun.which("curl") !== null;

test.skipIf(!sandboxed)(
  "compiled binary: a sandboxed download is relayed natively; thread and descriptors go after the end, after a cancel; idle costs no CPU; stdin closed mid-download exits 0",
  async () => {
    const server = heldServer();
    const url = `http://127.0.0.1:${server.port}/file`;
    // NO_PROXY names the loopback addresses (env.ts): the proxy is named outright.
    const curl = `curl -sS --noproxy '' -x "$http_proxy" -o /dev/null -w 'got=%{size_download}' ${url}`;
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_get", input: { command: curl } }] },
        { steps: [{ type: "text", text: "Downloaded." }] },
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_get_2", input: { command: `${curl} # again` } }] },
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_get_3", input: { command: `${curl} # last` } }] },
      ],
    });
    const root = makeTempDir("root-", { under: work });
    const home = makeTempDir("home-", { under: work });
    // The loopback server's address, listed as such (an IP literal is refused unless it is).
    mkdirSync(join(home, ".garuda"), { recursive: true });
    writeFileSync(
      join(home, ".garuda", "policy.json"),
      JSON.stringify({ network: { allow: [`127.0.0.1:${server.port}`] } }),
    );
    const { proc, agent, connection, updates } = startAgent(binary, mock, root, work, undefined, home);
    try {
      await agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
      const fdsIdle = fdCount(proc.pid);

      // 1. A download held half-way: the native relay carries it, then ends with it.
      const first = agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "Download it." }],
      });
      await until(
        () => (server.held.length > 0 && relayThreads(proc.pid) === 1 ? true : undefined),
        "the download to be relayed natively",
        30_000,
      );
      server.release();
      expect((await first).stopReason).toBe("end_turn");
      const result = JSON.stringify(mock.requests.at(-1)?.body?.messages ?? []);
      expect(result).toContain(`got=${BODY}`);
      await until(() => (relayThreads(proc.pid) === 0 ? true : undefined), "the relay thread to end", 5_000);
      const fdsAfter = fdCount(proc.pid);

      // 2. Idle: the agent spends (next to) nothing.
      await Bun.sleep(300);
      const ticks = cpuTicks(proc.pid);
      await Bun.sleep(1500);
      expect(cpuTicks(proc.pid) - ticks).toBeLessThan(15); // < 150 ms in 1.5 s

      // 3. Cancelled mid-download: curl is ended, the thread and the descriptors go.
      const second = agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "Again." }],
      });
      await until(
        () => (server.held.length > 0 && relayThreads(proc.pid) === 1 ? true : undefined),
        "the second download to be relayed natively",
        30_000,
      );
      await agent.notify(acp.methods.agent.session.cancel, { sessionId });
      expect((await second).stopReason).toBe("cancelled");
      await until(
        () => (relayThreads(proc.pid) === 0 ? true : undefined),
        "the relay thread to end after the cancel",
        5_000,
      );
      await until(
        () => (fdCount(proc.pid) <= fdsAfter ? true : undefined),
        `the agent's descriptors back to ${fdsAfter} (idle before the turns: ${fdsIdle})`,
        5_000,
      );
      for (const socket of server.held.splice(0)) socket.end();

      // 4. stdin closed while a natively relayed download is held: the agent still exits, with 0.
      void agent
        .request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Last." }] })
        .catch(() => {});
      await until(
        () => (server.held.length > 0 && relayThreads(proc.pid) === 1 ? true : undefined),
        "the third download to be relayed natively",
        30_000,
      );
      proc.stdin.end();
      expect(await Promise.race([proc.exited, Bun.sleep(10_000).then(() => "still running")])).toBe(0);
      expect(updates.length).toBeGreaterThan(0);
    } finally {
      connection.close();
      proc.kill("SIGKILL");
      server.stop();
    }
  },
  180_000,
);
