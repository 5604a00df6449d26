// ask_user: the input's rules (2 to 8 distinct options or none, several picks only among
// options), the neutral question it builds, what the model reads for each outcome, one question
// at a time, a stopped turn; and that no subagent gets the tool, even one that names it.
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import type { Asker, UserAnswer, UserQuestion } from "../../src/core-types/question.ts";
import { fake } from "../../src/model/fake.ts";
import type { ModelRequest } from "../../src/model/types.ts";
import {
  answerText,
  askUserTool,
  DECLINED_OUTPUT,
  DISMISSED_OUTPUT,
  questionOf,
  UNAVAILABLE_OUTPUT,
} from "../../src/tools/askUser.ts";
import type { Tool, ToolContext } from "../../src/tools/types.ts";
import { readTool, testRuntime, turn } from "../support/runtimeHelpers.ts";
import { runTool } from "../support/toolFixtures.ts";

const OPTIONS = [{ label: "Red" }, { label: "Blue", description: "the brand colour" }];

/** An Asker that records the questions and answers each with what `answer` returns. */
function asker(answer: (question: UserQuestion) => Promise<UserAnswer> | UserAnswer) {
  const asked: UserQuestion[] = [];
  const value: Asker = {
    ask: async (question) => {
      asked.push(question);
      return answer(question);
    },
  };
  return { asked, value };
}

const context = (callId: string, signal = new AbortController().signal) => ({ callId, signal }) as ToolContext;

describe("ask_user's input", () => {
  const tool = askUserTool(asker(() => ({ outcome: "declined" })).value);
  const valid = (input: unknown) => tool.input.safeParse(input).success;

  test("options: none or 2 to 8, labels distinct; several picks only among options", () => {
    expect(valid({ question: "Which?", options: OPTIONS })).toBe(true);
    expect(valid({ question: "Name it?" })).toBe(true);
    expect(valid({ question: "Which?", options: [{ label: "Only" }] })).toBe(false);
    expect(valid({ question: "Which?", options: [{ label: "A" }, { label: "A" }] })).toBe(false);
    expect(valid({ question: "Which?", options: Array.from({ length: 9 }, (_, i) => ({ label: `${i}` })) })).toBe(
      false,
    );
    expect(valid({ question: "Which?", multiple: true })).toBe(false);
    expect(valid({ question: " ", options: OPTIONS })).toBe(false);
    expect(valid({ question: "x".repeat(2_001) })).toBe(false);
  });

  test("the question: choices numbered, free text when asked for or when there are no options", () => {
    expect(questionOf({ question: "Which?", options: OPTIONS }, "call_1")).toEqual({
      kind: "ask_user",
      callId: "call_1",
      text: "Which?",
      choices: [
        { value: "1", label: "Red" },
        { value: "2", label: "Blue", description: "the brand colour" },
      ],
      multiple: false,
      freeText: false,
    });
    expect(questionOf({ question: "Name it?" }, "c").freeText).toBe(true);
    expect(questionOf({ question: "Which?", options: OPTIONS, allow_text: true }, "c").freeText).toBe(true);
  });
});

describe("what the model reads", () => {
  const question = questionOf({ question: "Which?", options: OPTIONS, multiple: true, allow_text: true }, "c");

  test("an answer, a decline, a dismissal and a question not asked each say what to do next", () => {
    expect(answerText(question, { outcome: "answered", values: ["1", "2"], text: "both, really" })).toBe(
      'The user chose: "Red", "Blue".\nThe user wrote:\nboth, really',
    );
    expect(answerText(question, { outcome: "answered", values: ["2"], without: ["free_text", "multiple"] })).toBe(
      'The user chose: "Blue".\nThe user\'s editor cannot show a text field, so they ' +
        "could only pick one of your options.\nThe user's editor lets them pick only " +
        "one option.",
    );
    expect(answerText(question, { outcome: "declined" })).toBe(DECLINED_OUTPUT);
    expect(answerText(question, { outcome: "cancelled" })).toBe(DISMISSED_OUTPUT);
    expect(answerText(question, { outcome: "unavailable", without: ["free_text"] })).toBe(UNAVAILABLE_OUTPUT);
    expect(new Set([DECLINED_OUTPUT, DISMISSED_OUTPUT, UNAVAILABLE_OUTPUT]).size).toBe(3);
  });
});

describe("asking", () => {
  test("the asker gets the call's question; two calls at once ask one after the other", async () => {
    let open = 0;
    let most = 0;
    const { asked, value } = asker(async () => {
      open++;
      most = Math.max(most, open);
      await Bun.sleep(20);
      open--;
      return { outcome: "answered", values: ["1"] };
    });
    const tool = askUserTool(value);
    const [first, second] = await Promise.all([
      runTool(tool, { question: "First?", options: OPTIONS }, context("call_a")),
      runTool(tool, { question: "Second?", options: OPTIONS }, context("call_b")),
    ]);
    expect(most).toBe(1);
    expect(asked.map((q) => [q.callId, q.text])).toEqual([
      ["call_a", "First?"],
      ["call_b", "Second?"],
    ]);
    expect(first).toEqual({ output: 'The user chose: "Red".', summary: "Answered" });
    expect(second.summary).toBe("Answered");
  });

  test("a stopped turn asks nothing more and reads no answer", async () => {
    const stop = new AbortController();
    const { asked, value } = asker(() => {
      stop.abort();
      return { outcome: "answered", values: ["1"] };
    });
    const tool = askUserTool(value);
    expect(await runTool(tool, { question: "Which?", options: OPTIONS }, context("c", stop.signal))).toEqual({
      output: "",
      summary: "Stopped",
    });
    expect(await runTool(tool, { question: "Again?", options: OPTIONS }, context("d", stop.signal))).toEqual({
      output: "",
      summary: "Stopped",
    });
    expect(asked).toHaveLength(1);
  });
});

describe("subagents", () => {
  test("never get ask_user, even when their task names it", async () => {
    const delegate: Tool<{ q: string }> = {
      name: "delegate",
      description: "Runs a subagent.",
      input: z.object({ q: z.string() }),
      readOnly: true,
      plan: (input) => ({
        input,
        info: { title: "Subagent: delegate", kind: "think", locations: [] },
        permission: { tool: "delegate", readOnly: true, target: { kind: "input" }, preview: "delegate" },
      }),
      run: async ({ input }, ctx) => {
        const result = await ctx.subagent?.({
          name: "delegate",
          system: "You are a child.",
          prompt: input.q,
          tools: ["read", "ask_user"],
          wrapUp: "Answer now.",
        });
        return { output: JSON.stringify(result) };
      },
    };
    const { value } = asker(() => ({ outcome: "declined" }));
    await using t = testRuntime({
      tools: [readTool(), askUserTool(value), delegate],
      sessionStore: false,
      turns: [fake.toolCall("delegate", { q: "look" }, { id: "d1" }), fake.text("child answer"), fake.text("done")],
    });
    await turn(t.runtime, "go");
    const names = (request: ModelRequest | undefined) => (request?.tools ?? []).map((tool) => tool.name);
    expect(names(t.model.requests[0])).toContain("ask_user");
    expect(names(t.model.requests[1])).toEqual(["read"]);
  });
});
