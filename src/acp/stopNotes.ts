// The lines Garuda adds when a turn stops short, live (session.ts) and in a replay (replay.ts):
// max_turn_requests alone does not say whether "go on" helps, and editors show stopReason
// differently (or not at all), so Garuda says it as a notice; a stop names what it ended.
import type { StopReason } from "../core-types/events.ts";

export const STOP_NOTES: Partial<Record<StopReason, string>> = {
  max_steps: "The turn reached its step limit. Say “go on” to continue.",
  token_budget: "This session has used its token budget, so Garuda does not call the model again in it. Start a new thread to go on.",
  repeated_calls: "The model made the same call several times in a row, so the turn was stopped. Say what to do differently, or “go on”.",
};

/** The lines after a stop: one per call it ended, or one for the turn. */
export function stopLines(endedTitles: readonly string[]): string[] {
  return endedTitles.length === 0 ? ["the turn was cancelled."] : endedTitles.map((title) => `${title} cancelled.`);
}
