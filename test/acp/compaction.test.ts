// Compaction the editor can show (issue 33.5), in the compiled `garuda acp` driven by the SDK's
// client against the mock Anthropic server, with a model of a 100K-token window in models.json
// (the mock's usage report of 90K tokens puts the next request past the 80% mark): a client that
// advertises `session.compaction` gets compaction_update entries — in progress, then completed
// with the summary, or failed with why — for an automatic compaction and for /compact, and
// session/load shows it completed with its summary and the same id; a client without the
// capability gets the `Garuda:` line, as before, and no entry.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { garudaBinary } from "../support/garudaBinary.ts";
import { startAgent } from "../support/acpAgent.ts";
import { type MockResponse, startMockAnthropic } from "../support/mockAnthropic.ts";
import { makeTempDir } from "../support/tempDir.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-acp-compaction-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const WITH = { session: { compaction: {} } };
const SUMMARY = "The user counted to two; nothing else is open.";
const reply = (text: string, inputTokens = 1_000): MockResponse => ({
  steps: [{ type: "text", text }],
  usage: { input_tokens: inputTokens, output_tokens: 10 },
});

/** An editor on a home whose model has a 100K-token window; `capabilities` as its initialize says. */
async function editor(script: MockResponse[], capabilities: acp.ClientCapabilities, home?: string, root?: string) {
  const where = root ?? makeTempDir("root-", { under: work });
  const own = home ?? makeTempDir("home-", { under: work });
  mkdirSync(join(own, ".garuda"), { recursive: true, mode: 0o700 });
  writeFileSync(
    join(own, ".garuda", "models.json"),
    JSON.stringify({ models: { "claude-window-1": { contextWindow: 100_000 } } }),
  );
  const mock = startMockAnthropic({ apiKey: "sk-ant-process-test", script });
  const agent = startAgent(binary, mock, where, work, "claude-window-1", own);
  await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: capabilities });
  const prompt = (sessionId: string, text: string) =>
    agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  const close = async () => {
    agent.proc.kill();
    await agent.proc.exited;
    await mock.close();
  };
  return { mock, agent, root: where, home: own, prompt, close };
}

const entries = (updates: readonly acp.SessionUpdate[]) =>
  updates.filter(
    (u): u is Extract<acp.SessionUpdate, { sessionUpdate: "compaction_update" }> =>
      u.sessionUpdate === "compaction_update",
  );
const said = (updates: readonly acp.SessionUpdate[]) =>
  updates
    .map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : ""))
    .join("");
const summaryText = (entry: { summary?: acp.ContentBlock[] | null } | undefined) =>
  (entry?.summary ?? []).map((block) => (block.type === "text" ? block.text : "")).join("");

/**
 * Two turns, the second reported at 90K tokens: the third prompt begins with a compaction (its summary is the mock's
 * third answer).
 */
const AUTOMATIC: MockResponse[] = [
  reply("One."),
  reply("Two.", 90_000),
  { steps: [{ type: "text", text: SUMMARY }], usage: { input_tokens: 1_000, output_tokens: 20 } },
  reply("Three."),
];

describe("compaction_update", () => {
  test("automatic, with session.compaction: in progress, then completed with the " +
    "summary; session/load shows it so", async () => {
    const e = await editor(AUTOMATIC, WITH);
    try {
      const { sessionId } = await e.agent.agent.request(acp.methods.agent.session.new, { cwd: e.root, mcpServers: [] });
      await e.prompt(sessionId, "Count to one.");
      await e.prompt(sessionId, "Count to two.");
      const before = e.agent.updates.length;
      expect((await e.prompt(sessionId, "Count to three.")).stopReason).toBe("end_turn");
      const turn = e.agent.updates.slice(before);
      // The summary request went out before the turn's own.
      expect(e.mock.requests).toHaveLength(4);

      const shown = entries(turn);
      expect(shown.map((u) => u.status)).toEqual(["in_progress", "completed"]);
      const id = shown[0]?.compactionId as string;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(shown[1]?.compactionId).toBe(id);
      const text = summaryText(shown[1]);
      expect(text).toMatch(/^The conversation was compacted to make room \([\d,K]+ → [\d,K]+ tokens\)\./);
      expect(text).toContain(SUMMARY);
      expect(text).not.toContain("<garuda_summary>");
      // In progress before the answer, completed before it too; and no line instead.
      const order = turn.map((u) => u.sessionUpdate);
      expect(order.lastIndexOf("compaction_update")).toBeLessThan(order.indexOf("agent_message_chunk"));
      expect(said(turn)).toBe("Three.");

      // The replay shows it as it ended: completed, the same id and summary, in its place.
      await e.agent.agent.request(acp.methods.agent.session.close, { sessionId });
      const from = e.agent.updates.length;
      await e.agent.agent.request(acp.methods.agent.session.load, { sessionId, cwd: e.root, mcpServers: [] });
      const replayed = e.agent.updates.slice(from);
      expect(entries(replayed)).toEqual([
        { sessionUpdate: "compaction_update", compactionId: id, status: "completed", summary: expect.any(Array) },
      ]);
      expect(summaryText(entries(replayed)[0])).toContain(SUMMARY);
      expect(said(replayed)).not.toContain("Garuda:");
      const kinds = replayed.map((u) =>
        u.sessionUpdate === "user_message_chunk" && u.content.type === "text" ? u.content.text : u.sessionUpdate,
      );
      expect(kinds.indexOf("compaction_update")).toBeGreaterThan(kinds.indexOf("Count to three."));
    } finally {
      await e.close();
    }
  }, 90_000);

  test("automatic, without the capability: the Garuda line as before, and no entry, live and replayed", async () => {
    const e = await editor(AUTOMATIC, {});
    try {
      const { sessionId } = await e.agent.agent.request(acp.methods.agent.session.new, { cwd: e.root, mcpServers: [] });
      await e.prompt(sessionId, "Count to one.");
      await e.prompt(sessionId, "Count to two.");
      const before = e.agent.updates.length;
      await e.prompt(sessionId, "Count to three.");
      const turn = e.agent.updates.slice(before);
      expect(e.mock.requests).toHaveLength(4);
      expect(entries(turn)).toEqual([]);
      expect(said(turn)).toMatch(
        /^Garuda: the conversation was compacted to make room \([\d,K]+ → [\d,K]+ tokens\)\.\n\nThree\.$/,
      );

      await e.agent.agent.request(acp.methods.agent.session.close, { sessionId });
      const from = e.agent.updates.length;
      await e.agent.agent.request(acp.methods.agent.session.load, { sessionId, cwd: e.root, mcpServers: [] });
      const replayed = e.agent.updates.slice(from);
      expect(entries(replayed)).toEqual([]);
      expect(said(replayed)).toContain("Garuda: the conversation was compacted to make room");
    } finally {
      await e.close();
    }
  }, 90_000);

  test("/compact: entries instead of the line with the capability, failed with why " +
    "when the summary fails; the line without", async () => {
    const script: MockResponse[] = [
      reply("One."),
      reply("Two."),
      { steps: [{ type: "text", text: SUMMARY }] },
      reply("Three."),
      reply("Four."),
      { status: 400, errorType: "invalid_request_error", message: "the summary request was refused" },
    ];
    const e = await editor(script, WITH);
    try {
      const { sessionId } = await e.agent.agent.request(acp.methods.agent.session.new, { cwd: e.root, mcpServers: [] });
      await e.prompt(sessionId, "Count to one.");
      await e.prompt(sessionId, "Count to two.");
      let before = e.agent.updates.length;
      expect((await e.prompt(sessionId, "/compact")).stopReason).toBe("end_turn");
      let shown = entries(e.agent.updates.slice(before));
      expect(shown.map((u) => u.status)).toEqual(["in_progress", "completed"]);
      expect(summaryText(shown[1])).toContain(SUMMARY);
      expect(said(e.agent.updates.slice(before))).toBe("");

      // Later, a /compact whose summary request fails: failed, with the provider's reason.
      await e.prompt(sessionId, "Count to three.");
      await e.prompt(sessionId, "Count to four.");
      before = e.agent.updates.length;
      await e.prompt(sessionId, "/compact");
      shown = entries(e.agent.updates.slice(before));
      expect(shown.map((u) => u.status)).toEqual(["in_progress", "failed"]);
      expect(shown[1]?.compactionId).toBe(shown[0]?.compactionId as string);
      expect(shown[1]?.error).toContain("the summary request was refused");
    } finally {
      await e.close();
    }

    const without = await editor(script.slice(0, 3), {});
    try {
      const { sessionId } = await without.agent.agent.request(acp.methods.agent.session.new, {
        cwd: without.root,
        mcpServers: [],
      });
      await without.prompt(sessionId, "Count to one.");
      await without.prompt(sessionId, "Count to two.");
      const before = without.agent.updates.length;
      await without.prompt(sessionId, "/compact");
      const turn = without.agent.updates.slice(before);
      expect(entries(turn)).toEqual([]);
      expect(said(turn)).toMatch(/^Garuda: the conversation was compacted to make room/);
    } finally {
      await without.close();
    }
  }, 90_000);
});
