// How a subagent's run ended, as the words that finish "it …" in the tool result the parent
// model reads: one table for every tool that runs a subagent (explore, the agents of extensions).
import type { StopReason } from "../core-types/events.ts";

const STOPPED: Partial<Record<StopReason, string>> = {
  done: "gave no text",
  max_steps: "reached its step limit",
  token_budget: "used up its token budget",
  repeated_calls: "repeated the same call",
  max_tokens: "hit the output limit",
  refusal: "refused",
};

/** "reached its step limit", …; a reason without words of its own as "ended (<reason>)". */
export function howSubagentStopped(reason: StopReason): string {
  return STOPPED[reason] ?? `ended (${reason})`;
}
