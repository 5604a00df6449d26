// A subagent's end as its tool's result (explore, and the agent tool of src/extensions/): the
// answer, or why there is none, and a note when it stopped before it was done.
import type { StopReason } from "../core-types/events.ts";
import type { SubagentResult, ToolResult } from "./types.ts";
import { groupedCount } from "../text/count.ts";

/** How a subagent stopped, as the end of "it …". */
const STOPPED: Partial<Record<StopReason, string>> = {
  done: "gave no text",
  max_steps: "reached its step limit",
  token_budget: "used up its token budget",
  repeated_calls: "repeated the same call",
  max_tokens: "hit the output limit",
  refusal: "refused",
};

export interface SubagentWording {
  /** What a subagent that was asked to wrap up did with its last answer ("reported what it had"). */
  wrappedUp: string;
  /** Appended to "ended without an answer": what the model can do instead. */
  noAnswerAdvice?: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The tool result for the subagent `name`. A cancelled call is reported by the registry itself. */
export function subagentResult(name: string, result: SubagentResult, wording: SubagentWording): ToolResult {
  const summary =
    `${plural(result.calls, "call")}, ${plural(result.steps, "step")}, ` + `${groupedCount(result.tokens)} tokens`;
  if (result.stopReason === "cancelled") return { output: "", isError: true, summary };
  const why = STOPPED[result.stopReason] ?? `ended (${result.stopReason})`;
  if (result.answer === "") {
    const output =
      result.stopReason === "token_budget" && result.steps === 0
        ? `Error: ${name} could not start: the session's token budget is used up.`
        : `Error: ${name} ended without an answer (it ` +
          `${why}).${wording.noAnswerAdvice ? ` ${wording.noAnswerAdvice}` : ""}`;
    return { output, isError: true, summary };
  }
  const note = result.wrappedUp
    ? `\n\n(${name} ${why} and ${wording.wrappedUp}; the answer may be incomplete.)`
    : result.stopReason !== "done"
      ? `\n\n(${name} ${why}; the answer may be incomplete.)`
      : "";
  return { output: `${result.answer}${note}`, summary };
}
