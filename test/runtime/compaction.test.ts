// Compaction: stage 1 (old tool results cut to a head), stage 2 (a model summary in place of
// older messages), automatic near the context window, forced by a context-window stop and by /compact.
import { describe, expect, test } from "bun:test";
import { fake } from "../../src/model/fake.ts";
import type { Message, ModelRequest } from "../../src/model/types.ts";
import {
  KEEP_RECENT_TURNS,
  PRUNE_HEAD_CHARS,
  SUMMARY_INSTRUCTION,
  pruneToolResults,
  summaryCut,
} from "../../src/runtime/compaction.ts";
import { readSession } from "../../src/store/sessionFile.ts";
import { ofType, readTool, testRuntime, texts, turn } from "../support/runtimeHelpers.ts";

const big = (n: number) => readTool("read", async (input) => ({ output: `${input.path}:${"x".repeat(n)}` }));
const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const assistantCall = (id: string): Message => ({
  role: "assistant",
  content: [{ type: "tool_use", id, name: "read", input: {} }],
});
const result = (id: string, content: string): Message => ({
  role: "user",
  content: [{ type: "tool_result", toolUseId: id, content, isError: false }],
});

function conversation(turns: number, size: number): Message[] {
  const messages: Message[] = [user("go")];
  for (let i = 0; i < turns; i++) messages.push(assistantCall(`t${i}`), result(`t${i}`, `${i}`.repeat(size)));
  return messages;
}

const lastText = (request: ModelRequest | undefined) => {
  const block = request?.messages.at(-1)?.content.at(-1);
  return block?.type === "text" ? block.text : undefined;
};

describe("stage 1 and the cut of stage 2", () => {
  test("only long results before the last four assistant turns are cut, to a 200-char head and a note", () => {
    const messages = conversation(6, 2_000);
    messages.splice(2, 1, {
      role: "user",
      content: [{ type: "tool_result", toolUseId: "t0", content: "short", isError: false }],
    });
    const { pruned, savedChars } = pruneToolResults(messages);
    // Six assistant turns: results of turns 0 and 1 are older than the last four; turn 0's is short.
    expect(pruned.map((cut) => [cut.message, cut.block])).toEqual([[4, 0]]);
    expect(pruned[0]?.content.slice(0, PRUNE_HEAD_CHARS)).toBe("1".repeat(PRUNE_HEAD_CHARS));
    expect(pruned[0]?.content).toContain("1800 more characters were removed");
    expect(savedChars).toBe(2_000 - (pruned[0]?.content.length ?? 0));
    expect(pruneToolResults(conversation(KEEP_RECENT_TURNS, 5_000)).pruned).toEqual([]);
  });

  test("stage 2 keeps the last two assistant turns, or one, and never summarizes nothing", () => {
    expect(summaryCut(conversation(3, 10))).toBe(3);
    expect(summaryCut(conversation(2, 10))).toBe(3);
    expect(summaryCut(conversation(1, 10))).toBeUndefined();
    expect(summaryCut([user("only a prompt")])).toBeUndefined();
  });
});

describe("automatic compaction", () => {
  const steps = (count: number, lastInput: number) =>
    Array.from({ length: count }, (_, i) =>
      fake.toolCall(
        "read",
        { path: `f${i}` },
        { usage: { inputTokens: i === count - 1 ? lastInput : 100, outputTokens: 20 } },
      ),
    );

  test("stage 1 is enough: old results are cut, no summary is asked", async () => {
    await using t = testRuntime({
      tools: [big(8_000)],
      info: { contextWindow: 10_000 },
      turns: [...steps(6, 7_000), fake.text("done")],
    });
    const { stop, events } = await turn(t.runtime, "read six files");
    expect(stop).toBe("done");
    expect(t.model.requests).toHaveLength(7);
    const [compaction] = ofType(events, "compaction");
    expect(compaction?.beforeTokens).toBeGreaterThan(8_000);
    expect(compaction?.afterTokens).toBeLessThanOrEqual(6_000);
    const records = readSession(t.runtime.session?.file as string).records;
    expect(
      records
        .filter((record) => record.type === "compaction")
        .map((record) => record.type === "compaction" && record.stage),
    ).toEqual([1]);
    const sent = t.model.requests[6]?.messages ?? [];
    const firstResult = sent[2]?.content[0];
    expect(firstResult?.type === "tool_result" && firstResult.content).toStartWith(
      `f0:${"x".repeat(PRUNE_HEAD_CHARS - 3)}\n[…`,
    );
  });

  test("stage 1 is not enough: the model summarizes the older messages, the last turns stay", async () => {
    await using t = testRuntime({
      tools: [big(5_000)],
      info: { contextWindow: 10_000 },
      turns: [...steps(6, 8_500), fake.text("SUMMARY: read f0 to f5; all were x."), fake.text("All files are x.")],
    });
    const { stop, events } = await turn(t.runtime, "read six files");
    expect(stop).toBe("done");
    expect(texts(events)).toBe("All files are x.");
    expect(t.model.requests).toHaveLength(8);
    const summaryRequest = t.model.requests[6] as ModelRequest;
    const loopRequest = t.model.requests[5] as ModelRequest;
    // Same system prompt and tools as the loop's requests: the cached prefix serves it.
    expect(summaryRequest.system).toBe(loopRequest.system);
    expect(summaryRequest.tools).toEqual(loopRequest.tools);
    expect(lastText(summaryRequest)).toBe(SUMMARY_INSTRUCTION);
    const final = t.model.requests[7] as ModelRequest;
    const summary = final.messages[0]?.content[0];
    expect(summary?.type === "text" && summary.text).toContain("SUMMARY: read f0 to f5");
    expect(summary?.type === "text" && summary.text).toContain(
      "The user's latest request, word for word:\nread six files",
    );
    expect(final.messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    const [compaction] = ofType(events, "compaction");
    expect(compaction?.afterTokens).toBeLessThan(compaction?.beforeTokens ?? 0);
    // The session file rebuilds exactly the compacted conversation.
    const session = readSession(t.runtime.session?.file as string);
    expect(
      session.records
        .filter((record) => record.type === "compaction")
        .map((record) => record.type === "compaction" && record.stage),
    ).toEqual([1, 2]);
    expect(session.messages).toEqual(t.runtime.messages as Message[]);
  });

  test("a context-window stop compacts and the turn goes on from where it stopped", async () => {
    await using t = testRuntime({
      tools: [big(100)],
      turns: [
        fake.toolCall("read", { path: "a" }),
        fake.toolCall("read", { path: "b" }),
        fake.text("Half of the ans", { stopReason: "model_context_window_exceeded" }),
        fake.text("Summary of the work."),
        fake.text("wer."),
      ],
    });
    const { stop, events } = await turn(t.runtime, "go");
    expect(stop).toBe("done");
    expect(ofType(events, "compaction")).toHaveLength(1);
    expect(lastText(t.model.requests[3])).toBe(SUMMARY_INSTRUCTION);
    const last = t.model.requests[4] as ModelRequest;
    expect(last.messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "Half of the ans" }] });
    expect(texts(events)).toBe("Half of the answer.");
  });
});

describe("/compact", () => {
  test("runs both stages now, with the user's focus", async () => {
    await using t = testRuntime({
      tools: [big(50)],
      turns: [
        fake.toolCall("read", { path: "a" }),
        fake.toolCall("read", { path: "b" }),
        fake.text("Read both."),
        fake.text("Short summary."),
      ],
    });
    await turn(t.runtime, "read a and b");
    const before = t.runtime.messages.length;
    const result = await t.runtime.compact({ focus: "the file names" });
    expect(result?.stages).toEqual([2]);
    expect(lastText(t.model.requests[3])).toBe(`${SUMMARY_INSTRUCTION}\nFocus on: the file names`);
    expect(t.runtime.messages.length).toBeLessThan(before);
    const first = t.runtime.messages[0]?.content[0];
    expect(first?.type === "text" && first.text).toStartWith("<garuda_summary>");
    expect(first?.type === "text" && first.text).toContain("Short summary.");
  });

  test("nothing to compact in a new session", async () => {
    await using t = testRuntime();
    expect(await t.runtime.compact()).toBeUndefined();
    expect(t.model.requests).toHaveLength(0);
  });
});

describe("no summary after summary", () => {
  test("when a compaction cannot get below the mark, the next steps do not summarize again at once", async () => {
    // After the summary, every response still reports a context near the window.
    const near = { inputTokens: 9_500, outputTokens: 10 };
    await using t = testRuntime({
      tools: [big(10)],
      info: { contextWindow: 10_000 },
      turns: [
        fake.toolCall("read", { path: "a" }),
        fake.toolCall("read", { path: "b" }),
        fake.toolCall("read", { path: "c" }, { usage: near }),
        fake.text("Summary."),
        fake.toolCall("read", { path: "d" }, { usage: near }),
        fake.toolCall("read", { path: "e" }, { usage: near }),
        fake.text("done", { usage: near }),
      ],
    });
    const { stop, events } = await turn(t.runtime, "go");
    expect(stop).toBe("done");
    expect(ofType(events, "compaction")).toHaveLength(1);
    expect(t.model.requests.map((request) => lastText(request) === SUMMARY_INSTRUCTION)).toEqual([
      false,
      false,
      false,
      true,
      false,
      false,
      false,
    ]);
  });
});
