import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { fake } from "../../src/model/fake.ts";
import type { ModelRequest } from "../../src/model/types.ts";
import type { AgentEvent } from "../../src/core-types/events.ts";
import { exploreTool } from "../../src/tools/explore.ts";
import type { SubagentResult, SubagentTask, Tool } from "../../src/tools/types.ts";
import { ofType, readTool, scriptedApprover, testRuntime, turn, writeTool } from "../support/runtimeHelpers.ts";

/** A tool that runs a subagent with `task` and returns the result as JSON. */
function delegateTool(readOnly: boolean, task: Partial<SubagentTask> = {}): Tool<{ q: string }> {
  return {
    name: "delegate",
    description: "Runs a subagent.",
    input: z.object({ q: z.string() }),
    readOnly,
    plan: (input) => ({
      input,
      info: { title: "Subagent: delegate", kind: "think", locations: [] },
      permission: { tool: "delegate", readOnly, target: { kind: "input" }, preview: "delegate" },
    }),
    run: async ({ input }, ctx) => {
      if (!ctx.subagent) return { output: "no subagent", isError: true };
      const result: SubagentResult = await ctx.subagent({
        name: "delegate",
        system: "You are a child.",
        prompt: input.q,
        tools: ["read", "write", "explore", "missing"],
        wrapUp: "Answer now.",
        ...task,
      });
      return { output: JSON.stringify(result) };
    },
  };
}

const toolNames = (request: ModelRequest | undefined) => (request?.tools ?? []).map((tool) => tool.name);

describe("runChild: a subagent run for one tool call", () => {
  test("a read-only caller's child gets only read-only tools; a subagent cannot start another", async () => {
    await using t = testRuntime({
      tools: [readTool(), writeTool(), exploreTool(), delegateTool(true)],
      sessionStore: false,
      turns: [
        fake.toolCall("delegate", { q: "look" }, { id: "d1" }),
        fake.toolCall("explore", { question: "nested?" }, { id: "n1" }),
        fake.text("child answer"),
        fake.text("done"),
      ],
    });
    const { events } = await turn(t.runtime, "go");
    expect(t.model.requests[1]?.system).toBe("You are a child.");
    expect(toolNames(t.model.requests[1])).toEqual(["explore", "read"]);
    const nested = ofType(events, "tool_result").find((e) => e.callId === "n1");
    expect(nested).toMatchObject({
      parentCallId: "d1",
      status: "failed",
      output: expect.stringContaining("a subagent cannot start another"),
    });
    const result = JSON.parse(
      ofType(events, "tool_result").find((e) => e.callId === "d1")?.output ?? "{}",
    ) as SubagentResult;
    expect(result).toMatchObject({ answer: "child answer", stopReason: "done", wrappedUp: false, steps: 2, calls: 1 });
  });

  test("a caller that is not read-only may give its child tools that write", async () => {
    await using t = testRuntime({
      tools: [readTool(), writeTool(), delegateTool(false)],
      sessionStore: false,
      approver: scriptedApprover("once"),
      turns: [fake.toolCall("delegate", { q: "look" }, { id: "d1" }), fake.text("child answer"), fake.text("done")],
    });
    const { events } = await turn(t.runtime, "go");
    expect(toolNames(t.model.requests[1])).toEqual(["read", "write"]);
    expect(ofType(events, "tool_result").find((e) => e.callId === "d1")?.status).toBe("completed");
  });

  test("a task asking for more steps than the session allows gets the session's limit", async () => {
    const steps = Array.from({ length: 4 }, (_, i) => fake.toolCall("read", { path: `missing-${i}` }));
    await using t = testRuntime({
      tools: [readTool(), delegateTool(true, { maxSteps: 10_000, tools: ["read"] })],
      sessionStore: false,
      limits: { maxSteps: 4 },
      turns: [
        fake.toolCall("delegate", { q: "look" }, { id: "d1" }),
        ...steps,
        fake.text("wrapped"),
        fake.text("done"),
      ],
    });
    const { events } = await turn(t.runtime, "go");
    const result = JSON.parse(
      ofType(events, "tool_result").find((e) => e.callId === "d1")?.output ?? "{}",
    ) as SubagentResult;
    expect(result).toMatchObject({ answer: "wrapped", stopReason: "max_steps", wrappedUp: true, steps: 5, calls: 4 });
    expect(JSON.stringify(t.model.requests[5]?.messages.at(-1))).toContain("Answer now.");
  });

  test(
    "the child's start, thinking, text and end reach the parent as subagent events; " + "a model error ends it failed",
    async () => {
      await using t = testRuntime({
        tools: [readTool(), delegateTool(true, { tools: ["read"] })],
        sessionStore: false,
        turns: [
          fake.toolCall("delegate", { q: "look\nclosely" }, { id: "d1" }),
          fake.thinking("let me see", "child answer"),
          fake.toolCall("delegate", { q: "again" }, { id: "d2" }),
          () => {
            throw new Error("the model broke");
          },
        ],
      });
      const events: AgentEvent[] = [];
      // The failed child's call fails; the parent's next request finds the fake model's script ended.
      await t.runtime.runTurn("go", new AbortController().signal, (event) => events.push(event)).catch(() => undefined);
      const seen = events.filter((event) => event.type === "subagent");
      expect(seen).toEqual([
        { type: "subagent", callId: "d1", phase: "started", name: "delegate", prompt: "look\nclosely" },
        { type: "subagent", callId: "d1", phase: "thinking", text: "let me see" },
        { type: "subagent", callId: "d1", phase: "text", text: "child answer" },
        { type: "subagent", callId: "d1", phase: "ended", outcome: "completed" },
        { type: "subagent", callId: "d2", phase: "started", name: "delegate", prompt: "again" },
        { type: "subagent", callId: "d2", phase: "ended", outcome: "failed" },
      ]);
      // The child's text is not the parent's.
      expect(events.some((event) => event.type === "text_delta" && event.text === "child answer")).toBe(false);
    },
  );
});
