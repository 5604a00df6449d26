// A stop stops everything it started, in the compiled `garuda acp` with the real sandbox: a
// command on the host (approved to leave the sandbox) and one in the sandbox, each detaching
// `setsid sleep …` and a double-forked daemon, as process_manager jobs and as a running bash
// call. After a cancel, session/close, stdin closed, SIGTERM, and SIGKILL of the agent, none of
// their processes is alive (checked by pid in /proc). The host half fails without the process
// keeper (src/sandbox/keeper.ts): the daemons are re-parented away from the command's tree.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import * as acp from "@agentclientprotocol/sdk";
import { describeSandbox, detached, detachingCommand, eventually, marker } from "../support/sandboxSupport.ts";
import { startAgent } from "../support/acpAgent.ts";
import { type MockAnthropic, startMockAnthropic } from "../support/mockAnthropic.ts";
import type { MockResponse } from "../support/mockAnthropicScript.ts";
import { alive } from "../support/processes.ts";
import { makeTempDir } from "../support/tempDir.ts";
import { garudaBinary } from "../support/garudaBinary.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-acp-stop-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

type Where = "host" | "sandbox";
const call = (name: "bash" | "process_manager", where: Where, tag: string): MockResponse => ({
  steps: [
    {
      type: "tool_use" as const,
      name,
      id: `toolu_${name}_${where}_${tag.replace(".", "_")}`,
      input: {
        ...(name === "process_manager" && { action: "start" }),
        command: detachingCommand(tag),
        ...(where === "host" && { outside_sandbox: true }),
      },
    },
  ],
});

/**
 * A session whose turn has started a background job on the host and one in the sandbox, and now runs a bash call on the
 * host: 9 processes in all.
 */
async function busyAgent(model: MockAnthropic) {
  const tags = { hostJob: marker(), boxJob: marker(), hostRun: marker() };
  model.enqueue(
    call("process_manager", "host", tags.hostJob),
    call("process_manager", "sandbox", tags.boxJob),
    call("bash", "host", tags.hostRun),
  );
  const root = makeTempDir("root-", { under: work });
  const agent = startAgent(binary, model, root, work);
  await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
  const turn = agent.agent
    .request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Start them." }] })
    .catch(() => undefined);
  const all = Object.values(tags);
  await eventually(() => all.every((tag) => detached(tag).length === 3), 20_000);
  const pids = all.flatMap(detached);
  expect(pids).toHaveLength(9);
  return { ...agent, sessionId, turn, pids };
}

const scripted = (script: MockResponse[] = []) => startMockAnthropic({ apiKey: "sk-ant-process-test", script });

describeSandbox(
  "garuda acp: a stop ends every process a command started, on the host and in the sandbox",
  () => {
    test("cancel: the cancelled command's daemons end, on the host and in the sandbox", async () => {
      const [host, box] = [marker(), marker()];
      await using mock = scripted([call("bash", "host", host), call("bash", "sandbox", box)]);
      const root = makeTempDir("root-", { under: work });
      const { agent, proc, connection } = startAgent(binary, mock, root, work);
      await agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
      for (const tag of [host, box]) {
        const turn = agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "Run it." }],
        });
        await eventually(() => detached(tag).length === 3, 15_000);
        const pids = detached(tag);
        await agent.notify(acp.methods.agent.session.cancel, { sessionId });
        expect((await turn).stopReason).toBe("cancelled");
        await eventually(() => pids.filter(alive).length === 0, 5_000);
      }
      expect(alive(proc.pid)).toBe(true);
      proc.stdin.end();
      expect(await proc.exited).toBe(0);
      connection.close();
    }, 90_000);

    test("session/close: the session's background jobs and its running command end; the agent goes on", async () => {
      await using mock = scripted();
      const busy = await busyAgent(mock);
      expect(await busy.agent.request(acp.methods.agent.session.close, { sessionId: busy.sessionId })).toEqual({});
      await eventually(() => busy.pids.filter(alive).length === 0, 6_000);
      expect(alive(busy.proc.pid)).toBe(true);
      busy.proc.stdin.end();
      expect(await busy.proc.exited).toBe(0);
      busy.connection.close();
    }, 90_000);

    for (const stop of ["stdin closed", "SIGTERM", "SIGKILL"] as const) {
      test(`${stop}: no process any command started is left`, async () => {
        await using mock = scripted();
        const busy = await busyAgent(mock);
        if (stop === "stdin closed") busy.proc.stdin.end();
        else busy.proc.kill(stop);
        const code = await busy.proc.exited;
        expect(code).toBe(stop === "stdin closed" ? 0 : stop === "SIGTERM" ? 143 : 137);
        await eventually(() => busy.pids.filter(alive).length === 0, 6_000);
        busy.connection.close();
      }, 90_000);
    }
  },
  "bwrap",
);
