// session/load's replay: a session's history (store/sessionHistory.ts) as the session/update
// notifications the editor got live. The Runtime's events go through the same EventMapper as a
// live turn (same titles, kinds, locations, rawInput, fenced output, diffs and "Garuda:" lines);
// each prompt is a user_message_chunk per block as the user sent it; every message has the id
// the session file keeps for it (store/messageIds.ts), as it had live; a call Garuda closed (a
// stop, a cut answer) ends failed, as live; a stopped turn gets the same lines as live. What is
// only live state (a call running, its progress, a retry of a broken stream) is not replayed.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { SkippedLine } from "../store/sessionFile.ts";
import { type HistoryItem, historyEvent } from "../store/sessionHistory.ts";
import { visible } from "../text/visible.ts";
import { editorStopNote, stopLines } from "./stopNotes.ts";
import { EventMapper } from "./eventMapper.ts";
import { KnownCalls } from "./sessionChannel.ts";
import type { StopReason } from "../core-types/events.ts";

/** How many skipped lines the replay names one by one. */
const NAMED_LINES = 5;

/** The line that says what a damaged file lost. */
function skippedLine(skipped: readonly SkippedLine[]): string | undefined {
  if (skipped.length === 0) return undefined;
  const named = skipped.slice(0, NAMED_LINES).map((line) => `line ${line.line}: ${line.reason}`);
  const more = skipped.length > NAMED_LINES ? `, and ${skipped.length - NAMED_LINES} more` : "";
  const count =
    skipped.length === 1
      ? "1 line of the session file could not be read and was"
      : `${skipped.length} lines of the session file could not be read and were`;
  return (
    `${count} skipped (${named.join("; ")}${more}); what they held is not shown, ` +
    `and the conversation goes on without it.`
  );
}

/** The updates that show `items` again, for a session whose project root is `root`. */
export function replayUpdates(
  items: readonly HistoryItem[],
  root: string,
  skipped: readonly SkippedLine[] = [],
  features: { compaction: boolean } = { compaction: false },
): SessionUpdate[] {
  const calls = new KnownCalls();
  // A compaction as it ended (completed, with its summary) for a client that takes the entries.
  const mapper = new EventMapper(calls, root, false, features.compaction);
  const updates: SessionUpdate[] = [];
  /** Titles of the calls Garuda closed in this turn, for the lines after a stop. */
  let closed: string[] = [];
  for (const item of items) {
    switch (item.type) {
      case "prompt":
        // A steering message is shown where the model got it, inside its turn.
        if (!item.steering) {
          mapper.beginTurn();
          closed = [];
        }
        updates.push(...mapper.userMessage(item.blocks, item.messageId));
        break;
      case "tool_result": {
        if (!item.cancelled) {
          updates.push(...mapper.map(historyEvent(item) as NonNullable<ReturnType<typeof historyEvent>>));
          break;
        }
        const call = calls.finish(item.callId);
        if (call) {
          updates.push(EventMapper.cancelled(call));
          closed.push(call.title);
        }
        break;
      }
      case "plan":
        updates.push({
          sessionUpdate: "plan",
          entries: item.items.map((step) => ({
            content: visible(step.content),
            priority: "medium",
            status: step.status,
          })),
        });
        break;
      case "turn_end": {
        if (item.stopReason === "cancelled") for (const line of stopLines(closed)) updates.push(...mapper.notice(line));
        const note = editorStopNote(item.stopReason as StopReason);
        if (note) updates.push(...mapper.notice(note));
        break;
      }
      default: {
        const event = historyEvent(item);
        if (event) updates.push(...mapper.map(event));
      }
    }
  }
  const lost = skippedLine(skipped);
  if (lost) updates.push(...mapper.notice(lost));
  return updates;
}
