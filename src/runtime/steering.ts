// What the Runtime says about a steering message (a message sent while a turn runs): whether it
// can be given to the model at all (the same bound as a prompt: promptBound.ts), and the line
// for the messages a turn ended without taking (a stop, a limit), so none is lost unseen.
import { oneLine } from "../text/visible.ts";
import { promptProblem } from "./promptBound.ts";

/** How much of a message not given to the model the line quotes. */
const QUOTED_CHARS = 120;

/** Why this message cannot go to the model, or undefined when it can. */
export function steeringProblem(text: string, contextWindow: number): string | undefined {
  if (text.trim() === "") return "The message was empty, so nothing was sent to the model.";
  const problem = promptProblem([{ type: "text", text }], contextWindow, false);
  return problem?.replace(/^The prompt is/, "The message is");
}

/** The line for messages the turn ended without giving to the model; undefined when there were none. */
export function notTakenNotice(messages: readonly { text: string }[], reason: string): string | undefined {
  if (messages.length === 0) return undefined;
  const why = reason === "cancelled" ? "the turn was stopped" : "the turn ended first";
  const quoted = messages.map((message) => `“${oneLine(message.text, QUOTED_CHARS)}”`).join(", ");
  return messages.length === 1
    ? `Your message was not given to the model (${why}): ${quoted}. Send it again as a prompt.`
    : `${messages.length} of your messages were not given to the model (${why}): ${quoted}. Send them again as a prompt.`;
}
