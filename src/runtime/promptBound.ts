// How much one user message may hold. A message the model's context window cannot take with room
// to spare would fail every request from then on (compaction keeps the latest turn whole), and so
// would images that, with the conversation's, pass what one request may carry (every image goes
// with every request: model/requestBound.ts). Such a message is refused before it joins the
// conversation: a notice says why, the session file records it, and the session goes on.
import { imageLoad, imageLoadProblem } from "../model/requestBound.ts";
import type { Message, UserBlock } from "../model/types.ts";
import { CHARS_PER_TOKEN } from "./meter.ts";
import { groupedCount } from "../text/count.ts";

/** A user message may fill this share of the context window… */
const PROMPT_WINDOW_SHARE = 0.5;
/** …and never more than this many characters (a model with a huge window). */
const MAX_PROMPT_CHARS = 2_000_000;

const count = (n: number) => groupedCount(n);

/** The most characters a user message may hold for a model with this context window (in tokens). */
export function promptLimit(contextWindow: number): number {
  return Math.min(MAX_PROMPT_CHARS, Math.floor(contextWindow * CHARS_PER_TOKEN * PROMPT_WINDOW_SHARE));
}

/** Why this user message is not sent, or undefined when it fits. `attached`: files from @mentions are in it. */
export function promptProblem(
  content: readonly UserBlock[],
  contextWindow: number,
  attached: boolean,
): string | undefined {
  const chars = content.reduce(
    (sum, block) =>
      sum + (block.type === "text" ? block.text.length : block.type === "image" ? 0 : block.content.length),
    0,
  );
  const limit = promptLimit(contextWindow);
  if (chars <= limit) return undefined;
  const what = attached ? "The prompt with its attached files is" : "The prompt is";
  return (
    `${what} ${count(chars)} characters, more than the ${count(limit)} Garuda sends in one message to this model ` +
    `(half its context window of ${count(contextWindow)} tokens), so nothing was sent. ` +
    "Send less: paste a part, or name files with @path or ask the model to read them (it reads large files in parts)."
  );
}

/**
 * Why this user message's images, with the conversation's, cannot go in one request; undefined
 * when they can. A conversation already over the bounds (resumed from an older Garuda) refuses
 * every prompt the same way, before it is recorded, rather than failing each request.
 */
export function imagesProblem(conversation: readonly Message[], content: readonly UserBlock[]): string | undefined {
  const added = imageLoad(content);
  const before = imageLoad(conversation);
  return imageLoadProblem({ count: before.count + added.count, bytes: before.bytes + added.bytes }, true);
}
