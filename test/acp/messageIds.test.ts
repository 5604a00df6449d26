// Message ids (ACP `messageId`, issue 33.1) in the compiled `garuda acp`, driven by the SDK's client
// against the mock Anthropic server: every user, agent and thought chunk carries one, the same for
// all chunks of a message and another for the next message; session/load gives each message the
// id it had live, and so does a new agent process after a restart; a session file written before
// ids were kept replays with ids made of its records' positions, the same at every load.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { garudaBinary } from "../support/garudaBinary.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { createSessionStore } from "../../src/store/sessionFile.ts";
import { startAgent } from "../support/acpAgent.ts";
import { type MockResponse, startMockAnthropic } from "../support/mockAnthropic.ts";
import { waitFor } from "../support/processes.ts";
import { makeTempDir } from "../support/tempDir.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-acp-msgid-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

type Chunk = Extract<
  acp.SessionUpdate,
  { sessionUpdate: "user_message_chunk" | "agent_message_chunk" | "agent_thought_chunk" }
>;
const CHUNKS = new Set(["user_message_chunk", "agent_message_chunk", "agent_thought_chunk"]);
const chunksOf = (updates: readonly acp.SessionUpdate[]) =>
  updates.filter((u): u is Chunk => CHUNKS.has(u.sessionUpdate));

/** The messages an editor makes of the chunks (Zed: consecutive chunks of one kind and id are one message). */
function messages(updates: readonly acp.SessionUpdate[]): Array<{ kind: string; id: string; text: string }> {
  const out: Array<{ kind: string; id: string; text: string }> = [];
  for (const chunk of chunksOf(updates)) {
    const text = chunk.content.type === "text" ? chunk.content.text : `[${chunk.content.type}]`;
    const last = out.at(-1);
    if (last && last.kind === chunk.sessionUpdate && last.id === chunk.messageId) last.text += text;
    else out.push({ kind: chunk.sessionUpdate, id: chunk.messageId as string, text });
  }
  return out;
}

const HELD = "toolu_held";
const script: MockResponse[] = [
  {
    steps: [
      { type: "thinking", thinking: "The check first, then the answer.", signature: "sig-1", fragments: 3 },
      { type: "text", text: "Running the check now.", fragments: 3 },
      {
        type: "tool_use",
        name: "bash",
        id: HELD,
        input: { command: "until [ -f go ]; do sleep 0.05; done; echo released", description: "Wait for go" },
      },
    ],
  },
  { steps: [{ type: "text", text: "The check passed; the README too.", fragments: 4 }] },
  { steps: [{ type: "text", text: "You are welcome.", fragments: 2 }] },
];

async function editor(mockScript: MockResponse[], root: string, home?: string) {
  const mock = startMockAnthropic({ apiKey: "sk-ant-process-test", script: mockScript });
  const agent = startAgent(binary, mock, root, work, "claude-sonnet-5", home);
  await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  const load = async (sessionId: string) => {
    const before = agent.updates.length;
    await agent.agent.request(acp.methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
    return agent.updates.slice(before);
  };
  const close = async () => {
    agent.proc.kill();
    await agent.proc.exited;
    await mock.close();
  };
  return { mock, agent, load, close };
}

describe("messageId on every chunk", () => {
  test("one id per message, another for the next; session/load and a restarted agent show the same ids", async () => {
    const root = makeTempDir("root-", { under: work });
    const first = await editor(script, root);
    let live: acp.SessionUpdate[];
    let sessionId: string;
    let replayed: acp.SessionUpdate[];
    try {
      ({ sessionId } = await first.agent.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] }));
      const prompt = (text: string) =>
        first.agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
      const turn = prompt("Run the check.");
      await waitFor(
        () =>
          first.agent.updates.some(
            (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === HELD && u.status === "in_progress",
          ),
        20_000,
      );
      // A steering message is a user message of its own, with its own id.
      expect(
        await first.agent.agent.request<Record<string, unknown>, Record<string, unknown>>("_session/steering", {
          sessionId,
          prompt: [{ type: "text", text: "Also look at the README." }],
        }),
      ).toEqual({ outcome: "injected" });
      writeFileSync(join(root, "go"), "");
      expect((await turn).stopReason).toBe("end_turn");
      expect((await prompt("Thanks.")).stopReason).toBe("end_turn");
      live = [...first.agent.updates];

      // Every chunk has an id; the chunks of one message share it; no two messages do.
      const chunks = chunksOf(live);
      expect(chunks.length).toBeGreaterThan(10);
      for (const chunk of chunks) expect(chunk.messageId).toEqual(expect.any(String));
      const shown = messages(live);
      expect(shown.map((m) => [m.kind, m.text])).toEqual([
        ["agent_thought_chunk", "The check first, then the answer."],
        ["agent_message_chunk", "Running the check now."],
        ["user_message_chunk", "Also look at the README."],
        ["agent_message_chunk", "The check passed; the README too."],
        ["agent_message_chunk", "You are welcome."],
      ]);
      expect(new Set(shown.map((m) => m.id)).size).toBe(shown.length);

      // session/load in the same agent: each message with the id it had live, the prompts with theirs.
      await first.agent.agent.request(acp.methods.agent.session.close, { sessionId });
      replayed = await first.load(sessionId);
      const again = messages(replayed);
      expect(again.map((m) => [m.kind, m.text])).toEqual([
        ["user_message_chunk", "Run the check."],
        ...shown.slice(0, 4).map((m) => [m.kind, m.text]),
        ["user_message_chunk", "Thanks."],
        ["agent_message_chunk", "You are welcome."],
      ]);
      const agentIds = (list: typeof shown) =>
        list.filter((m) => m.kind !== "user_message_chunk" || m.text.startsWith("Also")).map((m) => m.id);
      expect(agentIds(again)).toEqual(shown.map((m) => m.id));
      expect(new Set(again.map((m) => m.id)).size).toBe(again.length);
    } finally {
      await first.close();
    }

    // A new agent process (the editor restarted) loads the session: the same ids again.
    const second = await editor([], root, first.agent.home);
    try {
      const restarted = await second.load(sessionId);
      expect(messages(restarted)).toEqual(messages(replayed));
    } finally {
      await second.close();
    }
  }, 90_000);

  test("a session file from before ids were kept replays with ids of its records' " +
    "positions, the same at every load", async () => {
    const root = makeTempDir("root-", { under: work });
    const home = makeTempDir("home-", { under: work });
    // Written as an older Garuda wrote it: no messageId, no messageIds.
    const journal = createSessionStore({ sessionsDir: garudaPaths(home).sessions }).create({
      root,
      version: "0.9.0",
      model: "claude-sonnet-5",
      mode: "build",
    });
    journal.append({ type: "user", prompt: "Hello", content: [{ type: "text", text: "Hello" }] });
    journal.append({
      type: "assistant",
      step: 1,
      stopReason: "end_turn",
      content: [
        { type: "thinking", thinking: "A greeting.", signature: "sig" },
        { type: "text", text: "Hi! " },
        { type: "text", text: "What shall we do?" },
      ],
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheCreationTokens: 0 },
    });
    journal.append({ type: "end", stopReason: "done", steps: 1 });
    journal.close();
    const sessionId = journal.id;

    const first = await editor([{ steps: [{ type: "text", text: "Fixed." }] }], root, home);
    let before: ReturnType<typeof messages>;
    try {
      before = messages(await first.load(sessionId));
      // The start record is 0: the prompt is record 1, the answer record 2 (its thinking run 0, its two text blocks one
      // run, 1).
      expect(before).toEqual([
        { kind: "user_message_chunk", id: "r1", text: "Hello" },
        { kind: "agent_thought_chunk", id: "r2.0", text: "A greeting." },
        { kind: "agent_message_chunk", id: "r2.1", text: "Hi! What shall we do?" },
      ]);
      // The session goes on: the new messages get ids of their own, kept in the file.
      const turn = await first.agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "Fix it." }],
      });
      expect(turn.stopReason).toBe("end_turn");
    } finally {
      await first.close();
    }
    const second = await editor([], root, home);
    try {
      const after = messages(await second.load(sessionId));
      expect(after.slice(0, 3)).toEqual(before);
      expect(after.slice(3).map((m) => [m.kind, m.text])).toEqual([
        ["user_message_chunk", "Fix it."],
        ["agent_message_chunk", "Fixed."],
      ]);
      for (const m of after.slice(3)) expect(m.id).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await second.close();
    }
  }, 90_000);
});
