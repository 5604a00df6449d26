// todo: the model's plan for the task, kept in the session's state (no file). Each call
// replaces the whole list; the result is the rendered plan, which the model and the user see.
import { z } from "zod";
import description from "./todo.txt" with { type: "text" };
import type { Tool, ToolResult } from "./types.ts";

export const MAX_ITEMS = 30;
const MAX_ITEM_CHARS = 300;

const item = z.object({
  content: z
    .string()
    .trim()
    .min(1, "a step needs text")
    .max(MAX_ITEM_CHARS, `a step has at most ${MAX_ITEM_CHARS} characters`),
  status: z.enum(["pending", "in_progress", "completed"]),
});
export type TodoItem = z.infer<typeof item>;

const input = z.object({
  items: z
    .array(item)
    .max(MAX_ITEMS, `a plan has at most ${MAX_ITEMS} steps`)
    .refine(
      (items) => items.filter((i) => i.status === "in_progress").length <= 1,
      "at most one step may be in_progress",
    )
    .describe("The whole plan, in order."),
});
export type TodoInput = z.infer<typeof input>;

/** The session's plan. The runtime creates one per session and may read it (e.g. for compaction or display). */
export class PlanState {
  #items: TodoItem[] = [];
  readonly #listeners = new Set<(items: readonly TodoItem[]) => void>();

  get items(): readonly TodoItem[] {
    return this.#items;
  }

  set(items: readonly TodoItem[]): void {
    this.#items = items.map((i) => ({ content: i.content, status: i.status }));
    for (const listener of [...this.#listeners]) listener(this.#items);
  }

  /** Calls `listener` with the whole plan after every change (the Runtime tells the front end). */
  subscribe(listener: (items: readonly TodoItem[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

const MARK: Record<TodoItem["status"], string> = { pending: "[ ]", in_progress: "[>]", completed: "[x]" };

/** The plan as the model and the user read it. */
export function renderPlan(items: readonly TodoItem[]): string {
  if (items.length === 0) return "The plan is empty.";
  const done = items.filter((i) => i.status === "completed").length;
  const lines = items.map((i, n) => `${MARK[i.status]} ${n + 1}. ${i.content.replace(/\s*\n\s*/g, " ")}`);
  return [`Plan (${done} of ${items.length} done):`, ...lines].join("\n");
}

export function todoTool(plan: PlanState = new PlanState()): Tool<TodoInput> {
  return {
    name: "todo",
    description,
    input,
    readOnly: true,
    plan: (args) => ({
      input: args,
      info: { title: "Update the plan", kind: "think", locations: [] },
      permission: { tool: "todo", readOnly: true, target: { kind: "input" }, preview: "Update the plan" },
    }),
    async run({ input: args }): Promise<ToolResult> {
      plan.set(args.items);
      const done = args.items.filter((i) => i.status === "completed").length;
      return {
        output: renderPlan(plan.items),
        summary: args.items.length === 0 ? "Plan cleared" : `${done} of ${args.items.length} done`,
      };
    },
  };
}
