// todo: the plan lives in the session's state, each call replaces it, and the rules (≤ 30 steps,
// ≤ 300 characters, at most one in progress) are enforced by the input schema.
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { MAX_ITEMS, PlanState, renderPlan, todoTool } from "../../src/tools/todo.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { runTool } from "../support/toolFixtures.ts";

const ctx = {} as ToolContext;
const items = (n: number, status: "pending" | "in_progress" | "completed" = "pending") =>
  Array.from({ length: n }, (_, i) => ({ content: `step ${i + 1}`, status }));

describe("todo", () => {
  test("stores the whole plan in the session state and returns it rendered", async () => {
    const plan = new PlanState();
    const tool = todoTool(plan);
    const input = {
      items: [
        { content: "Read the failing test", status: "completed" },
        { content: "Fix the parser", status: "in_progress" },
        { content: "Run the tests", status: "pending" },
      ],
    };
    const result = await runTool(tool, input, ctx);
    expect(result.output).toBe(
      "Plan (1 of 3 done):\n[x] 1. Read the failing test\n[>] 2. Fix the parser\n[ ] 3. Run the tests",
    );
    expect(result.summary).toBe("1 of 3 done");
    expect(plan.items).toEqual(input.items as typeof plan.items);

    const replaced = await runTool(tool, { items: [{ content: "Only this", status: "pending" }] }, ctx);
    expect(replaced.output).toBe("Plan (0 of 1 done):\n[ ] 1. Only this");
    expect(plan.items).toHaveLength(1);

    const cleared = await runTool(tool, { items: [] }, ctx);
    expect(cleared).toEqual({ output: "The plan is empty.", summary: "Plan cleared" });
    expect(plan.items).toEqual([]);
  });

  test("at most 30 steps, at most 300 characters each, no empty step, at most one in progress", () => {
    const tool = todoTool();
    const problems = (input: unknown) => {
      const parsed = tool.input.safeParse(input);
      return parsed.success ? "" : z.prettifyError(parsed.error);
    };
    expect(problems({ items: items(MAX_ITEMS) })).toBe("");
    expect(problems({ items: items(MAX_ITEMS + 1) })).toContain("a plan has at most 30 steps");
    expect(problems({ items: [{ content: "x".repeat(300), status: "pending" }] })).toBe("");
    expect(problems({ items: [{ content: "x".repeat(301), status: "pending" }] })).toContain(
      "a step has at most 300 characters",
    );
    expect(problems({ items: [{ content: "   ", status: "pending" }] })).toContain("a step needs text");
    expect(problems({ items: items(2, "in_progress") })).toContain("at most one step may be in_progress");
    expect(problems({ items: [{ content: "a", status: "done" }] })).not.toBe("");
  });

  test("read-only, no question, title `Update the plan`, kind think", () => {
    const tool = todoTool();
    expect(tool.readOnly).toBe(true);
    expect(tool.plan({ items: [] }, ctx).info).toEqual({ title: "Update the plan", kind: "think", locations: [] });
    expect(tool.plan({ items: [] }, ctx).permission).toMatchObject({
      tool: "todo",
      readOnly: true,
      target: { kind: "input" },
    });
    expect(renderPlan([{ content: "multi\n  line", status: "pending" }])).toBe(
      "Plan (0 of 1 done):\n[ ] 1. multi line",
    );
  });
});
