// The model's plan (the todo tool's list) as ACP `plan` updates, so the editor shows its plan
// panel: every update the whole plan, each step with its text, status and a priority (the todo
// list has none, so every step is "medium"). The todo call itself stays a tool call as before.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { PlanItem } from "../core-types/events.ts";
import { oneLine } from "../text/visible.ts";

/** More than the todo tool lets a step have (300 characters): its own check caps them. */
const MAX_STEP_CHARS = 1_000;

export function planUpdate(items: readonly PlanItem[]): SessionUpdate {
  return {
    sessionUpdate: "plan",
    entries: items.map((item) => ({
      content: oneLine(item.content, MAX_STEP_CHARS),
      priority: "medium",
      status: item.status,
    })),
  };
}
