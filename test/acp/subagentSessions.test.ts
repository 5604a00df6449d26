// Subagents as child sessions (src/acp/subagentUpdates.ts), in the compiled `garuda acp` driven by
// the SDK's client, every stdout line read as the editor gets it (the SDK's client schema refuses
// the draft updates, as Zed's typed handler does, so they are read from the raw lines). With
// `clientCapabilities.subagents`: `subagent_spawned` on the parent, the child's own updates on
// the child's session nested with `_meta.claudeCode.parentToolUseId` (what Zed's
// acp/subagent_updates.rs decodes), `subagent_state_update` at its end, and the child's question
// asked as the child's. Without it: the parent's updates are the same as with it, and nothing
// else goes out. Cancelling the parent kills the child's running command. (The SDK's client logs
// "Error handling notification" for each draft update: its schema refuses them.)
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { garudaBinary } from "../support/garudaBinary.ts";
import { wantsSubagents, withSentSubagents } from "../../src/acp/initialize.ts";
import { startAgent } from "../support/acpAgent.ts";
import { type MockAnthropic, startMockAnthropic } from "../support/mockAnthropic.ts";
import type { MockResponse } from "../support/mockAnthropicScript.ts";
import { alive } from "../support/processes.ts";
import { describeSandbox, eventually, marker, sleepers } from "../support/sandboxSupport.ts";
import { makeTempDir } from "../support/tempDir.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-acp-subagents-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Wire {
  method?: string;
  id?: unknown;
  params?: { sessionId?: string; update?: Record<string, unknown> & { sessionUpdate: string } } & Record<
    string,
    unknown
  >;
  result?: Record<string, unknown>;
}

/** Every message the agent wrote. */
const wire = (lines: readonly string[]): Wire[] => lines.map((line) => JSON.parse(line) as Wire);
/** The session/update notifications, in order, with the session each was sent on. */
const sessionUpdates = (lines: readonly string[]) =>
  wire(lines).flatMap((message) =>
    message.method === "session/update" && message.params?.update
      ? [{ sessionId: message.params.sessionId as string, update: message.params.update }]
      : [],
  );
const questions = (lines: readonly string[]) =>
  wire(lines).flatMap((message) =>
    message.method === "session/request_permission" ? [message.params as acp.RequestPermissionRequest] : [],
  );

const use = (name: string, id: string, input: unknown): MockResponse => ({
  steps: [{ type: "tool_use", name, id, input }],
});
const say = (text: string): MockResponse => ({ steps: [{ type: "text", text }] });

/** The parent asks explore; the child reads a.txt and answers; the parent ends. */
const exploreScript = (): MockResponse[] => [
  use("explore", "toolu_explore", { question: "Where is alpha defined?\nLook in the text files." }),
  {
    steps: [
      { type: "thinking", thinking: "Read a.txt first.", signature: "sig" },
      { type: "tool_use", name: "read_file", id: "toolu_child_read", input: { path: "a.txt" } },
    ],
  },
  say("alpha is in a.txt:1"),
  say("Explore found it."),
];

async function run(mock: MockAnthropic, clientCapabilities: Record<string, unknown>, home?: string) {
  const root = makeTempDir("root-", { under: work });
  writeFileSync(join(root, "a.txt"), "alpha\n");
  const started = startAgent(binary, mock, root, work, "claude-sonnet-5", home);
  const init = await started.agent.request(acp.methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: clientCapabilities as acp.ClientCapabilities,
  });
  const { sessionId } = await started.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
  return { ...started, root, init, sessionId };
}

/** A home with the user's custom agent `name`, which has the one (Claude Code) tool `tool`. */
function homeWithAgent(name: string, tool: string): string {
  const home = makeTempDir("home-", { under: work });
  mkdirSync(join(home, ".garuda/agents"), { recursive: true });
  writeFileSync(
    join(home, `.garuda/agents/${name}.md`),
    `---\nname: ${name}\ndescription: Does what it is told\ntools: ${tool}\n---\nDo what you are asked to.\n`,
  );
  return home;
}

/** A session that runs exploreScript() to its end, and the updates it sent. */
async function exploreRun(mock: MockAnthropic, clientCapabilities: Record<string, unknown>) {
  const agent = await run(mock, clientCapabilities);
  const turn = await agent.agent.request(acp.methods.agent.session.prompt, {
    sessionId: agent.sessionId,
    prompt: [{ type: "text", text: "Find alpha." }],
  });
  expect(turn.stopReason).toBe("end_turn");
  agent.proc.stdin.end();
  await agent.proc.exited;
  agent.connection.close();
  return { agent, all: sessionUpdates(agent.lines) };
}
type ExploreRun = Awaited<ReturnType<typeof exploreRun>>;

/** The updates but the draft ones, without what differs from run to run (times, message ids). */
const withoutDraft = (entries: ReturnType<typeof sessionUpdates>) =>
  entries
    .filter(({ update }) => !update.sessionUpdate.startsWith("subagent_"))
    .map((entry) => ({
      ...entry,
      update: JSON.parse(
        JSON.stringify(entry.update, (key, value) => (key === "updatedAt" || key === "messageId" ? undefined : value)),
      ),
    }));

test("the gate: `subagents` as an object, or AIR's nativeSubagentSessions at version 1 or later", () => {
  const air = (version: unknown, capabilities: unknown) => ({
    _meta: { jetbrains: { air: { version, capabilities } } },
  });
  for (const yes of [
    { subagents: {} },
    { subagents: { _meta: {} } },
    air(1, ["nativeSubagentSessions"]),
    air(2, ["x", "nativeSubagentSessions"]),
  ])
    expect(wantsSubagents(yes)).toBe(true);
  for (const no of [
    undefined,
    {},
    { subagents: true },
    { subagents: null },
    { subagents: [] },
    { _meta: { subagents: true } },
    air(0, ["nativeSubagentSessions"]),
    air("1", ["nativeSubagentSessions"]),
    air(1.5, ["nativeSubagentSessions"]),
    air(1, "nativeSubagentSessions"),
    air(1, ["asyncTasks"]),
  ])
    expect(wantsSubagents(no)).toBe(false);
  // The SDK's schema drops `subagents`; the request as sent puts it back, and nothing else.
  expect(withSentSubagents({ terminal: true }, { clientCapabilities: { subagents: {}, other: 1 } })).toEqual({
    terminal: true,
    subagents: {},
  });
  expect(withSentSubagents({ terminal: true }, { clientCapabilities: {} })).toEqual({ terminal: true });
  expect(withSentSubagents(undefined, "not params")).toBeUndefined();
});

describe("garuda acp: subagents as child sessions", () => {
  test("with `subagents`: spawned, the child's updates on its own session nested in " +
    "the explore call, then its state", async () => {
    await using mock = startMockAnthropic({ apiKey: "sk-ant-process-test", script: exploreScript() });
    const { agent, all } = await exploreRun(mock, { subagents: {} });
    expect(agent.init.agentCapabilities?.sessionCapabilities).toMatchObject({ subagents: {} });
    const spawnedAt = all.findIndex(({ update }) => update.sessionUpdate === "subagent_spawned");
    const spawned = all[spawnedAt];
    expect(spawned?.sessionId).toBe(agent.sessionId);
    const child = spawned?.update.subagentSessionId as string;
    expect(child).toBeString();
    expect(child).not.toBe(agent.sessionId);
    expect(spawned?.update).toEqual({
      sessionUpdate: "subagent_spawned",
      subagentSessionId: child,
      name: "explore",
      task: "Where is alpha defined?",
      prompt: "Where is alpha defined?\nLook in the text files.",
      capabilities: {},
    });
    // After the parent's own explore call, so the editor can nest the child in it.
    const exploreAt = all.findIndex(
      ({ update }) => update.sessionUpdate === "tool_call" && update.toolCallId === "toolu_explore",
    );
    expect(exploreAt).toBeGreaterThanOrEqual(0);
    expect(exploreAt).toBeLessThan(spawnedAt);

    const childUpdates = all.filter(({ sessionId }) => sessionId === child);
    const firstChild = all.findIndex(({ sessionId }) => sessionId === child);
    const stateAt = all.findIndex(({ update }) => update.sessionUpdate === "subagent_state_update");
    expect(firstChild).toBeGreaterThan(spawnedAt);
    expect(all.findLastIndex(({ sessionId }) => sessionId === child)).toBeLessThan(stateAt);
    expect(all[stateAt]).toEqual({
      sessionId: agent.sessionId,
      update: { sessionUpdate: "subagent_state_update", subagentSessionId: child, state: "completed" },
    });
    // Every update of the child names the launching call, where Zed reads it.
    for (const { update } of childUpdates)
      expect(update._meta).toMatchObject({ claudeCode: { parentToolUseId: "toolu_explore" } });
    expect(childUpdates.map(({ update }) => update.sessionUpdate)).toEqual([
      "agent_thought_chunk",
      "tool_call",
      "tool_call_update",
      "tool_call_update",
      "agent_message_chunk",
    ]);
    expect(childUpdates[1]?.update).toMatchObject({ toolCallId: "toolu_child_read", kind: "read", status: "pending" });
    expect(childUpdates[3]?.update).toMatchObject({ toolCallId: "toolu_child_read", status: "completed" });
    expect(childUpdates[4]?.update.content).toEqual({ type: "text", text: "alpha is in a.txt:1" });
    // The parent's session carries no child's update and no nesting key.
    for (const { sessionId, update } of all)
      if (sessionId === agent.sessionId) expect(JSON.stringify(update._meta ?? {})).not.toContain("parentToolUseId");
    expect(new Set(all.map(({ sessionId }) => sessionId))).toEqual(new Set([agent.sessionId, child]));
  }, 90_000);

  test("without the capability: the same parent updates, nothing else, and initialize as before", async () => {
    await using withMock = startMockAnthropic({ apiKey: "sk-ant-process-test", script: exploreScript() });
    await using withoutMock = startMockAnthropic({ apiKey: "sk-ant-process-test", script: exploreScript() });
    const [withCap, without] = [await exploreRun(withMock, { subagents: {} }), await exploreRun(withoutMock, {})];
    expect(without.agent.init.agentCapabilities?.sessionCapabilities).not.toHaveProperty("subagents");
    expect(without.all.every(({ sessionId }) => sessionId === without.agent.sessionId)).toBe(true);
    expect(without.all.some(({ update }) => update.sessionUpdate.startsWith("subagent_"))).toBe(false);
    expect(without.agent.lines.join("\n")).not.toContain("parentToolUseId");
    // The parent's own updates are the same either way: the child sessions only add.
    const parentOf = (run: ExploreRun) =>
      withoutDraft(run.all.filter(({ sessionId }) => sessionId === run.agent.sessionId)).map(({ update }) => update);
    expect(parentOf(withCap)).toEqual(parentOf(without));
    // As before: the explore card shows the child's current call, and the answer is its result.
    expect(JSON.stringify(parentOf(without))).toContain("alpha is in a.txt:1");
  }, 120_000);

  test("JetBrains AIR's nativeSubagentSessions takes the same form", async () => {
    await using mock = startMockAnthropic({ apiKey: "sk-ant-process-test", script: exploreScript() });
    const { agent } = await exploreRun(mock, {
      _meta: { jetbrains: { air: { version: 1, capabilities: ["nativeSubagentSessions"] } } },
    });
    expect(agent.init.agentCapabilities?.sessionCapabilities).toMatchObject({ subagents: {} });
    const kinds = sessionUpdates(agent.lines).map(({ update }) => update.sessionUpdate);
    expect(kinds).toContain("subagent_spawned");
    expect(kinds).toContain("subagent_state_update");
  }, 90_000);

  test("a child's question is the child's: its session, its call, titled with the subagent", async () => {
    const home = homeWithAgent("writer", "Write");
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [
        use("agent", "toolu_agent", { name: "writer", prompt: "Write b.txt" }),
        use("write_file", "toolu_child_write", { path: "b.txt", content: "beta\n" }),
        say("wrote b.txt"),
        say("The writer wrote it."),
      ],
    });
    const agent = await run(mock, { subagents: {} }, home);
    await agent.agent.request(acp.methods.agent.session.prompt, {
      sessionId: agent.sessionId,
      prompt: [{ type: "text", text: "Write b." }],
    });
    agent.proc.stdin.end();
    await agent.proc.exited;
    agent.connection.close();
    const spawned = sessionUpdates(agent.lines).find(({ update }) => update.sessionUpdate === "subagent_spawned");
    const child = spawned?.update.subagentSessionId as string;
    expect(spawned?.update.name).toBe("writer");
    const asked = questions(agent.lines).filter((question) => question.toolCall.toolCallId === "toolu_child_write");
    expect(asked).toHaveLength(1);
    expect(asked[0]?.sessionId).toBe(child);
    expect(asked[0]?.toolCall.title).toStartWith("Subagent: writer › ");
    // The call it asks about is one the child's session shows.
    const childCall = sessionUpdates(agent.lines).find(
      ({ update }) => update.sessionUpdate === "tool_call" && update.toolCallId === "toolu_child_write",
    );
    expect(childCall?.sessionId).toBe(child);
  }, 90_000);
});

describeSandbox(
  "garuda acp: cancelling the parent cancels its subagents",
  () => {
    test("session/cancel while the child runs a command: the command is gone and the " +
      "child ends cancelled", async () => {
      const tag = marker();
      const home = homeWithAgent("runner", "Bash");
      await using mock = startMockAnthropic({
        apiKey: "sk-ant-process-test",
        script: [
          use("agent", "toolu_agent", { name: "runner", prompt: "Run the long job" }),
          use("bash", "toolu_child_bash", { command: `sleep ${tag}` }),
        ],
      });
      const agent = await run(mock, { subagents: {} }, home);
      const turn = agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId: agent.sessionId,
        prompt: [{ type: "text", text: "Run it." }],
      });
      await eventually(() => sleepers(tag).length === 1, 20_000);
      const [pid] = sleepers(tag) as [number];
      await agent.agent.notify(acp.methods.agent.session.cancel, { sessionId: agent.sessionId });
      expect((await turn).stopReason).toBe("cancelled");
      await eventually(() => !alive(pid), 5_000);
      const all = sessionUpdates(agent.lines);
      const spawned = all.find(({ update }) => update.sessionUpdate === "subagent_spawned");
      const child = spawned?.update.subagentSessionId as string;
      expect(all.find(({ update }) => update.sessionUpdate === "subagent_state_update")).toEqual({
        sessionId: agent.sessionId,
        update: { sessionUpdate: "subagent_state_update", subagentSessionId: child, state: "cancelled" },
      });
      // The child's command ends failed in the child's session.
      const bashEnd = all.filter(
        ({ sessionId, update }) =>
          sessionId === child && update.toolCallId === "toolu_child_bash" && update.status === "failed",
      );
      expect(bashEnd.length).toBeGreaterThan(0);
      agent.proc.stdin.end();
      expect(await agent.proc.exited).toBe(0);
      agent.connection.close();
    }, 90_000);
  },
  "bwrap",
);
