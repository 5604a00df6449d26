// Rewind in the session file. Two records carry it (sessionRecords.ts):
// - `snapshot {tree, before?}`: the project's files as the snapshot store holds them (a tree id,
//   pinned by a ref: rewindFiles.ts); with `before`, just before that user message (its rewind
//   point), without, at a turn's end (what Garuda last knew the files to be);
// - `rewind {to}`: a conversation rewind. Every conversation record from the user message `to` on
//   (the messages, the results, compactions, notices, turn ends and later points) no longer
//   counts; the session's settings (mode, model, effort, title) stay as they were set.
// The file only grows: a rewound record stays in it, so ids made of a record's place
// (messageIds.ts) stay what they were. Resume, replay and a live rewind all read the same records.
import { positionId } from "./messageIds.ts";
import type { PromptBlock, SessionRecord } from "./sessionRecords.ts";

/** The kinds a conversation rewind drops (the rest are settings, which stay). */
const CONVERSATION = new Set(["user", "assistant", "tool_results", "compaction", "notice", "end"]);

/** A user record's id: its own, or the one of its place in the file (an older file). */
export function userMessageId(record: Extract<SessionRecord, { type: "user" }>, index: number): string {
  return record.messageId ?? positionId(index);
}

/** The places (indexes) of the records that rewinds dropped. */
export function rewoundIndexes(records: readonly SessionRecord[]): Set<number> {
  const dropped = new Set<number>();
  /** Live user messages: id → place. */
  const users = new Map<string, number>();
  for (const [index, record] of records.entries()) {
    if (record.type === "user") users.set(userMessageId(record, index), index);
    if (record.type !== "rewind") continue;
    const from = users.get(record.to);
    // A rewind to a message that is not live (dropped already, or unknown) changes nothing.
    if (from === undefined) continue;
    for (let at = from; at < index; at++) {
      const kind = records[at] as SessionRecord;
      if (dropped.has(at)) continue;
      if (CONVERSATION.has(kind.type) || (kind.type === "snapshot" && kind.before !== undefined)) {
        dropped.add(at);
        if (kind.type === "user") users.delete(userMessageId(kind, at));
      }
    }
  }
  return dropped;
}

/** The records that still count. */
export function withoutRewound(records: readonly SessionRecord[]): SessionRecord[] {
  const dropped = rewoundIndexes(records);
  return dropped.size === 0 ? [...records] : records.filter((_, index) => !dropped.has(index));
}

/** A point's text: the prompt as the user sent it (its first text block), else as the model got it. */
export function pointText(prompt: string, shown: readonly PromptBlock[] | undefined): string {
  const first = shown?.find((block) => block.type === "text");
  return first?.type === "text" ? first.text : prompt;
}

/** A rewind point: a user message that began a turn, and the files just before it (when kept). */
export interface RewindPoint {
  messageId: string;
  /** The prompt as the user typed it. */
  text: string;
  /** When it was sent (ISO time). */
  time: string;
  /** The snapshot tree of the files just before it; absent when undo was off or it is no longer kept. */
  tree?: string;
}

export interface RecordedRewinds {
  points: RewindPoint[];
  /** The files as Garuda last recorded them (a turn's end, or a point), when it did. */
  known?: string;
}

/**
 * The rewind points the records hold, oldest first: each prompt (a queued one too) that is still
 * in the conversation. A steering message is not a point: it arrives inside a running turn, when
 * no snapshot is taken (the turn's tools run just before and after it), so there is no file
 * state of its own to go back to.
 */
export function recordedRewinds(records: readonly SessionRecord[]): RecordedRewinds {
  const dropped = rewoundIndexes(records);
  const trees = new Map<string, string>();
  const points: RewindPoint[] = [];
  let known: string | undefined;
  for (const [index, record] of records.entries()) {
    if (dropped.has(index)) continue;
    if (record.type === "snapshot") {
      if (record.before !== undefined) trees.set(record.before, record.tree);
      known = record.tree;
    } else if (record.type === "user" && !record.synthetic && !record.steering) {
      points.push({
        messageId: userMessageId(record, index),
        text: pointText(record.prompt, record.shown),
        time: record.t,
      });
    }
  }
  for (const point of points) {
    const tree = trees.get(point.messageId);
    if (tree !== undefined) point.tree = tree;
  }
  return { points, ...(known !== undefined && { known }) };
}
