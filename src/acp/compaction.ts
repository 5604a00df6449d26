// Compaction the editor's way: a client that advertises `clientCapabilities.session.compaction`
// (stable in ACP's schema since SDK 2.4.0; Zed shows it behind its ACP beta flag) gets each
// compaction, automatic or /compact, as `compaction_update` entries: in progress when it begins,
// then completed with what it did and the summary, or failed (or cancelled) with why. A replay
// shows a compaction as it ended: completed, with its summary. Other clients get the one
// "Garuda: the conversation was compacted …" line when it ends, as before.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { AgentEvent } from "../core-types/events.ts";
import { groupedCount } from "../text/count.ts";
import { cutText } from "../text/cut.ts";
import { safeText, visible } from "../text/visible.ts";
import { MAX_CONTENT_CHARS } from "./toolCallContent.ts";
import { newMessageId } from "../store/messageIds.ts";

type CompactionEvent = Extract<AgentEvent, { type: "compaction" | "compaction_started" | "compaction_failed" }>;

/** Whether the client takes compaction updates (`{}` or any object; omitted or null: not). */
export function wantsCompaction(
  capabilities: { session?: { compaction?: unknown } | null } | null | undefined,
): boolean {
  const compaction = capabilities?.session?.compaction;
  return compaction !== undefined && compaction !== null;
}

/** What a compaction did, as Garuda says it (after an automatic one, and for /compact). */
export function compactionLine(before: number, after: number): string {
  return `the conversation was compacted to make room (${tokens(before)} → ${tokens(after)} tokens).`;
}

function tokens(count: number): string {
  return count >= 10_000 ? `${Math.round(count / 1000)}K` : groupedCount(count);
}

/** The completed entry's text: what was done, then the summary that now stands for the older messages. */
function summaryOf(event: Extract<AgentEvent, { type: "compaction" }>): string {
  const cut =
    event.pruned !== undefined && event.pruned > 0
      ? ` ${event.pruned === 1 ? "1 long tool result" : `${event.pruned} long tool results`} ` +
        `of older turns cut to their start.`
      : "";
  const line = compactionLine(event.beforeTokens, event.afterTokens);
  const head = `${line.charAt(0).toUpperCase()}${line.slice(1)}${cut}`;
  return event.summary === undefined ? head : `${head}\n\n${event.summary}`;
}

/** A compaction event as compaction_update entries. */
export function compactionUpdates(event: CompactionEvent): SessionUpdate[] {
  switch (event.type) {
    case "compaction_started":
      return [{ sessionUpdate: "compaction_update", compactionId: event.id, status: "in_progress" }];
    case "compaction":
      return [
        {
          sessionUpdate: "compaction_update",
          // Every compaction the Runtime makes or replays has an id; a new one for one that had none.
          compactionId: event.id ?? newMessageId(),
          status: "completed",
          summary: [{ type: "text", text: safeText(cutText(summaryOf(event), MAX_CONTENT_CHARS)) }],
        },
      ];
    case "compaction_failed":
      return [
        {
          sessionUpdate: "compaction_update",
          compactionId: event.id,
          status: event.cancelled ? "cancelled" : "failed",
          ...(!event.cancelled && { error: visible(cutText(event.error, MAX_CONTENT_CHARS)) }),
        },
      ];
  }
}
