// The compiled `garuda acp` gives back the pages of its binary it mapped (src/cli/process/binaryPages.ts,
// issue 19.2): once its first session is ready (start-up's), and when its memory trim runs after a
// session closes (a turn's). Read from outside, in the agent's /proc/<pid>/smaps. Without either
// call the binary's resident pages only grow, and the matching check fails.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import * as acp from "@agentclientprotocol/sdk";
import { droppableMappings } from "../../../src/cli/process/binaryPages.ts";
import { startAgent } from "../../support/acpAgent.ts";
import { startMockAnthropic } from "../../support/mockAnthropic.ts";
import { makeTempDir } from "../../support/tempDir.ts";
import { garudaBinary } from "../../support/garudaBinary.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-binary-pages-");
    binary = realpathSync(await garudaBinary());
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Resident bytes of the agent's read-only mappings of the binary. */
function residentOfBinary(pid: number): number {
  return droppableMappings(readFileSync(`/proc/${pid}/smaps`, "utf8"), binary, statSync(binary).ino).reduce(
    (sum, range) => sum + range.rssBytes,
    0,
  );
}

/** The agent's resident file pages (statm's third field): cheap to read, so sampled tightly. */
function residentFilePages(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[2]) * 4096;
}

/**
 * The fewest resident file bytes seen while `during` runs and up to `ms` after. What the agent
 * runs next faults pages back in (a busy machine may bring back much within a poll's interval),
 * so the drop is looked for by sampling every millisecond, not by a later look.
 */
async function lowestFileBytes(pid: number, during: Promise<unknown>, ms: number): Promise<number> {
  let lowest = residentFilePages(pid);
  let done = false;
  const sampling = (async () => {
    while (!done) {
      lowest = Math.min(lowest, residentFilePages(pid));
      await Bun.sleep(1);
    }
  })();
  await during;
  await Bun.sleep(ms);
  done = true;
  await sampling;
  return lowest;
}

describe.skipIf(process.platform !== "linux")("garuda acp gives its binary's pages back", () => {
  test("when its first session is ready, and after a session closes", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [
        { steps: [{ type: "text", text: "Hello.", fragments: 2 }] },
        { steps: [{ type: "text", text: "Again.", fragments: 2 }] },
      ],
    });
    const root = makeTempDir("root-", { under: work });
    const { proc, agent } = startAgent(binary, mock, root, work);
    try {
      await agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      await Bun.sleep(500); // what `garuda acp` loads after answering initialize
      const binaryBytes = residentOfBinary(proc.pid);
      expect(binaryBytes).toBeGreaterThan(8 * 1024 * 1024);
      const startedUp = residentFilePages(proc.pid);

      const created = agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
      // A third, not all: session/new's own work (the undo store's set-up starts then) faults pages
      // back in while the release runs, more so on a loaded machine; without it nothing drops.
      expect(startedUp - (await lowestFileBytes(proc.pid, created, 1000))).toBeGreaterThan(binaryBytes / 3);
      const { sessionId } = await created;

      const turn = await agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "Hi." }],
      });
      expect(turn.stopReason).toBe("end_turn");
      const afterTurnBinary = residentOfBinary(proc.pid);
      const afterTurn = residentFilePages(proc.pid);
      const closed = agent.request("session/close", { sessionId });
      expect(afterTurn - (await lowestFileBytes(proc.pid, closed, 1000))).toBeGreaterThan(afterTurnBinary / 2);

      // And it still answers: a new session and a turn, from pages faulted back in.
      const next = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
      expect(next.sessionId).not.toBe(sessionId);
      expect(
        (
          await agent.request(acp.methods.agent.session.prompt, {
            sessionId: next.sessionId,
            prompt: [{ type: "text", text: "Again?" }],
          })
        ).stopReason,
      ).toBe("end_turn");
    } finally {
      proc.kill();
      await proc.exited;
    }
  }, 60_000);
});
