// session/fork over ACP (issue 33, item 3), with the compiled binary as an editor runs it: a
// fork goes on with the conversation up to now and a file of its own, both sessions answer
// prompts independently (each model request holds only its own conversation), both are in
// session/list, and the fork of a session of another project is refused as load is.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { garudaBinary } from "../support/garudaBinary.ts";
import { findSessionFile } from "../../src/store/sessionCatalog.ts";
import { startAgent } from "../support/acpAgent.ts";
import { rejection } from "../support/acpHarness.ts";
import { type MockAnthropic, startMockAnthropic } from "../support/mockAnthropic.ts";
import { makeTempDir } from "../support/tempDir.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-fork-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const init = { protocolVersion: 1, clientCapabilities: {} };

/** The texts of a model request's messages, one string per message. */
function sentTexts(mock: MockAnthropic, index: number): string[] {
  const messages = (mock.requests[index]?.body?.messages ?? []) as Array<{ content: unknown }>;
  return messages.map((message) => JSON.stringify(message.content));
}

const fork = (agent: ReturnType<typeof startAgent>["agent"], params: Record<string, unknown>) =>
  agent.request("session/fork", params) as Promise<{ sessionId: string; modes?: unknown }>;

describe("session/fork over ACP, the compiled binary", () => {
  test("the fork goes on from the conversation so far; both sessions go on independently and are listed", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [
        { steps: [{ type: "text", text: "Noted: the colour is teal." }] },
        { steps: [{ type: "text", text: "Parent answers." }] },
        { steps: [{ type: "text", text: "Fork answers." }] },
      ],
    });
    const root = makeTempDir("project-", { under: work });
    const editor = startAgent(binary, mock, root, work);
    try {
      const ready = await editor.agent.request(acp.methods.agent.initialize, init);
      expect((ready as acp.InitializeResponse).agentCapabilities?.sessionCapabilities as unknown).toMatchObject({
        fork: {},
      });
      const { sessionId: parent } = await editor.agent.request(acp.methods.agent.session.new, {
        cwd: root,
        mcpServers: [],
      });
      await editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId: parent,
        prompt: [{ type: "text", text: "Remember the colour teal." }],
      });

      const forked = await fork(editor.agent, { sessionId: parent, cwd: root, mcpServers: [] });
      expect(forked.sessionId).not.toBe(parent);
      expect(forked.modes).toBeDefined();

      // Each goes on: the parent's request lacks the fork's prompt, and the fork's the parent's.
      await editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId: parent,
        prompt: [{ type: "text", text: "Parent question." }],
      });
      await editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId: forked.sessionId,
        prompt: [{ type: "text", text: "Fork question." }],
      });
      expect(mock.requests).toHaveLength(3);
      const parentSent = sentTexts(mock, 1);
      const forkSent = sentTexts(mock, 2);
      for (const sent of [parentSent, forkSent]) {
        expect(sent).toHaveLength(3);
        expect(sent[0]).toContain("Remember the colour teal.");
        expect(sent[1]).toContain("Noted: the colour is teal.");
      }
      expect(parentSent[2]).toContain("Parent question.");
      expect(forkSent[2]).toContain("Fork question.");
      expect(JSON.stringify(forkSent)).not.toContain("Parent question.");
      expect(JSON.stringify(parentSent)).not.toContain("Fork question.");

      // Both in the history, the fork's title marked; its file names its parent.
      const listed = await editor.agent.request(acp.methods.agent.session.list, { cwd: root });
      const ids = listed.sessions.map((session) => session.sessionId);
      expect(ids).toContain(parent);
      expect(ids).toContain(forked.sessionId);
      const forkTitle = listed.sessions.find((session) => session.sessionId === forked.sessionId)?.title;
      expect(forkTitle).toBe("Fork: Remember the colour teal.");
      const sessions = join(editor.home, ".garuda", "sessions");
      const forkFile = findSessionFile(sessions, forked.sessionId) as string;
      const parentFile = findSessionFile(sessions, parent) as string;
      const start = JSON.parse(readFileSync(forkFile, "utf8").split("\n")[0] as string);
      expect(start).toMatchObject({ type: "start", sessionId: forked.sessionId, forkedFrom: { sessionId: parent } });
      expect(readFileSync(parentFile, "utf8")).not.toContain("Fork question.");
      expect(readFileSync(forkFile, "utf8")).not.toContain("Parent question.");
    } finally {
      editor.proc.stdin.end();
      await editor.proc.exited;
      editor.connection.close();
    }
  }, 60_000);

  test("AIR's fork point: the fork keeps the conversation up to and with that message; " +
    "an unknown one is refused", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [
        { steps: [{ type: "text", text: "First answer." }] },
        { steps: [{ type: "text", text: "Second answer." }] },
        { steps: [{ type: "text", text: "Answer in the fork." }] },
      ],
    });
    const root = makeTempDir("project-", { under: work });
    const editor = startAgent(binary, mock, root, work);
    try {
      await editor.agent.request(acp.methods.agent.initialize, init);
      const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
      await editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "First question." }],
      });
      const firstAnswer = editor.updates.find((u) => u.sessionUpdate === "agent_message_chunk") as
        | { messageId?: string | null }
        | undefined;
      const messageId = firstAnswer?.messageId as string;
      expect(messageId).toBeTruthy();
      await editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "Second question." }],
      });

      const at = (id: string) => ({ jetbrains: { air: { fork: { version: 1, messageId: id } } } });
      const unknown = await rejection(
        fork(editor.agent, { sessionId, cwd: root, mcpServers: [], _meta: at("no-such-message") }),
      );
      expect(unknown.code).toBe(-32602);
      expect(unknown.message).toContain('no message with the id "no-such-message"');

      const forked = await fork(editor.agent, { sessionId, cwd: root, mcpServers: [], _meta: at(messageId) });
      await editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId: forked.sessionId,
        prompt: [{ type: "text", text: "A question in the fork." }],
      });
      const sent = sentTexts(mock, 2);
      expect(sent).toHaveLength(3);
      expect(sent[0]).toContain("First question.");
      expect(sent[1]).toContain("First answer.");
      expect(sent[2]).toContain("A question in the fork.");
      expect(JSON.stringify(sent)).not.toContain("Second");
      const forkFile = findSessionFile(join(editor.home, ".garuda", "sessions"), forked.sessionId) as string;
      expect(JSON.parse(readFileSync(forkFile, "utf8").split("\n")[0] as string).forkedFrom).toEqual({
        sessionId,
        messageId,
      });
    } finally {
      editor.proc.stdin.end();
      await editor.proc.exited;
      editor.connection.close();
    }
  }, 60_000);

  test("a session of another project is not forked; an unknown id, a session without a prompt neither", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [{ steps: [{ type: "text", text: "Noted." }] }],
    });
    const projectA = makeTempDir("project-a-", { under: work });
    const projectB = makeTempDir("project-b-", { under: work });
    const editor = startAgent(binary, mock, projectA, work);
    try {
      await editor.agent.request(acp.methods.agent.initialize, init);
      const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, {
        cwd: projectA,
        mcpServers: [],
      });
      const fresh = await rejection(fork(editor.agent, { sessionId, cwd: projectA, mcpServers: [] }));
      expect(fresh.message).toContain("nothing to fork");
      await editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "A note for project A." }],
      });
      const refused = await rejection(fork(editor.agent, { sessionId, cwd: projectB, mcpServers: [] }));
      expect(refused.code).toBe(-32602);
      expect(refused.message).toContain(`session ${sessionId} belongs to the project ${projectA}`);
      const before = (await editor.agent.request(acp.methods.agent.session.list, {})).sessions.length;
      expect(before).toBe(1);
      const unknown = await rejection(
        fork(editor.agent, { sessionId: "20260101-000000-0a0b0c0d", cwd: projectA, mcpServers: [] }),
      );
      expect(unknown.code).toBe(-32002);
      const malformed = await rejection(fork(editor.agent, { sessionId, cwd: projectA, mcpServers: [{ name: 1 }] }));
      expect(malformed.code).toBe(-32602);
      // Nothing was written by the refusals.
      expect((await editor.agent.request(acp.methods.agent.session.list, {})).sessions).toHaveLength(1);
    } finally {
      editor.proc.stdin.end();
      await editor.proc.exited;
      editor.connection.close();
    }
  }, 60_000);

  test("a session of this project that no editor has open is forked from its file", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [{ steps: [{ type: "text", text: "Stored." }] }, { steps: [{ type: "text", text: "Forked answer." }] }],
    });
    const root = makeTempDir("project-", { under: work });
    const first = startAgent(binary, mock, root, work);
    await first.agent.request(acp.methods.agent.initialize, init);
    const { sessionId } = await first.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    await first.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "Store the word lantern." }],
    });
    first.proc.stdin.end();
    expect(await first.proc.exited).toBe(0);
    first.connection.close();

    const second = startAgent(binary, mock, root, work, undefined, first.home);
    try {
      await second.agent.request(acp.methods.agent.initialize, init);
      const forked = await fork(second.agent, { sessionId, cwd: root, mcpServers: [] });
      await second.agent.request(acp.methods.agent.session.prompt, {
        sessionId: forked.sessionId,
        prompt: [{ type: "text", text: "Which word?" }],
      });
      const sent = sentTexts(mock, 1);
      expect(sent[0]).toContain("Store the word lantern.");
      expect(sent.at(-1)).toContain("Which word?");
      // The parent was not taken: it is free to load.
      await second.agent.request(acp.methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
    } finally {
      second.proc.stdin.end();
      await second.proc.exited;
      second.connection.close();
    }
  }, 60_000);
});
