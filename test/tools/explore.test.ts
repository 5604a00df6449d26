import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeCredentials } from "../../src/config/credentials.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { ProviderKeys } from "../../src/config/providerKeys.ts";
import { FakeModelClient, type FakeStep, type FakeTurn, fake } from "../../src/model/fake.ts";
import { ModelError, type ModelRequest } from "../../src/model/types.ts";
import type { AgentEvent } from "../../src/core-types/events.ts";
import { prepareRuntime } from "../../src/compose/prepare.ts";
import { EXPLORE_MAX_STEPS, EXPLORE_TOOLS, exploreTool, WRAP_UP } from "../../src/tools/explore.ts";
import { fileTools } from "../../src/tools/fileTools.ts";
import { createSessionTools } from "../../src/tools/sessionTools.ts";
import type { Tool } from "../../src/tools/types.ts";
import {
  ofType,
  scriptedApprover,
  testRuntime,
  texts,
  turn,
  type TestRuntimeOptions,
} from "../support/runtimeHelpers.ts";
import { makeTempDir, tempDir } from "../support/tempDir.ts";
import { planContext, runTool, toolContext } from "../support/toolFixtures.ts";

const isChild = (request: ModelRequest) => request.system.startsWith("You are explore");

/** A turn the parent must play (its own system prompt). */
const parent =
  (steps: FakeStep[]): FakeTurn =>
  (request) => {
    if (isChild(request)) throw new Error("a parent turn was played for the subagent");
    return steps;
  };

/** A turn the subagent must play (the explore system prompt). */
const child =
  (steps: FakeStep[]): FakeTurn =>
  (request) => {
    if (!isChild(request)) throw new Error("a subagent turn was played for the parent");
    return steps;
  };

/** The session's whole tool set, as prepareRuntime builds it. */
function sessionTools(): Tool[] {
  return [...fileTools({ home: process.env.HOME as string }), ...createSessionTools().tools, exploreTool()];
}

function runtimeWith(turns: FakeTurn[], options: TestRuntimeOptions = {}) {
  return testRuntime({
    turns,
    tools: sessionTools(),
    sessionStore: false,
    files: {
      "a.ts": "export const answer = 42;\n",
      "b.ts": "import { answer } from './a.ts';\nconsole.log(answer);\n",
    },
    ...options,
  });
}

const explore = (question: string, id = "ex1", focus?: string[]) =>
  fake.toolCall("explore", { question, ...(focus && { focus }) }, { id });
const toolNames = (request: ModelRequest | undefined) => (request?.tools ?? []).map((tool) => tool.name);

describe("explore: a read-only subagent", () => {
  test(
    "the child's calls are reported inside the explore call, in order; its answer " +
      "is the result, its text is not streamed",
    async () => {
      await using t = runtimeWith([
        parent(explore("Where is answer defined and used?", "ex1", ["a.ts"])),
        child(fake.toolCall("grep", { pattern: "answer" }, { id: "c1", text: "Searching." })),
        child(fake.toolCall("read_file", { path: "a.ts" }, { id: "c2" })),
        child(fake.text("answer is defined at a.ts:1 and used at b.ts:2.")),
        parent(fake.text("Found it.")),
      ]);
      const { stop, events } = await turn(t.runtime, "Where is answer?");
      expect(stop).toBe("done");

      const tools = events.filter(
        (e) => e.type === "tool_call" || e.type === "tool_result" || e.type === "tool_progress",
      );
      const shape = tools.map(
        (e) => `${e.type} ${e.callId}${"parentCallId" in e && e.parentCallId ? ` in ${e.parentCallId}` : ""}`,
      );
      expect(shape).toEqual([
        "tool_call ex1",
        "tool_call c1 in ex1",
        "tool_progress ex1",
        "tool_result c1 in ex1",
        "tool_call c2 in ex1",
        "tool_progress ex1",
        "tool_result c2 in ex1",
        "tool_result ex1",
      ]);
      const call = ofType(events, "tool_call")[0];
      expect(call?.info).toMatchObject({
        title: "Subagent: explore",
        kind: "think",
        locations: [{ path: join(t.root, "a.ts") }],
      });
      expect(ofType(events, "tool_progress").map((e) => e.text)).toEqual(["Search answer", "Read a.ts"]);
      const childResults = ofType(events, "tool_result").filter((e) => e.parentCallId === "ex1");
      expect(childResults.every((e) => e.status === "completed")).toBe(true);

      const result = ofType(events, "tool_result").find((e) => e.callId === "ex1");
      expect(result).toMatchObject({
        status: "completed",
        output: "answer is defined at a.ts:1 and used at b.ts:2.",
        summary: expect.stringContaining("2 calls, 3 steps"),
      });
      // Only the parent's own text reaches the stream.
      expect(texts(events)).toBe("Found it.");
      // The parent model reads the answer as the explore call's result; the child's messages stay out.
      const last = t.model.lastRequest;
      expect(isChild(last)).toBe(false);
      expect(JSON.stringify(last.messages)).toContain("answer is defined at a.ts:1");
      expect(JSON.stringify(last.messages)).not.toContain("Searching.");
      // The child's first message is the question with its focus.
      const first = t.model.requests[1];
      expect(first?.messages[0]?.content).toEqual([
        { type: "text", text: "Where is answer defined and used?\n\nStart from: a.ts" },
      ]);
      expect(first?.system).toContain(`Project root: ${t.root}`);
    },
  );

  test(
    "the child has only the read-only tools: write, edit, bash and explore itself " + "are not offered and cannot run",
    async () => {
      await using t = runtimeWith([
        parent(explore("Change a.ts?")),
        child(
          fake.toolCalls([
            { name: "write_file", input: { path: "a.ts", content: "x" }, id: "w1" },
            { name: "bash", input: { command: "rm a.ts" }, id: "b1" },
            { name: "explore", input: { question: "nested" }, id: "n1" },
          ]),
        ),
        child(fake.text("I can only read: a.ts:1 defines answer.")),
        parent(fake.text("ok")),
      ]);
      const { events } = await turn(t.runtime, "go");
      const parentSpecs = toolNames(t.model.requests[0]);
      expect(parentSpecs).toEqual(expect.arrayContaining(["explore", "write_file", "edit_file", "bash", "read_file"]));
      const childSpecs = toolNames(t.model.requests[1]);
      expect(childSpecs).toEqual([...EXPLORE_TOOLS].sort());
      const failed = ofType(events, "tool_result").filter((e) => e.parentCallId === "ex1");
      expect(failed.map((e) => [e.callId, e.status])).toEqual([
        ["w1", "failed"],
        ["b1", "failed"],
        ["n1", "failed"],
      ]);
      expect(failed[0]?.output).toContain('there is no tool named "write_file"');
      expect(await Bun.file(join(t.root, "a.ts")).text()).toBe("export const answer = 42;\n");
    },
  );

  test("a read outside the root inside the child asks the approver, as a subagent call", async () => {
    const outside = makeTempDir("garuda-outside-");
    writeFileSync(join(outside, "notes.txt"), "outside notes\n");
    const approver = scriptedApprover("once");
    try {
      await using t = runtimeWith(
        [
          parent(explore("What do the outside notes say?")),
          child(fake.toolCall("read_file", { path: join(outside, "notes.txt") }, { id: "c1" })),
          child(fake.text("They say: outside notes (notes.txt:1).")),
          parent(fake.text("done")),
        ],
        { approver },
      );
      const { events } = await turn(t.runtime, "go");
      expect(approver.asked).toHaveLength(1);
      expect(approver.asked[0]).toMatchObject({ callId: "c1", parentCallId: "ex1", tool: "read_file" });
      const read = ofType(events, "tool_result").find((e) => e.callId === "c1");
      expect(read).toMatchObject({ status: "completed", parentCallId: "ex1" });
      expect(read?.output).toContain("outside notes");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  test("cancel during the child stops it at once; the parent turn ends cancelled", async () => {
    await using t = runtimeWith([
      parent(explore("Look around.")),
      child(fake.toolCall("read_file", { path: "a.ts" }, { id: "c1" })),
      child([fake.wait(Number.POSITIVE_INFINITY)]),
      parent(fake.text("never")),
    ]);
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    const started = performance.now();
    const stop = await t.runtime.runTurn("go", controller.signal, (event) => {
      events.push(event);
      // The child's read is done: its next request hangs until the cancel.
      if (event.type === "tool_result" && event.callId === "c1") setTimeout(() => controller.abort(), 20);
    });
    expect(stop).toBe("cancelled");
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(t.model.requests).toHaveLength(3);
    expect(t.model.remaining).toBe(1);
    // The explore call's own result follows at once, failed with the cancel.
    await Bun.sleep(20);
    expect(ofType(events, "tool_result").find((e) => e.callId === "ex1")).toMatchObject({
      status: "failed",
      output: "Cancelled by the user.",
    });
    // The explore call is closed in the conversation for the next turn.
    const results = t.runtime.messages.flatMap((m) =>
      m.role === "user" ? m.content.filter((b) => b.type === "tool_result") : [],
    );
    expect(results).toEqual([expect.objectContaining({ toolUseId: "ex1", isError: true })]);
  });

  test("at the step limit the child gets one wrap-up request and still answers", async () => {
    const steps: FakeTurn[] = [];
    for (let i = 0; i < EXPLORE_MAX_STEPS; i++)
      steps.push(child(fake.toolCall("glob", { pattern: `*.${i}` }, { id: `g${i}` })));
    let wrapUp: ModelRequest | undefined;
    await using t = runtimeWith([
      parent(explore("Find everything.")),
      ...steps,
      (request) => {
        wrapUp = request;
        // A call in the wrap-up is not run.
        return fake.reply([
          { type: "text", text: "Partial answer: a.ts:1." },
          { type: "tool_use", id: "late", name: "glob", input: { pattern: "*" } },
        ]);
      },
      parent(fake.text("ok")),
    ]);
    const { stop, events } = await turn(t.runtime, "go");
    expect(stop).toBe("done");
    expect(t.model.requests).toHaveLength(1 + EXPLORE_MAX_STEPS + 1 + 1);
    expect(wrapUp && isChild(wrapUp)).toBe(true);
    expect(JSON.stringify(wrapUp?.messages.at(-1))).toContain(WRAP_UP);
    // The tools stay in the request (a conversation with tool calls needs them), but none runs.
    expect(toolNames(wrapUp)).toEqual([...EXPLORE_TOOLS].sort());
    expect(ofType(events, "tool_call").some((e) => e.callId === "late")).toBe(false);
    expect(ofType(events, "tool_call").filter((e) => e.parentCallId === "ex1")).toHaveLength(EXPLORE_MAX_STEPS);
    const result = ofType(events, "tool_result").find((e) => e.callId === "ex1");
    expect(result?.status).toBe("completed");
    expect(result?.output).toStartWith("Partial answer: a.ts:1.");
    expect(result?.output).toContain("reached its step limit");
    expect(result?.summary).toContain(`${EXPLORE_MAX_STEPS + 1} steps`);
  });

  test("the session's lower step limit caps the child", async () => {
    await using t = runtimeWith(
      [
        parent(explore("Find everything.")),
        child(fake.toolCall("glob", { pattern: "*.a" })),
        child(fake.toolCall("glob", { pattern: "*.b" })),
        child(fake.toolCall("glob", { pattern: "*.c" })),
        child(fake.text("Wrapped: nothing found.")),
        parent(fake.text("ok")),
      ],
      { limits: { maxSteps: 3 } },
    );
    const { events } = await turn(t.runtime, "go");
    expect(JSON.stringify(t.model.requests[4]?.messages.at(-1))).toContain(WRAP_UP);
    const output = ofType(events, "tool_result").find((e) => e.callId === "ex1")?.output;
    expect(output).toStartWith("Wrapped: nothing found.");
    expect(output).toContain("reached its step limit");
    expect(t.model.remaining).toBe(0);
  });

  test(
    "the child's usage counts toward the session; its budget stops it, with a " + "wrap-up when there is room",
    async () => {
      const usage = (inputTokens: number) => ({ usage: { inputTokens, outputTokens: 0 } });
      await using t = runtimeWith(
        [
          parent(fake.toolCall("explore", { question: "q" }, { id: "ex1", ...usage(0) })),
          // The child's budget is what is left of the session's, 10,000: its loop stops at 9,000, the
          // wrap-up fits below 10,000.
          child(fake.toolCall("glob", { pattern: "*.a" }, usage(3_000))),
          child(fake.toolCall("glob", { pattern: "*.b" }, usage(3_000))),
          child(fake.toolCall("glob", { pattern: "*.c" }, usage(3_000))),
          child(fake.text("Budget answer.", usage(500))),
          parent(fake.text("ok", usage(100))),
        ],
        { limits: { tokenBudget: 10_000 } },
      );
      const { events } = await turn(t.runtime, "go");
      expect(ofType(events, "tool_result").find((e) => e.callId === "ex1")).toMatchObject({
        status: "completed",
        output: expect.stringContaining("used up its token budget"),
        summary: "3 calls, 4 steps, 9,500 tokens",
      });
      expect(t.runtime.tokensUsed).toBe(9_600);
    },
  );

  test(
    "a child that uses up the session's budget ends without a wrap-up, and the " + "parent stops at token_budget",
    async () => {
      const usage = (inputTokens: number) => ({ usage: { inputTokens, outputTokens: 0 } });
      await using t = runtimeWith(
        [
          parent(fake.toolCall("explore", { question: "q" }, { id: "ex1", ...usage(1_000) })),
          child(fake.toolCall("glob", { pattern: "*.a" }, usage(4_000))),
          child(fake.toolCall("glob", { pattern: "*.b" }, usage(4_000))),
          child(fake.toolCall("glob", { pattern: "*.c" }, usage(4_000))),
          parent(fake.text("never")),
        ],
        { limits: { tokenBudget: 10_000 } },
      );
      const { stop, events } = await turn(t.runtime, "go");
      expect(stop).toBe("token_budget");
      expect(t.runtime.tokensUsed).toBe(13_000);
      expect(t.model.remaining).toBe(1);
      expect(ofType(events, "tool_result").find((e) => e.callId === "ex1")).toMatchObject({
        status: "failed",
        output: expect.stringContaining("without an answer"),
      });
    },
  );

  test("a model error in the child fails the explore call; the tokens used until then are counted", async () => {
    await using t = runtimeWith([
      parent(explore("q")),
      child(fake.toolCall("glob", { pattern: "*.ts" }, { usage: { inputTokens: 700, outputTokens: 50 } })),
      child(fake.fail(new ModelError("overloaded"))),
      parent(fake.text("I will search myself.")),
    ]);
    const { stop, events } = await turn(t.runtime, "go");
    expect(stop).toBe("done");
    expect(ofType(events, "tool_result").find((e) => e.callId === "ex1")).toMatchObject({
      status: "failed",
      output: "Error: explore failed: overloaded",
    });
    expect(t.runtime.tokensUsed).toBe(750);
  });

  test("describe, permission, and no subagent without the Runtime's capability", async () => {
    const tool = exploreTool();
    expect(tool.readOnly).toBe(true);
    expect(tool.plan({ question: "q", focus: ["src", "/abs/x.ts"] }, planContext("/root")).info).toEqual({
      title: "Subagent: explore",
      kind: "think",
      locations: [{ path: "/root/src" }, { path: "/abs/x.ts" }],
    });
    expect(
      tool.plan({ question: "where?" }, { root: "/root", home: "/home", sandbox: null, executor: {} as never })
        .permission,
    ).toMatchObject({
      tool: "explore",
      readOnly: true,
      target: { kind: "input" },
    });
    using root = tempDir();
    const result = await runTool(tool, { question: "q" }, toolContext(root.path));
    expect(result).toMatchObject({ isError: true, output: expect.stringContaining("not available") });
    expect(tool.input.safeParse({ question: "  " }).success).toBe(false);
  });

  test("prepareRuntime offers explore, and its child runs with the session's read-only tools", async () => {
    using home = tempDir();
    using root = tempDir();
    writeFileSync(join(root.path, "a.ts"), "export const answer = 42;\n");
    const paths = garudaPaths(home.path);
    mkdirSync(paths.dir, { recursive: true });
    writeFileSync(paths.models, JSON.stringify({ default: "claude-sonnet-5" }));
    writeCredentials(paths.credentials, { ANTHROPIC_API_KEY: "sk-ant-test-key-0000" });
    const client = new FakeModelClient([
      parent(explore("Where is answer?")),
      child(fake.toolCall("read_file", { path: "a.ts" }, { id: "c1" })),
      child(fake.text("a.ts:1 defines answer.")),
      parent(fake.text("a.ts:1.")),
    ]);
    const runtime = await prepareRuntime({
      root: root.path,
      paths,
      env: { PATH: process.env.PATH, HOME: home.path },
      keys: new ProviderKeys(),
      managedPolicy: join(home.path, "no-managed-policy.json"),
      selfCommand: [process.execPath, join(import.meta.dir, "../../src/sandbox/bridgeMain.ts")],
      openModel: async () => client,
    });
    const events: AgentEvent[] = [];
    try {
      expect(await runtime.runTurn("Where?", new AbortController().signal, (e) => events.push(e))).toBe("done");
    } finally {
      await runtime.close();
    }
    expect(toolNames(client.requests[0])).toContain("explore");
    expect(toolNames(client.requests[1])).toEqual([...EXPLORE_TOOLS].sort());
    expect(ofType(events, "tool_result").find((e) => e.callId === "ex1")?.output).toBe("a.ts:1 defines answer.");
    expect(existsSync(join(root.path, "a.ts"))).toBe(true);
  });
});
