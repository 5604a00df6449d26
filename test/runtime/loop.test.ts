// The loop's rules, each through a whole Runtime with a scripted model and a temporary root.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { fake } from "../../src/model/fake.ts";
import type { Message, ModelRequest, ToolResultBlock } from "../../src/model/types.ts";
import { ModelError } from "../../src/model/types.ts";
import { readSession } from "../../src/store/sessionFile.ts";
import { CUT_TOOL_OUTPUT } from "../../src/runtime/loop.ts";
import { CUT_CONTINUE_NOTE, CUT_NOTE } from "../../src/runtime/notes.ts";
import { replayTurns } from "../../src/store/sessionHistory.ts";
import { ofType, readTool, scriptedApprover, testRuntime, texts, turn, writeTool } from "../support/runtimeHelpers.ts";

const lastUser = (request: ModelRequest): Message => {
  const message = request.messages.at(-1);
  if (message?.role !== "user") throw new Error("the request does not end with a user message");
  return message;
};
const results = (request: ModelRequest): ToolResultBlock[] =>
  lastUser(request).content.filter((block): block is ToolResultBlock => block.type === "tool_result");

describe("the loop", () => {
  test("a plain answer ends the turn as done", async () => {
    await using t = testRuntime({ turns: [fake.text("Hello!", { chunks: 3 })] });
    const { stop, events } = await turn(t.runtime, "hi");
    expect(stop).toBe("done");
    expect(texts(events)).toBe("Hello!");
    expect(ofType(events, "text_delta")).toHaveLength(3);
    expect(ofType(events, "step_end")).toEqual([{ type: "step_end", step: 1, usage: expect.any(Object) }]);
    expect(t.model.requests[0]?.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
    expect(t.runtime.messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "Hello!" }] });
  });

  test("tool calls: tool_call first, results paired with their ids and in call order", async () => {
    await using t = testRuntime({
      files: { "a.txt": "alpha", "b.txt": "beta" },
      turns: [
        fake.toolCalls([
          { name: "read", input: { path: "b.txt" }, id: "toolu_b" },
          { name: "read", input: { path: "a.txt" }, id: "toolu_a" },
        ]),
        fake.text("Done."),
      ],
    });
    const { stop, events } = await turn(t.runtime, "read them");
    expect(stop).toBe("done");
    expect(results(t.model.requests[1] as ModelRequest).map((block) => [block.toolUseId, block.content])).toEqual([
      ["toolu_b", "beta"],
      ["toolu_a", "alpha"],
    ]);
    for (const id of ["toolu_a", "toolu_b"]) {
      const mine = events.filter((event) => "callId" in event && event.callId === id);
      expect(mine.map((event) => event.type)).toEqual(["tool_call", "tool_start", "tool_result"]);
    }
    const call = ofType(events, "tool_call").find((event) => event.callId === "toolu_a");
    expect(call?.info.title).toBe("Read a.txt");
    expect(call?.info.locations).toEqual([{ path: join(t.runtime.root, "a.txt") }]);
    expect(ofType(events, "tool_result").find((event) => event.callId === "toolu_a")).toMatchObject({
      status: "completed",
      output: "alpha",
      summary: "read",
    });
  });

  test("read-only calls of one step run in parallel (a barrier both must reach)", async () => {
    let arrived = 0;
    let release: () => void = () => {};
    const barrier = new Promise<void>((resolve) => {
      release = resolve;
    });
    const waiting = readTool("wait", async () => {
      arrived++;
      if (arrived === 2) release();
      const timeout = Bun.sleep(2_000).then(() => "timeout");
      const result = await Promise.race([barrier.then(() => "met"), timeout]);
      return { output: result };
    });
    await using t = testRuntime({
      tools: [waiting],
      turns: [
        fake.toolCalls([
          { name: "wait", input: { path: "x" } },
          { name: "wait", input: { path: "y" } },
        ]),
        fake.text("ok"),
      ],
    });
    await turn(t.runtime, "go");
    expect(results(t.model.requests[1] as ModelRequest).map((block) => block.content)).toEqual(["met", "met"]);
  });

  test("a write between reads splits the batch: reads together, the write alone, in the model's order", async () => {
    const log: string[] = [];
    const slowRead = readTool("read", async (input) => {
      log.push(`start ${input.path}`);
      await Bun.sleep(20);
      log.push(`end ${input.path}`);
      return { output: input.path };
    });
    const write = writeTool("write", async (input) => {
      log.push(`write ${input.path}`);
      return { output: "written" };
    });
    await using t = testRuntime({
      tools: [slowRead, write],
      approver: scriptedApprover("once"),
      turns: [
        fake.toolCalls([
          { name: "read", input: { path: "r1" } },
          { name: "read", input: { path: "r2" } },
          { name: "write", input: { path: "w", content: "x" } },
          { name: "read", input: { path: "r3" } },
        ]),
        fake.text("ok"),
      ],
    });
    await turn(t.runtime, "go");
    expect(log).toEqual(["start r1", "start r2", "end r1", "end r2", "write w", "start r3", "end r3"]);
    expect(results(t.model.requests[1] as ModelRequest).map((block) => block.content)).toEqual([
      "r1",
      "r2",
      "written",
      "r3",
    ]);
  });

  test("a denial: the model hears 'Permission denied', the event says denied, nothing is written", async () => {
    const approver = scriptedApprover("deny");
    await using t = testRuntime({
      approver,
      turns: [fake.toolCall("write", { path: "a.txt", content: "x" }, { id: "toolu_w" }), fake.text("I will ask.")],
    });
    const { stop, events } = await turn(t.runtime, "write it");
    expect(stop).toBe("done");
    expect(approver.asked[0]).toMatchObject({
      callId: "toolu_w",
      title: "Write a.txt",
      change: { path: "a.txt", oldText: null, newText: "x" },
    });
    expect(approver.asked[0]?.preview).toContain("+x");
    const result = results(t.model.requests[1] as ModelRequest)[0];
    expect(result).toMatchObject({ toolUseId: "toolu_w", isError: true });
    expect(result?.content).toStartWith("Permission denied: The user denied this.");
    expect(ofType(events, "tool_result")[0]).toMatchObject({ callId: "toolu_w", status: "denied" });
    expect(existsSync(join(t.runtime.root, "a.txt"))).toBe(false);
  });

  test("max_steps: the turn stops after the step limit", async () => {
    const turns = Array.from({ length: 5 }, (_, i) => fake.toolCall("read", { path: `f${i}` }));
    await using t = testRuntime({
      turns,
      limits: { maxSteps: 3 },
      tools: [readTool("read", async () => ({ output: "x" }))],
    });
    const { stop } = await turn(t.runtime, "loop");
    expect(stop).toBe("max_steps");
    expect(t.model.requests).toHaveLength(3);
    expect(t.runtime.messages.at(-1)?.role).toBe("user");
  });

  test("token_budget: the session total stops the turn before the next request", async () => {
    await using t = testRuntime({
      limits: { tokenBudget: 1_000 },
      tools: [readTool("read", async () => ({ output: "x" }))],
      turns: [
        fake.toolCall("read", { path: "a" }, { usage: { inputTokens: 900, outputTokens: 200 } }),
        fake.text("never"),
      ],
    });
    const { stop } = await turn(t.runtime, "go");
    expect(stop).toBe("token_budget");
    expect(t.model.requests).toHaveLength(1);
    expect(t.runtime.tokensUsed).toBe(1_100);
    // The budget is per session: the next turn stops at once.
    expect((await turn(t.runtime, "again")).stop).toBe("token_budget");
    expect(t.model.requests).toHaveLength(1);
  });

  test("repeated_calls: the same call (key order ignored) three times in a row", async () => {
    const tool = readTool("look", async () => ({ output: "same" }));
    await using t = testRuntime({
      tools: [tool],
      turns: [
        fake.toolCall("look", { path: "a" }),
        fake.toolCall("look", { path: "a" }),
        fake.toolCall("look", { path: "a" }),
        fake.text("never"),
      ],
    });
    const { stop } = await turn(t.runtime, "go");
    expect(stop).toBe("repeated_calls");
    expect(t.model.requests).toHaveLength(3);
  });

  test("repeated_calls compares key-sorted input: {a,b} equals {b,a}", async () => {
    const multi = {
      ...readTool("multi", async () => ({ output: "x" })),
      input: z.object({ a: z.number(), b: z.number() }),
      describe: () => ({ title: "multi", kind: "read" as const, locations: [] }),
      permission: () => ({ tool: "multi", readOnly: true, target: { kind: "input" as const }, preview: "" }),
    };
    await using t = testRuntime({
      tools: [multi],
      turns: [
        fake.toolCall("multi", { a: 1, b: 2 }),
        fake.toolCall("multi", { b: 2, a: 1 }),
        fake.toolCall("multi", { a: 1, b: 2 }),
        fake.text("never"),
      ],
    });
    expect((await turn(t.runtime, "go")).stop).toBe("repeated_calls");
  });

  test("refusal ends the turn as refusal", async () => {
    await using t = testRuntime({ turns: [fake.text("I can't help with that.", { stopReason: "refusal" })] });
    expect((await turn(t.runtime, "bad")).stop).toBe("refusal");
  });

  test("max_tokens: a cut answer goes on with more room; the parts make one answer", async () => {
    await using t = testRuntime({
      turns: [fake.text("The first half, ", { stopReason: "max_tokens" }), fake.text("the second half.")],
    });
    const { stop, events } = await turn(t.runtime, "explain");
    expect(stop).toBe("done");
    expect(texts(events)).toBe("The first half, the second half.");
    const second = t.model.requests[1] as ModelRequest;
    expect(second.maxTokens).toBe(64_000);
    expect(second.messages.at(-2)).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "The first half, " }],
    });
    expect(lastUser(second).content).toEqual([
      { type: "text", text: `<garuda_note>\n${CUT_CONTINUE_NOTE}\n</garuda_note>` },
    ]);
    // Replay keeps it one turn: Garuda's note is not a prompt.
    const records = readSession(t.runtime.session?.file as string).records;
    expect(replayTurns(records).map((item) => item.prompt)).toEqual(["explain"]);
  });

  test("max_tokens: after three cuts in a turn the turn stops, and the next turn tells the model", async () => {
    const cut = () => fake.text("more…", { stopReason: "max_tokens" });
    await using t = testRuntime({ turns: [cut(), cut(), cut(), cut(), fake.text("ok")] });
    expect((await turn(t.runtime, "explain")).stop).toBe("max_tokens");
    expect(t.model.requests).toHaveLength(4);
    await turn(t.runtime, "go on");
    const blocks = lastUser(t.model.requests[4] as ModelRequest).content;
    expect(blocks.map((block) => (block.type === "text" ? block.text : ""))).toEqual([
      `<garuda_note>\n${CUT_NOTE}\n</garuda_note>`,
      "go on",
    ]);
  });

  test("max_tokens: a thinking block cut before its signature is not sent back", async () => {
    await using t = testRuntime({
      turns: [
        fake.reply([{ type: "thinking", thinking: "half a thou", signature: "" }], { stopReason: "max_tokens" }),
        fake.text("Answer."),
      ],
    });
    expect((await turn(t.runtime, "think")).stop).toBe("done");
    expect((t.model.requests[1] as ModelRequest).messages.map((message) => message.role)).toEqual(["user"]);
  });

  test(
    "max_tokens in the middle of a tool call: the call does not run, the model " + "hears why and gets more room",
    async () => {
      let ran = 0;
      await using t = testRuntime({
        tools: [readTool("read", async () => ({ output: String(++ran) }))],
        turns: [
          fake.toolCall("read", { path: "big" }, { stopReason: "max_tokens", id: "toolu_cut" }),
          fake.text("Retried."),
        ],
      });
      const { stop } = await turn(t.runtime, "go");
      expect(stop).toBe("done");
      expect(ran).toBe(0);
      expect(results(t.model.requests[1] as ModelRequest)).toEqual([
        { type: "tool_result", toolUseId: "toolu_cut", content: CUT_TOOL_OUTPUT, isError: true },
      ]);
      expect(t.model.requests[0]?.maxTokens).toBe(32_000);
      expect(t.model.requests[1]?.maxTokens).toBe(64_000);
    },
  );

  test("pause_turn continues the turn with the paused content sent back", async () => {
    const search = { type: "server_tool_use" as const, id: "srvtoolu_1", name: "web_search", input: { query: "bun" } };
    const found = {
      type: "server_tool_result" as const,
      toolUseId: "srvtoolu_1",
      blockType: "web_search_tool_result",
      content: [{ url: "https://bun.sh" }],
    };
    await using t = testRuntime({
      turns: [
        fake.reply([{ type: "text", text: "Searching. " }, search, found], { stopReason: "pause_turn" }),
        fake.text("Bun is a runtime."),
      ],
    });
    const { stop, events } = await turn(t.runtime, "what is bun");
    expect(stop).toBe("done");
    expect(t.model.requests).toHaveLength(2);
    const second = t.model.requests[1] as ModelRequest;
    expect(second.messages.at(-1)).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Searching. " }, search, found],
    });
    expect(ofType(events, "server_tool").map((event) => [event.callId, event.status, event.name])).toEqual([
      ["srvtoolu_1", "started", "web_search"],
      ["srvtoolu_1", "completed", "web_search"],
    ]);
    // The continuation joins the paused message: roles keep alternating.
    expect(t.runtime.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(texts(events)).toBe("Searching. Bun is a runtime.");
  });

  test("model_retry before any text is not partial: nothing shown was voided", async () => {
    await using t = testRuntime({
      turns: [[fake.retry(2, "529 overloaded_error: Overloaded", 0), ...fake.text("Hello")]],
    });
    const { events } = await turn(t.runtime, "hi");
    expect(ofType(events, "model_retry")[0]).toMatchObject({ attempt: 2, partial: false });
  });

  test("model_retry: the events say so, and the recorded answer is only the retried one", async () => {
    await using t = testRuntime({
      turns: [
        [
          { type: "text_delta", text: "Hel" },
          fake.retry(2, "529 overloaded_error: Overloaded", 0),
          ...fake.text("Hello again"),
        ],
      ],
    });
    const { stop, events } = await turn(t.runtime, "hi");
    expect(stop).toBe("done");
    expect(events.map((event) => event.type).slice(0, 4)).toEqual(["title", "text_delta", "model_retry", "text_delta"]);
    expect(ofType(events, "model_retry")[0]).toEqual({
      type: "model_retry",
      attempt: 2,
      delayMs: 0,
      reason: "529 overloaded_error: Overloaded",
      partial: true,
    });
    const file = t.runtime.session?.file as string;
    const assistant = readSession(file).records.filter((record) => record.type === "assistant");
    expect(assistant.map((record) => record.type === "assistant" && record.content)).toEqual([
      [{ type: "text", text: "Hello again" }],
    ]);
  });

  test("a model error propagates after the stop is recorded as error", async () => {
    await using t = testRuntime({ turns: [fake.fail(new ModelError("Anthropic says 401: invalid x-api-key", 401))] });
    await expect(turn(t.runtime, "hi")).rejects.toThrow("invalid x-api-key");
    t.runtime.recordStop("error");
    const records = readSession(t.runtime.session?.file as string).records;
    expect(records.filter((record) => record.type === "end")).toEqual([
      expect.objectContaining({ type: "end", stopReason: "error", steps: 1 }),
    ]);
  });

  test("an unknown tool and an invalid input give errors the model can act on", async () => {
    await using t = testRuntime({
      turns: [
        fake.toolCalls([
          { name: "nope", input: {}, id: "toolu_1" },
          { name: "read", input: { path: 42 }, id: "toolu_2" },
        ]),
        fake.text("fixed"),
      ],
    });
    const { events } = await turn(t.runtime, "go");
    const [unknown, invalid] = results(t.model.requests[1] as ModelRequest);
    expect(unknown?.content).toBe('Error: there is no tool named "nope". The tools are: read, write.');
    expect(invalid?.content).toContain("Error: the input of read is not valid:");
    expect(invalid?.content).toContain("expected string, received number");
    expect(invalid?.content).toContain("→ at path");
    expect(ofType(events, "tool_call").map((event) => event.callId)).toEqual(["toolu_1", "toolu_2"]);
    expect(ofType(events, "tool_result").map((event) => event.status)).toEqual(["failed", "failed"]);
  });

  test("a tool that throws: 'Error: <tool> failed: <message>'", async () => {
    await using t = testRuntime({
      tools: [readTool("read", async () => Promise.reject(new Error("disk on fire")))],
      turns: [fake.toolCall("read", { path: "a" }), fake.text("ok")],
    });
    await turn(t.runtime, "go");
    expect(results(t.model.requests[1] as ModelRequest)[0]).toMatchObject({
      content: "Error: read failed: disk on fire",
      isError: true,
    });
  });
});

describe("cancel", () => {
  test("abort during the model stream: cancelled at once, nothing recorded for the response", async () => {
    await using t = testRuntime({
      turns: [[{ type: "text_delta", text: "thinking about it" }, fake.wait(Infinity)], fake.text("next")],
    });
    const controller = new AbortController();
    const events: string[] = [];
    const started = performance.now();
    const pending = t.runtime.runTurn("hi", controller.signal, (event) => {
      events.push(event.type);
      if (event.type === "text_delta") setTimeout(() => controller.abort(), 10);
    });
    expect(await pending).toBe("cancelled");
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(t.runtime.messages.map((message) => message.role)).toEqual(["user"]);
    // The next turn works, its prompt joined to the cancelled one.
    expect((await turn(t.runtime, "again")).stop).toBe("done");
  });

  test("abort during tools: cancelled quickly, every tool's signal aborted, the next request is valid", async () => {
    const signals: AbortSignal[] = [];
    let finishedAfterAbort = false;
    const controller = new AbortController();
    // The cancel comes once both slow tools run (not on a timer from their calls' events: on a
    // busy machine the tools may not have started 20 ms after those).
    const started = (signal: AbortSignal) => {
      signals.push(signal);
      if (signals.length === 2) setTimeout(() => controller.abort(), 20);
    };
    const polite = readTool("polite", async (_input, ctx) => {
      started(ctx.signal);
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
      return { output: "stopped" };
    });
    // Ignores its signal: the turn must not wait for it.
    const stubborn = readTool("stubborn", async (_input, ctx) => {
      started(ctx.signal);
      await Bun.sleep(3_000);
      finishedAfterAbort = true;
      return { output: "late" };
    });
    const quick = readTool("quick", async () => ({ output: "quick result" }));
    await using t = testRuntime({
      tools: [polite, stubborn, quick],
      turns: [
        fake.toolCalls([
          { name: "quick", input: { path: "q" }, id: "toolu_q" },
          { name: "polite", input: { path: "p" }, id: "toolu_p" },
          { name: "stubborn", input: { path: "s" }, id: "toolu_s" },
        ]),
        fake.text("after the cancel"),
      ],
    });
    const events: Array<{ type: string; callId?: string; status?: string }> = [];
    const pending = t.runtime.runTurn("go", controller.signal, (event) => {
      events.push(event as { type: string });
    });
    let abortedAt = 0;
    controller.signal.addEventListener("abort", () => {
      abortedAt = performance.now();
    });
    expect(await pending).toBe("cancelled");
    // Quickly after the cancel, not after the stubborn tool's 3 s.
    expect(performance.now() - abortedAt).toBeLessThan(1_000);
    expect(finishedAfterAbort).toBe(false);
    expect(signals).toHaveLength(2);
    for (const signal of signals) expect(signal.aborted).toBe(true);
    expect(events.find((event) => event.type === "tool_result" && event.callId === "toolu_p")).toMatchObject({
      status: "failed",
    });
    // Every tool_use has a result: the finished one keeps its own, the others are cancelled.
    const last = t.runtime.messages.at(-1);
    expect(last?.role).toBe("user");
    const blocks = (last?.content ?? []) as ToolResultBlock[];
    expect(blocks.map((block) => [block.toolUseId, block.content])).toEqual([
      ["toolu_q", "quick result"],
      ["toolu_p", "Cancelled by the user."],
      ["toolu_s", "Cancelled by the user."],
    ]);
    expect(t.runtime.closeOpenToolCalls()).toBe(0);
    expect((await turn(t.runtime, "next")).stop).toBe("done");
    const next = t.model.requests[1] as ModelRequest;
    expect(next.messages.at(-1)?.content.at(-1)).toEqual({ type: "text", text: "next" });
    const file = readFileSync(t.runtime.session?.file as string, "utf8");
    expect(file).toContain('"stopReason":"cancelled"');
  });

  test("abort while a question is open: the approver's wait ends, nothing is written", async () => {
    const controller = new AbortController();
    const hanging = { ask: () => new Promise<never>(() => {}) };
    await using t = testRuntime({
      approver: hanging,
      turns: [fake.toolCall("write", { path: "a.txt", content: "x" })],
    });
    const pending = t.runtime.runTurn("write", controller.signal, (event) => {
      if (event.type === "tool_call") setTimeout(() => controller.abort(), 10);
    });
    expect(await pending).toBe("cancelled");
    expect(existsSync(join(t.runtime.root, "a.txt"))).toBe(false);
  });
});
