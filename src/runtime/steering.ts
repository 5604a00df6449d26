// What the Runtime says about a steering message (a message sent while a turn runs): whether it
// can be given to the model at all (the same bound as a prompt: promptBound.ts), and the line
// for the messages a turn ended without taking (a stop, a limit), so none is lost unseen.
import { oneLine } from "../text/visible.ts";
import { groupedCount } from "../text/count.ts";
import { promptLimit, promptProblem } from "./promptBound.ts";

/** How much of a message not given to the model the line quotes. */
const QUOTED_CHARS = 120;

/**
 * Why this message cannot go to the model, or undefined when it can. `waiting`: the characters of
 * the messages already waiting for the same step (they go in one user message, so they share the
 * bound).
 */
export function steeringProblem(text: string, contextWindow: number, waiting = 0): string | undefined {
  if (text.trim() === "") return "The message was empty, so nothing was sent to the model.";
  const problem = promptProblem([{ type: "text", text }], contextWindow, false);
  if (problem) return problem.replace(/^The prompt is/, "The message is");
  const limit = promptLimit(contextWindow);
  if (text.length + waiting <= limit) return undefined;
  return (
    `With the ${groupedCount(waiting)} characters already waiting for the model's next step, this message would make ` +
    (`${groupedCount(text.length + waiting)}, more than the ${groupedCount(limit)} ` +
      `Garuda sends in one message to this model, so it was not sent. `) +
    "Send it after the next step, or send less."
  );
}

/** The line for messages the turn ended without giving to the model; undefined when there were none. */
export function notTakenNotice(messages: readonly { text: string }[], reason: string): string | undefined {
  if (messages.length === 0) return undefined;
  const why = reason === "cancelled" ? "the turn was stopped" : "the turn ended first";
  const quoted = messages.map((message) => `“${oneLine(message.text, QUOTED_CHARS)}”`).join(", ");
  return messages.length === 1
    ? `Your message was not given to the model (${why}): ${quoted}. Send it again as a prompt.`
    : `${messages.length} of your messages were not given to the model (${why}): ` +
        `${quoted}. Send them again as a prompt.`;
}
