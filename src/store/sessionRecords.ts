// The records of a session file and what they mean: every change to the conversation is one
// record, and applyRecord() is the one function that turns records into messages — used live by
// the Runtime and again by readSession() — so a resumed conversation is the one that was sent.
// sessionHistory.ts reads the same records back as what a front end showed.
//
// Formats: 1 is the first; 2 adds the title and notice records, the prompt as the user sent it
// (`shown`) and the change of a file edit (`change`); later, within format 2, the messages' ids
// (`messageId`, `messageIds`: messageIds.ts) and a compaction's id. Every addition is optional, so
// a reader takes an older file as it is, and an older reader skips what it does not know.
import type { AssistantBlock, Message, ModelStopReason, ToolResultBlock, UserBlock } from "../model/types.ts";
import type { Usage } from "../core-types/usage.ts";
import type { FileChange } from "../core-types/fileChange.ts";
import type { Mode } from "../core-types/mode.ts";
import type { CallInfo } from "../core-types/callInfo.ts";
import type { PromptBlock } from "../core-types/promptBlock.ts";
import { MAX_JSON_DEPTH } from "../text/jsonShape.ts";
import { type Redactor, redactValue } from "./redact.ts";

export const SESSION_FORMAT = 2;

export type { PromptBlock } from "../core-types/promptBlock.ts";

/** One tool result as recorded: what the model read, plus what a front end showed. */
export interface RecordedResult {
  callId: string;
  tool: string;
  content: string;
  isError: boolean;
  status: "completed" | "failed" | "denied";
  summary?: string;
  /** Title, kind and locations (the change is left out: it can be large). */
  info?: Omit<CallInfo, "change">;
  durationMs?: number;
  /** Made up by Garuda (a call the user cancelled), not the tool's own result. */
  synthetic?: boolean;
  /** The file change of an edit (what the approval showed), when small enough to keep (format 2). */
  change?: FileChange;
}

/**
 * The most of a file change (old and new text together) a result keeps, so a replay can show the
 * edit's diff as the editor saw it; a larger change is left out (the replay shows the text only).
 * The same bound as the editor's own diff (acp/toolCallContent.ts MAX_DIFF_BYTES).
 */
const MAX_KEPT_CHANGE_BYTES = 1024 * 1024;

/** The change as a result keeps it, or undefined when it is too large to keep. */
export function keptChange(change: FileChange): FileChange | undefined {
  const bytes = Buffer.byteLength(change.oldText ?? "") + Buffer.byteLength(change.newText);
  return bytes <= MAX_KEPT_CHANGE_BYTES
    ? { path: change.path, oldText: change.oldText, newText: change.newText }
    : undefined;
}

/** A tool result block cut by compaction stage 1: which message and block, and the new text. */
export interface PrunedResult {
  message: number;
  block: number;
  content: string;
}

export type SessionRecord = { t: string } & (
  | {
      type: "start";
      format: number;
      sessionId: string;
      root: string;
      version: string;
      model: string;
      mode: Mode;
      /** A fork (sessionFork.ts): the session whose conversation it copied, up to and with this message when named. */
      forkedFrom?: { sessionId: string; messageId?: string };
    }
  | { type: "resume"; version: string; model: string; mode: Mode }
  /**
   * The whole user message (notes first) and the prompt text the model got; `shown`: the prompt
   * as the user sent it, when that differs (editor blocks, a /command before it was expanded);
   * `synthetic`: Garuda's own note within a turn; `steering`: a message the user sent while the
   * turn ran, given to the model between two steps (format 2 readers take it as a prompt).
   */
  | {
      type: "user";
      prompt: string;
      content: UserBlock[];
      shown?: PromptBlock[];
      synthetic?: boolean;
      steering?: boolean;
      /** The message's id (messageIds.ts); absent in older files. */
      messageId?: string;
    }
  | {
      type: "assistant";
      step: number;
      stopReason: ModelStopReason;
      content: AssistantBlock[];
      usage: Usage;
      /**
       * One id per message of the answer: each run of text or thinking blocks (messageIds.ts); absent in older files.
       */
      messageIds?: string[];
    }
  | { type: "tool_results"; results: RecordedResult[] }
  | {
      type: "compaction";
      stage: 1 | 2;
      /** The compaction's id, the same on both stages of one compaction; absent in older files. */
      id?: string;
      beforeTokens: number;
      afterTokens: number;
      /** Stage 1: the results cut. */
      pruned?: PrunedResult[];
      /** Stage 2: messages before this index were replaced by one user message with `summary`. */
      keptFrom?: number;
      summary?: string;
      /** Tokens the summary request used (they count toward the session's budget). */
      usage?: Usage;
    }
  | { type: "mode"; mode: Mode }
  /** The session's model from here on (a switch); `model` is the spec, as in start and resume. */
  | { type: "model"; model: string }
  /** The effort level from here on (model/effort.ts), for the model in use. */
  | { type: "effort"; effort: string }
  | { type: "end"; stopReason: string; steps: number }
  /** The session's title (one visible line), from its first prompt (format 2). */
  | { type: "title"; title: string }
  /** A line from Garuda the user saw during the turn (format 2). */
  | { type: "notice"; level: "info" | "warning"; text: string }
  /**
   * The project's files (a snapshot tree id): just before the user message `before`, else at a turn's end
   * (rewindRecords.ts).
   */
  | { type: "snapshot"; tree: string; before?: string }
  /** A conversation rewind: the conversation from the user message `to` on no longer counts (rewindRecords.ts). */
  | { type: "rewind"; to: string }
);

/** Distributes Omit over the union, so each variant keeps its own fields. */
export type RecordInput = SessionRecord extends infer R ? (R extends { t: string } ? Omit<R, "t"> : never) : never;

/**
 * Appends a message; a message of the same role as the last one is merged into it (a paused
 * turn's continuation, tool results followed by a prompt), so roles always alternate.
 */
export function appendMessage(messages: Message[], message: Message): void {
  if (message.content.length === 0) return;
  const last = messages.at(-1);
  if (last && last.role === message.role) {
    messages[messages.length - 1] = { role: last.role, content: [...last.content, ...message.content] } as Message;
    return;
  }
  messages.push(message);
}

function resultBlocks(results: readonly RecordedResult[]): ToolResultBlock[] {
  return results.map((result) => ({
    type: "tool_result",
    toolUseId: result.callId,
    content: result.content,
    isError: result.isError,
  }));
}

/** The user message that stands for the messages a stage-2 compaction replaced. */
export function summaryMessage(summary: string): Message {
  return { role: "user", content: [{ type: "text", text: summary }] };
}

const SUMMARY_OPEN = "<garuda_summary>\n";
const SUMMARY_CLOSE = "\n</garuda_summary>";

/**
 * The user message text that replaces the summarized messages: the model's summary, and the latest request when it was
 * among them.
 */
export function summaryText(summary: string, prompt: string | undefined): string {
  const latest = prompt ? `\n\nThe user's latest request, word for word:\n${prompt}` : "";
  return (
    `${SUMMARY_OPEN}Earlier messages of this conversation were replaced by this ` +
    `summary to save context.\n\n${summary.trim()}${latest}${SUMMARY_CLOSE}`
  );
}

/** A stage-2 record's summary as a person reads it (an editor's compaction entry): without the tags around it. */
export function shownSummary(text: string): string {
  const start = text.startsWith(SUMMARY_OPEN) ? SUMMARY_OPEN.length : 0;
  const end = text.endsWith(SUMMARY_CLOSE) ? text.length - SUMMARY_CLOSE.length : text.length;
  return text.slice(start, Math.max(start, end));
}

/** Applies one record to the conversation, in place. Records that do not change it are ignored. */
export function applyRecord(messages: Message[], record: SessionRecord): void {
  switch (record.type) {
    case "user":
      appendMessage(messages, { role: "user", content: record.content });
      return;
    case "assistant":
      appendMessage(messages, { role: "assistant", content: record.content });
      return;
    case "tool_results":
      appendMessage(messages, { role: "user", content: resultBlocks(record.results) });
      return;
    case "compaction":
      applyCompaction(messages, record);
      return;
    default:
      return;
  }
}

function applyCompaction(messages: Message[], record: Extract<SessionRecord, { type: "compaction" }>): void {
  for (const cut of record.pruned ?? []) {
    const message = messages[cut.message];
    if (message?.role !== "user") continue;
    const block = message.content[cut.block];
    if (block?.type === "tool_result") {
      const content: UserBlock[] = [...message.content];
      content[cut.block] = { ...block, content: cut.content };
      messages[cut.message] = { role: "user", content };
    }
  }
  if (record.keptFrom !== undefined && record.summary !== undefined) {
    const kept = messages.slice(record.keptFrom);
    messages.length = 0;
    messages.push(summaryMessage(record.summary));
    for (const message of kept) appendMessage(messages, message);
  }
}

export function rebuildMessages(records: readonly SessionRecord[]): Message[] {
  const messages: Message[] = [];
  for (const record of records) applyRecord(messages, record);
  return messages;
}

/** Fields that are opaque to Garuda and must go back to the provider byte for byte. */
export const OPAQUE: ReadonlySet<string> = new Set(["signature", "data", "encrypted_content", "encrypted_index"]);

/**
 * The deepest a record may nest: a tool input (at most MAX_JSON_DEPTH, model/toolInput.ts) sits
 * a few levels down in it. The reader refuses a deeper line, the writer leaves deeper parts out.
 */
export const MAX_RECORD_DEPTH = MAX_JSON_DEPTH + 8;

/** Secrets out of every string of a record, except the provider's opaque fields. */
export function redactRecord<T>(value: T, redact: Redactor): T {
  return redactValue(value, redact, { keep: OPAQUE, maxDepth: MAX_RECORD_DEPTH }) as T;
}
