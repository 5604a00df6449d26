// A running turn takes input, in the compiled `garuda acp` driven by the SDK's client against the
// mock Anthropic server: a `_session/steering` message reaches the model at its next step, after
// the running command ends (not by stopping it), and is replayed in its place by session/load;
// with no turn running the request's idleBehavior decides; a session/prompt sent during a turn
// waits and runs after it, in order; a cancel drops the waiting prompts with a line. Attacks: a
// steering message nested too deep, too large, for an unknown session or another connection's,
// and more prompts than the queue keeps — each refused cleanly, the session going on.
//
// A turn is held mid-flight by its command: `until [ -f go ]` runs until the test writes `go`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { garudaBinary } from "../support/garudaBinary.ts";
import { MAX_STEERING_BLOCKS, MAX_STEERING_DEPTH, parseSteering } from "../../src/acp/turnInput.ts";
import { startAgent } from "../support/acpAgent.ts";
import { type MockResponse, startMockAnthropic } from "../support/mockAnthropic.ts";
import { waitFor } from "../support/processes.ts";
import { makeTempDir } from "../support/tempDir.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-acp-steering-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const STEERING = "_session/steering";
const HELD_CALL = "toolu_held";

/** A bash call that runs until the test writes `go` in the project. */
const heldCall = (id = HELD_CALL): MockResponse => ({
  steps: [
    { type: "text", text: "Running it." },
    {
      type: "tool_use",
      name: "bash",
      id,
      input: { command: "until [ -f go ]; do sleep 0.05; done; echo released", description: "Wait for go" },
    },
  ],
});
const reply = (text: string): MockResponse => ({ steps: [{ type: "text", text }] });

type Agent = ReturnType<typeof startAgent>;

async function session(script: MockResponse[]) {
  const mock = startMockAnthropic({ apiKey: "sk-ant-process-test", script });
  const root = makeTempDir("root-", { under: work });
  const agent = startAgent(binary, mock, root, work);
  const init = await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
  const prompt = (text: string) =>
    agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  const steer = (params: Record<string, unknown>) =>
    agent.agent.request<Record<string, unknown>, Record<string, unknown>>(STEERING, { sessionId, ...params });
  const release = () => writeFileSync(join(root, "go"), "");
  const close = async () => {
    agent.proc.kill();
    await agent.proc.exited;
    await mock.close();
  };
  return { mock, root, agent, init, sessionId, prompt, steer, release, close };
}

/** Resolves once the held command runs (its call is in progress). */
const running = (agent: Agent, id = HELD_CALL) =>
  waitFor(
    () =>
      agent.updates.some(
        (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === id && u.status === "in_progress",
      ),
    20_000,
  );

const agentText = (updates: readonly acp.SessionUpdate[]) =>
  updates
    .map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : ""))
    .join("");

/** Where each kind of thing shows in the updates: the steering text, the held call's end, and `after`. */
function order(updates: readonly acp.SessionUpdate[], steering: string, after: string) {
  const steered = updates.findIndex(
    (u) => u.sessionUpdate === "user_message_chunk" && u.content.type === "text" && u.content.text === steering,
  );
  const ended = updates.findIndex(
    (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === HELD_CALL && u.status === "completed",
  );
  const answered = updates.findIndex(
    (u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" && u.content.text.includes(after),
  );
  return { steered, ended, answered };
}

/** The content blocks of the last user message of a request the model got. */
function lastUserContent(body: unknown): Array<Record<string, unknown>> {
  const messages = (body as { messages: Array<{ role: string; content: unknown }> }).messages;
  const last = messages.at(-1);
  expect(last?.role).toBe("user");
  return last?.content as Array<Record<string, unknown>>;
}

const rpcError = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught as { code: number; message: string },
  );
  expect(error).toBeDefined();
  return error as { code: number; message: string };
};

describe("_session/steering", () => {
  test("advertised in the answer to initialize", async () => {
    const s = await session([]);
    try {
      expect((s.init as { _meta?: { steering?: unknown } })._meta?.steering).toEqual({ supported: true });
    } finally {
      await s.close();
    }
  }, 60_000);

  test("mid-turn: the model gets the message after the running command's result, and " +
    "session/load replays it in its place", async () => {
    const s = await session([heldCall(), reply("Also checked the README.")]);
    try {
      const turn = s.prompt("Run the check.");
      await running(s.agent);
      expect(await s.steer({ prompt: [{ type: "text", text: "Also look at the README." }] })).toEqual({
        outcome: "injected",
      });
      // The command is not stopped by it: it runs on until released, and ends completed.
      await Bun.sleep(300);
      expect(s.mock.requests).toHaveLength(1);
      s.release();
      expect(await turn).toMatchObject({ stopReason: "end_turn" });

      // The next request: the command's result, then the message, in one user message.
      expect(s.mock.requests).toHaveLength(2);
      const content = lastUserContent(s.mock.requests[1]?.body);
      expect(content.map((block) => block.type)).toEqual(["tool_result", "text"]);
      expect(JSON.stringify(content[0])).toContain("released");
      expect(content[1]?.text).toBe("Also look at the README.");

      // Shown live where the model got it: after the command ended, before the answer to it.
      const live = order(s.agent.updates, "Also look at the README.", "Also checked the README.");
      expect(live.ended).toBeGreaterThan(-1);
      expect(live.steered).toBeGreaterThan(live.ended);
      expect(live.answered).toBeGreaterThan(live.steered);

      // The session file keeps it: a replay shows it in the same place.
      await s.agent.agent.request(acp.methods.agent.session.close, { sessionId: s.sessionId });
      s.agent.updates.length = 0;
      await s.agent.agent.request(acp.methods.agent.session.load, {
        sessionId: s.sessionId,
        cwd: s.root,
        mcpServers: [],
      });
      const replayed = order(s.agent.updates, "Also look at the README.", "Also checked the README.");
      expect(replayed.ended).toBeGreaterThan(-1);
      expect(replayed.steered).toBeGreaterThan(replayed.ended);
      expect(replayed.answered).toBeGreaterThan(replayed.steered);
      const prompts = s.agent.updates.filter((u) => u.sessionUpdate === "user_message_chunk");
      expect(prompts).toHaveLength(2);
    } finally {
      await s.close();
    }
  }, 60_000);

  test("idle, with idleBehavior promptRequired: answered so, and nothing runs", async () => {
    const s = await session([reply("Should not run.")]);
    try {
      const answer = await s.steer({
        prompt: [{ type: "text", text: "Hello?" }],
        _meta: { steering: { idleBehavior: "promptRequired" } },
      });
      expect(answer).toEqual({ outcome: "promptRequired", reason: "noRunningTurn" });
      // A value Garuda does not know starts nothing either.
      expect(
        await s.steer({
          prompt: [{ type: "text", text: "Hello?" }],
          _meta: { steering: { idleBehavior: "whatever" } },
        }),
      ).toEqual({ outcome: "promptRequired", reason: "noRunningTurn" });
      await Bun.sleep(300);
      expect(s.mock.requests).toHaveLength(0);
    } finally {
      await s.close();
    }
  }, 60_000);

  test("idle, without idleBehavior: a turn starts with the message", async () => {
    const s = await session([reply("Started from a steering message.")]);
    try {
      expect(await s.steer({ prompt: [{ type: "text", text: "Begin the review." }] })).toEqual({
        outcome: "startedNewTurn",
      });
      await waitFor(() => agentText(s.agent.updates).includes("Started from a steering message."), 20_000);
      const content = lastUserContent(s.mock.requests[0]?.body);
      expect(JSON.stringify(content)).toContain("Begin the review.");
    } finally {
      await s.close();
    }
  }, 60_000);

  test("attacks: too deep, too large, unknown session, another connection's session — " +
    "refused, the turn goes on", async () => {
    const s = await session([heldCall(), reply("Done after all that.")]);
    const other = await session([]);
    try {
      const turn = s.prompt("Run the check.");
      await running(s.agent);

      // Nested far deeper than Garuda reads, inside _meta: -32602, and nothing of it is kept.
      let deep: unknown = "bottom";
      for (let i = 0; i < 5_000; i++) deep = { a: deep };
      const tooDeep = await rpcError(s.steer({ prompt: [{ type: "text", text: "deep" }], _meta: deep }));
      expect(tooDeep.code).toBe(-32602);
      expect(tooDeep.message + JSON.stringify(tooDeep)).toContain("nested deeper than 16 levels");

      // Larger than one message to the model may be (2,000,000 characters at most): failed, with why.
      const huge = await s.steer({ prompt: [{ type: "text", text: "x".repeat(2_500_000) }] });
      expect(huge.outcome).toBe("failed");
      expect(String(huge.reason)).toContain("more than the");

      // Not a content block Garuda takes.
      const image = await rpcError(
        s.steer({ prompt: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }] }),
      );
      expect(image.code).toBe(-32602);

      // An unknown session, and a session of another connection (another editor's process).
      const unknown = await rpcError(
        s.agent.agent.request(STEERING, { sessionId: "no-such-session", prompt: [{ type: "text", text: "hi" }] }),
      );
      expect(unknown.code).toBe(-32002);
      const foreign = await rpcError(
        other.agent.agent.request(STEERING, { sessionId: s.sessionId, prompt: [{ type: "text", text: "hi" }] }),
      );
      expect(foreign.code).toBe(-32002);

      // The turn lost nothing: the command ends completed, and the model got none of the refused messages.
      s.release();
      expect(await turn).toMatchObject({ stopReason: "end_turn" });
      const content = lastUserContent(s.mock.requests[1]?.body);
      expect(content.map((block) => block.type)).toEqual(["tool_result"]);
      expect(agentText(s.agent.updates)).toContain("Done after all that.");
    } finally {
      await s.close();
      await other.close();
    }
  }, 60_000);
});

describe("session/prompt during a turn", () => {
  test("waits, and runs after the turn, in order", async () => {
    const s = await session([heldCall(), reply("First done."), reply("Second done."), reply("Third done.")]);
    try {
      const answers: string[] = [];
      const first = s.prompt("First.").then((r) => answers.push(`first ${r.stopReason}`));
      await running(s.agent);
      const second = s.prompt("Second.").then((r) => answers.push(`second ${r.stopReason}`));
      const third = s.prompt("Third.").then((r) => answers.push(`third ${r.stopReason}`));
      await Bun.sleep(300);
      expect(answers).toEqual([]);
      expect(s.mock.requests).toHaveLength(1);
      s.release();
      await Promise.all([first, second, third]);
      expect(answers).toEqual(["first end_turn", "second end_turn", "third end_turn"]);
      const lastTexts = s.mock.requests.map((r) => JSON.stringify(lastUserContent(r.body)));
      expect(lastTexts[2]).toContain("Second.");
      expect(lastTexts[3]).toContain("Third.");
      const text = agentText(s.agent.updates);
      expect(text.indexOf("First done.")).toBeLessThan(text.indexOf("Second done."));
      expect(text.indexOf("Second done.")).toBeLessThan(text.indexOf("Third done."));
    } finally {
      await s.close();
    }
  }, 60_000);

  test("a cancel drops the waiting prompts with a line; more than 8 waiting are refused", async () => {
    const s = await session([heldCall()]);
    try {
      const first = s.prompt("First.");
      await running(s.agent);
      const waiting = Array.from({ length: 8 }, (_, i) => s.prompt(`Waiting ${i}.`));
      await Bun.sleep(200);
      const refused = await rpcError(s.prompt("One too many."));
      expect(refused.code).toBe(-32600);
      expect(refused.message).toContain("8 prompts already wait");

      await s.agent.agent.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
      for (const answer of await Promise.all(waiting)) expect(answer.stopReason).toBe("cancelled");
      expect((await first).stopReason).toBe("cancelled");
      expect(agentText(s.agent.updates)).toContain(
        "The 8 prompts queued behind this turn were dropped with the stop; none of them ran.",
      );
      // None of them reached the model.
      expect(s.mock.requests).toHaveLength(1);
    } finally {
      await s.close();
    }
  }, 60_000);
});

describe("parseSteering (the params as Garuda reads them)", () => {
  const refusal = (params: unknown) => {
    try {
      parseSteering(params);
    } catch (error) {
      return error as { code: number; message: string };
    }
    throw new Error("expected a refusal");
  };

  test(
    "only the fields Garuda reads are kept; no idleBehavior starts a turn, any " +
      "value asks for a prompt (none is known to start one)",
    () => {
      const parsed = parseSteering({
        sessionId: "s",
        prompt: [
          { type: "text", text: "hi", annotations: { audience: ["user"] }, _meta: { x: { y: 1 } } },
          { type: "resource_link", uri: "file:///a.ts", name: "a.ts", size: 10, _meta: {} },
          { type: "resource", resource: { uri: "file:///b.ts", text: "b", mimeType: "text/plain" } },
          { type: "resource", resource: { uri: "file:///c.bin", blob: "AAAA" } },
        ],
      });
      expect(parsed).toEqual({
        sessionId: "s",
        prompt: [
          { type: "text", text: "hi" },
          { type: "resource_link", uri: "file:///a.ts", name: "a.ts" },
          { type: "resource", resource: { uri: "file:///b.ts", text: "b" } },
          { type: "resource", resource: { uri: "file:///c.bin", blob: "AAAA" } },
        ],
        idle: "startNewTurn",
      });
      const text = [{ type: "text", text: "hi" }];
      for (const idleBehavior of ["promptRequired", "startNewTurn", 7, null])
        expect(parseSteering({ sessionId: "s", prompt: text, _meta: { steering: { idleBehavior } } }).idle).toBe(
          "promptRequired",
        );
    },
  );

  test("refused with -32602: no session, no prompt, too many blocks, an unknown or malformed block, too deep", () => {
    const text = { type: "text", text: "hi" };
    expect(refusal({ prompt: [text] }).code).toBe(-32602);
    expect(refusal({ sessionId: "s", prompt: [] }).code).toBe(-32602);
    expect(refusal({ sessionId: "s", prompt: "hi" }).code).toBe(-32602);
    expect(refusal({ sessionId: "s", prompt: Array(MAX_STEERING_BLOCKS + 1).fill(text) }).message).toContain(
      `more than the ${MAX_STEERING_BLOCKS}`,
    );
    expect(refusal({ sessionId: "s", prompt: [{ type: "text" }] }).code).toBe(-32602);
    expect(refusal({ sessionId: "s", prompt: [{ type: "video", uri: "x" }] }).message).toContain('"video"');
    let deep: unknown = text;
    for (let i = 0; i < MAX_STEERING_DEPTH; i++) deep = { a: deep };
    expect(refusal({ sessionId: "s", prompt: [text], _meta: deep }).message).toContain("nested deeper");
    expect(refusal(null).code).toBe(-32602);
  });
});
