// The lines Garuda adds when a turn stops short, live (session.ts) and in a replay (replay.ts).
// The wording is every front end's (display/stopNotes.ts); the editor gets it only for the
// reasons ACP's own stopReason does not carry (max_tokens and refusal it does: editors show
// those themselves). A stop names what it ended.
import type { StopReason } from "../core-types/events.ts";
import { stopNote } from "../display/stopNotes.ts";

const NOTED_FOR_EDITORS: ReadonlySet<StopReason> = new Set(["max_steps", "token_budget", "repeated_calls"]);

/** The note the editor gets for a turn that ended with `reason`, if any. */
export function editorStopNote(reason: StopReason): string | undefined {
  return NOTED_FOR_EDITORS.has(reason) ? stopNote(reason) : undefined;
}

/** The lines after a stop: one per call it ended, or one for the turn. */
export function stopLines(endedTitles: readonly string[]): string[] {
  return endedTitles.length === 0 ? ["the turn was cancelled."] : endedTitles.map((title) => `${title} cancelled.`);
}
