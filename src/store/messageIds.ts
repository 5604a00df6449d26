// The ids of a session's messages, as an editor groups chunks by them (ACP `messageId`): one per
// user message (a prompt, a steering message), and one per run of an answer's visible blocks of
// one kind, text or thinking. A run ends at a block of another kind or at a call (a tool call, a
// server tool), so the thinking and the text of one answer are two messages (Zed keeps a thought
// and a text apart whatever their ids), and the many text blocks of one cited answer are one.
//
// The Runtime makes an id when a message starts and the session file keeps it (the user record's
// `messageId`, the assistant record's `messageIds`, one per run), so a replay and a resumed
// session show the same ids. A record written before ids were kept gets one made of its
// position among the file's records (`r<index>`, `r<index>.<run>`): the file only grows, so the
// position, and the id, stay the same every time it is read.
import type { AssistantBlock } from "../model/types.ts";

export type MessageKind = "text" | "thinking";

/** An id made when a message starts (Web Crypto's, so `garuda acp` loads no node:crypto for it at start-up). */
export function newMessageId(): string {
  return crypto.randomUUID();
}

/** The id of a message of a record written before ids were kept: its place in the file. */
export function positionId(recordIndex: number, run?: number): string {
  return run === undefined ? `r${recordIndex}` : `r${recordIndex}.${run}`;
}

/** What a file may hold as an id: a short plain token (it goes to the editor as is). */
export function isMessageId(value: unknown): value is string {
  return typeof value === "string" && /^[A-Za-z0-9._:-]{1,100}$/.test(value);
}

/** The kind of message a block shows, or undefined for one that shows none (a call, an empty or redacted block). */
function shownKind(block: AssistantBlock): MessageKind | "call" | undefined {
  switch (block.type) {
    case "text":
      return block.text === "" ? undefined : "text";
    case "thinking":
      return block.thinking === "" ? undefined : "thinking";
    case "redacted_thinking":
      return undefined;
    default:
      return "call";
  }
}

/** For each block of `content`, the number of its run (its message), or undefined when it shows no message. */
export function messageRuns(content: readonly AssistantBlock[]): Array<{ run: number; kind: MessageKind } | undefined> {
  const runs: Array<{ run: number; kind: MessageKind } | undefined> = [];
  let current: MessageKind | undefined;
  let count = 0;
  for (const block of content) {
    const kind = shownKind(block);
    if (kind === "call") current = undefined;
    if (kind === undefined || kind === "call") {
      runs.push(undefined);
      continue;
    }
    if (kind !== current) count++;
    current = kind;
    runs.push({ run: count - 1, kind });
  }
  return runs;
}

/** The kinds of the messages of `content`, in order. */
function runKinds(content: readonly AssistantBlock[]): MessageKind[] {
  const kinds: MessageKind[] = [];
  for (const entry of messageRuns(content)) if (entry && entry.run === kinds.length) kinds.push(entry.kind);
  return kinds;
}

/**
 * The ids to record for the messages of `content` (the answer as it is kept), given the messages
 * shown while it streamed, in order. Each kept message takes the next streamed one of its kind;
 * one that was not streamed (a provider that sends the text only at the end) gets a new id.
 * Streamed ones not kept (thinking a provider does not return) are skipped.
 */
export function keptMessageIds(
  content: readonly AssistantBlock[],
  streamed: readonly { kind: MessageKind; id: string }[],
): string[] {
  let next = 0;
  return runKinds(content).map((kind) => {
    while (next < streamed.length && streamed[next]?.kind !== kind) next++;
    const found = streamed[next];
    next++;
    return found?.id ?? newMessageId();
  });
}
