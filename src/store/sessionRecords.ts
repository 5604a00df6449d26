// The records of a session file and what they mean: every change to the conversation is one
// record, and applyRecord() is the one function that turns records into messages — used live by
// the Runtime and again by readSession() — so a resumed conversation is the one that was sent.
// replayEvents() turns the same records back into the AgentEvents a front end showed.
import type { AssistantBlock, Message, ModelStopReason, ToolResultBlock, UserBlock, Usage } from "../model/types.ts";
import type { Mode } from "../permission/types.ts";
import type { AgentEvent } from "../runtime/events.ts";
import type { CallInfo } from "../tools/types.ts";
import type { Redactor } from "./redact.ts";

export const SESSION_FORMAT = 1;

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
}

/** A tool result block cut by compaction stage 1: which message and block, and the new text. */
export interface PrunedResult {
  message: number;
  block: number;
  content: string;
}

export type SessionRecord = { t: string } & (
  | { type: "start"; format: number; sessionId: string; root: string; version: string; model: string; mode: Mode }
  | { type: "resume"; version: string; model: string; mode: Mode }
  /** The whole user message (notes first) and the prompt as the user typed it; `synthetic`: Garuda's own note within a turn. */
  | { type: "user"; prompt: string; content: UserBlock[]; synthetic?: boolean }
  | { type: "assistant"; step: number; stopReason: ModelStopReason; content: AssistantBlock[]; usage: Usage }
  | { type: "tool_results"; results: RecordedResult[] }
  | {
      type: "compaction";
      stage: 1 | 2;
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
);

export type SessionRecordType = SessionRecord["type"];

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

export function resultBlocks(results: readonly RecordedResult[]): ToolResultBlock[] {
  return results.map((result) => ({ type: "tool_result", toolUseId: result.callId, content: result.content, isError: result.isError }));
}

/** The user message that stands for the messages a stage-2 compaction replaced. */
export function summaryMessage(summary: string): Message {
  return { role: "user", content: [{ type: "text", text: summary }] };
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
const OPAQUE = new Set(["signature", "data", "encrypted_content", "encrypted_index"]);

/** Secrets out of every string of a record, except the provider's opaque fields. */
export function redactRecord<T>(value: T, redact: Redactor): T {
  const walk = (item: unknown, key?: string): unknown => {
    if (typeof item === "string") return key !== undefined && OPAQUE.has(key) ? item : redact(item);
    if (Array.isArray(item)) return item.map((entry) => walk(entry));
    if (item !== null && typeof item === "object") return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, walk(v, k)]));
    return item;
  };
  return walk(value) as T;
}

/** One turn of a recorded session, as a front end would show it again. */
export interface ReplayedTurn {
  prompt: string;
  events: AgentEvent[];
  stopReason?: string;
}

function assistantEvents(content: readonly AssistantBlock[], infos: ReadonlyMap<string, RecordedResult>): AgentEvent[] {
  const events: AgentEvent[] = [];
  for (const block of content) {
    switch (block.type) {
      case "thinking":
        if (block.thinking) events.push({ type: "thinking_delta", text: block.thinking });
        break;
      case "text":
        if (block.text) events.push({ type: "text_delta", text: block.text });
        break;
      case "tool_use": {
        const info = infos.get(block.id)?.info ?? { title: block.name, kind: "other", locations: [] };
        events.push({ type: "tool_call", callId: block.id, tool: block.name, input: block.input, info });
        break;
      }
      case "server_tool_use":
        events.push({ type: "server_tool", callId: block.id, name: block.name, input: block.input, status: "started" });
        break;
      case "server_tool_result":
        events.push({ type: "server_tool", callId: block.toolUseId, name: block.blockType, input: null, status: "completed", result: block.content });
        break;
      case "redacted_thinking":
        break;
    }
  }
  return events;
}

/** The session's turns with the events each showed: text, thinking, tool calls and results, compactions. */
export function replayTurns(records: readonly SessionRecord[]): ReplayedTurn[] {
  const results = new Map<string, RecordedResult>();
  for (const record of records) if (record.type === "tool_results") for (const result of record.results) results.set(result.callId, result);
  const turns: ReplayedTurn[] = [];
  let turn: ReplayedTurn | undefined;
  const current = (): ReplayedTurn => {
    if (!turn) {
      turn = { prompt: "", events: [] };
      turns.push(turn);
    }
    return turn;
  };
  // As live: a step ends after its tool results.
  let stepEnd: AgentEvent | undefined;
  const flush = () => {
    if (stepEnd) current().events.push(stepEnd);
    stepEnd = undefined;
  };
  for (const record of records) {
    if (record.type !== "tool_results") flush();
    switch (record.type) {
      case "user":
        if (record.synthetic) break;
        turn = { prompt: record.prompt, events: [] };
        turns.push(turn);
        break;
      case "assistant":
        current().events.push(...assistantEvents(record.content, results));
        stepEnd = { type: "step_end", step: record.step, usage: record.usage };
        break;
      case "tool_results":
        for (const result of record.results) {
          current().events.push({ type: "tool_result", callId: result.callId, status: result.status, output: result.content, ...(result.summary !== undefined && { summary: result.summary }) });
        }
        flush();
        break;
      case "compaction":
        current().events.push({ type: "compaction", beforeTokens: record.beforeTokens, afterTokens: record.afterTokens });
        break;
      case "end":
        current().stopReason = record.stopReason;
        break;
      default:
        break;
    }
  }
  flush();
  return turns;
}

/** Every event of the session in order (replayTurns without the grouping). */
export function replayEvents(records: readonly SessionRecord[]): AgentEvent[] {
  return replayTurns(records).flatMap((turn) => turn.events);
}
