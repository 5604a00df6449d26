// A session file read back as what happened, in order, for any front end: the prompts as the
// user sent them, the answer and thinking text, each tool call (title, kind, locations, input,
// the change of an edit) with its final result, the plan, Garuda's notices, compactions, the
// mode and model, the title and how each turn ended. The editor's session/load turns this list
// into session/update notifications (src/acp/replay.ts); the terminal's --resume shows it with
// replayTurns().
import { serverToolInfo, serverToolSummary } from "../model/serverTools.ts";
import type { AssistantBlock } from "../model/types.ts";
import type { Usage } from "../core-types/usage.ts";
import type { Mode } from "../core-types/mode.ts";
import type { AgentEvent, PlanItem } from "../core-types/events.ts";
import type { CallInfo } from "../core-types/callInfo.ts";
import { type PromptBlock, type RecordedResult, type SessionRecord, shownSummary } from "./sessionRecords.ts";
import { sessionTitle } from "./sessionTitle.ts";
import { messageRuns, positionId } from "./messageIds.ts";
import { rewoundIndexes } from "./rewindRecords.ts";

export type HistoryItem =
  /**
   * A prompt: `blocks` as the user sent it (a plain prompt is one text block); `steering`: sent
   * while the turn ran. `messageId` here and on text and thinking: the message's id (messageIds.ts).
   */
  | { type: "prompt"; text: string; blocks: PromptBlock[]; steering?: true; messageId: string }
  | { type: "text"; text: string; messageId: string }
  | { type: "thinking"; text: string; messageId: string }
  /** `info` carries the edit's change when the file kept it. */
  | { type: "tool_call"; callId: string; tool: string; input: unknown; info: CallInfo }
  /** `cancelled`: Garuda closed the call (a stop, a cut answer): it never finished. */
  | {
      type: "tool_result";
      callId: string;
      status: "completed" | "failed" | "denied";
      output: string;
      summary?: string;
      cancelled: boolean;
    }
  | {
      type: "server_tool";
      callId: string;
      name: string;
      input: unknown;
      status: "started" | "completed";
      result?: unknown;
    }
  /** The whole plan after a todo call. */
  | { type: "plan"; items: PlanItem[] }
  | { type: "notice"; level: "info" | "warning"; text: string }
  /**
   * Both stages of one compaction: `pruned` results cut, the `summary` shown (messageIds.ts: `id` as recorded, else of
   * its position).
   */
  | { type: "compaction"; id: string; beforeTokens: number; afterTokens: number; pruned?: number; summary?: string }
  | { type: "step_end"; step: number; usage: Usage }
  | { type: "mode"; mode: Mode }
  | { type: "model"; model: string }
  | { type: "title"; title: string }
  | { type: "turn_end"; stopReason: string };

const PLAN_STATUSES = new Set(["pending", "in_progress", "completed"]);

/** The plan a todo call's input set, or undefined when the input is not a plan. */
function planOf(input: unknown): PlanItem[] | undefined {
  const items = (input as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return undefined;
  const plan: PlanItem[] = [];
  for (const item of items) {
    const { content, status } = (item ?? {}) as { content?: unknown; status?: unknown };
    if (typeof content !== "string" || typeof status !== "string" || !PLAN_STATUSES.has(status)) return undefined;
    plan.push({ content, status: status as PlanItem["status"] });
  }
  return plan;
}

/** The id of each message of an answer: as recorded, else that of its position (an older file). */
function answerIds(record: Extract<SessionRecord, { type: "assistant" }>, index: number): (run: number) => string {
  return (run) => record.messageIds?.[run] ?? positionId(index, run);
}

function assistantItems(
  content: readonly AssistantBlock[],
  results: ReadonlyMap<string, RecordedResult>,
  idOf: (run: number) => string,
): HistoryItem[] {
  const items: HistoryItem[] = [];
  const runs = messageRuns(content);
  content.forEach((block, at) => {
    const run = runs[at]?.run ?? 0;
    switch (block.type) {
      case "thinking":
        if (block.thinking) items.push({ type: "thinking", text: block.thinking, messageId: idOf(run) });
        break;
      case "text":
        if (block.text) items.push({ type: "text", text: block.text, messageId: idOf(run) });
        break;
      case "tool_use": {
        const result = results.get(block.id);
        const info: CallInfo = result?.info
          ? { ...result.info, ...(result.change && { change: result.change }) }
          : { title: block.name, kind: "other", locations: [] };
        items.push({ type: "tool_call", callId: block.id, tool: block.name, input: block.input, info });
        break;
      }
      case "server_tool_use":
        items.push({ type: "server_tool", callId: block.id, name: block.name, input: block.input, status: "started" });
        break;
      case "server_tool_result":
        items.push({
          type: "server_tool",
          callId: block.toolUseId,
          name: block.blockType,
          input: null,
          status: "completed",
          result: block.content,
        });
        break;
      case "redacted_thinking":
        break;
    }
  });
  return items;
}

/** What the session's records say happened, in order. */
export function readHistory(records: readonly SessionRecord[]): HistoryItem[] {
  const results = new Map<string, RecordedResult>();
  const tools = new Map<string, { tool: string; input: unknown }>();
  for (const record of records) {
    if (record.type === "tool_results") for (const result of record.results) results.set(result.callId, result);
    if (record.type === "assistant")
      for (const block of record.content)
        if (block.type === "tool_use") tools.set(block.id, { tool: block.name, input: block.input });
  }
  const items: HistoryItem[] = [];
  // What a conversation rewind dropped is not shown (rewindRecords.ts); ids keep their places.
  const rewound = rewoundIndexes(records);
  for (const [index, record] of records.entries()) {
    if (rewound.has(index)) continue;
    switch (record.type) {
      case "start":
      case "resume":
        items.push({ type: "model", model: record.model }, { type: "mode", mode: record.mode });
        break;
      case "mode":
        items.push({ type: "mode", mode: record.mode });
        break;
      case "user":
        if (!record.synthetic)
          items.push({
            type: "prompt",
            text: record.prompt,
            blocks: record.shown ?? [{ type: "text", text: record.prompt }],
            ...(record.steering === true && { steering: true as const }),
            messageId: record.messageId ?? positionId(index),
          });
        break;
      case "assistant":
        items.push(...assistantItems(record.content, results, answerIds(record, index)), {
          type: "step_end",
          step: record.step,
          usage: record.usage,
        });
        break;
      case "tool_results":
        for (const result of record.results) {
          // The plan goes out as the todo tool runs, before its result (as live).
          const call = tools.get(result.callId);
          const plan = call?.tool === "todo" && result.status === "completed" ? planOf(call.input) : undefined;
          if (plan) items.push({ type: "plan", items: plan });
          items.push({
            type: "tool_result",
            callId: result.callId,
            status: result.status,
            output: result.content,
            ...(result.summary !== undefined && { summary: result.summary }),
            cancelled: result.synthetic === true,
          });
        }
        break;
      case "compaction":
        addCompaction(items, record, index);
        break;
      case "notice":
        items.push({ type: "notice", level: record.level, text: record.text });
        break;
      case "title": {
        // One visible line whatever wrote the file (the title is shown as a thread's name).
        const title = sessionTitle(record.title);
        if (title !== undefined) items.push({ type: "title", title });
        break;
      }
      case "end":
        items.push({ type: "turn_end", stopReason: record.stopReason });
        break;
    }
  }
  return moveStepEnds(items);
}

/** A compaction record as an item; its second stage joins the first (one compaction, one id). */
function addCompaction(
  items: HistoryItem[],
  record: Extract<SessionRecord, { type: "compaction" }>,
  index: number,
): void {
  const last = items.at(-1);
  const summary = record.summary === undefined ? undefined : shownSummary(record.summary);
  if (record.id !== undefined && last?.type === "compaction" && last.id === record.id) {
    last.afterTokens = record.afterTokens;
    if (summary !== undefined) last.summary = summary;
    return;
  }
  items.push({
    type: "compaction",
    id: record.id ?? positionId(index),
    beforeTokens: record.beforeTokens,
    afterTokens: record.afterTokens,
    ...(record.pruned && record.pruned.length > 0 && { pruned: record.pruned.length }),
    ...(summary !== undefined && { summary }),
  });
}

/** As live, a step ends after its tool results (and the plan they set), not after its answer. */
function moveStepEnds(items: HistoryItem[]): HistoryItem[] {
  const out: HistoryItem[] = [];
  let pending: HistoryItem | undefined;
  for (const item of items) {
    if (item.type === "step_end") {
      if (pending) out.push(pending);
      pending = item;
      continue;
    }
    if (pending && item.type !== "tool_result" && item.type !== "plan") {
      out.push(pending);
      pending = undefined;
    }
    out.push(item);
  }
  if (pending) out.push(pending);
  return out;
}

/** One turn of a recorded session, as a front end would show it again. */
export interface ReplayedTurn {
  prompt: string;
  events: AgentEvent[];
  stopReason?: string;
}

/** A history item as the AgentEvent the Runtime sent live, where there is one. */
export function historyEvent(item: HistoryItem): AgentEvent | undefined {
  switch (item.type) {
    case "text":
      return { type: "text_delta", text: item.text, messageId: item.messageId };
    case "thinking":
      return { type: "thinking_delta", text: item.text, messageId: item.messageId };
    case "tool_call":
      return { type: "tool_call", callId: item.callId, tool: item.tool, input: item.input, info: item.info };
    case "tool_result":
      return {
        type: "tool_result",
        callId: item.callId,
        status: item.status,
        output: item.output,
        ...(item.summary !== undefined && { summary: item.summary }),
      };
    case "server_tool":
      if (item.status === "started")
        return {
          type: "server_tool",
          callId: item.callId,
          name: item.name,
          input: item.input,
          status: "started",
          info: serverToolInfo(item.name, item.input),
        };
      return {
        type: "server_tool",
        callId: item.callId,
        name: item.name,
        input: item.input,
        status: "completed",
        ...(item.result !== undefined && { result: item.result }),
        summary: serverToolSummary(item.name, item.result),
      };
    case "notice":
      return { type: "notice", level: item.level, text: item.text };
    case "compaction":
      return {
        type: "compaction",
        id: item.id,
        beforeTokens: item.beforeTokens,
        afterTokens: item.afterTokens,
        ...(item.pruned !== undefined && { pruned: item.pruned }),
        ...(item.summary !== undefined && { summary: item.summary }),
      };
    case "step_end":
      return { type: "step_end", step: item.step, usage: item.usage };
    case "title":
      return { type: "title", title: item.title };
    case "prompt":
      // Only a steering message is an event of its turn; a prompt begins one.
      return item.steering
        ? { type: "steering", id: 0, text: item.text, shown: item.blocks, messageId: item.messageId }
        : undefined;
    default:
      return undefined;
  }
}

/** The session's turns with the events each showed: text, thinking, tool calls and results, notices, compactions. */
export function replayTurns(records: readonly SessionRecord[]): ReplayedTurn[] {
  const turns: ReplayedTurn[] = [];
  let turn: ReplayedTurn | undefined;
  const current = (): ReplayedTurn => {
    if (!turn) {
      turn = { prompt: "", events: [] };
      turns.push(turn);
    }
    return turn;
  };
  for (const item of readHistory(records)) {
    if (item.type === "prompt" && !item.steering) {
      turn = { prompt: item.text, events: [] };
      turns.push(turn);
      continue;
    }
    if (item.type === "turn_end") {
      current().stopReason = item.stopReason;
      continue;
    }
    const event = historyEvent(item);
    if (event) current().events.push(event);
  }
  return turns;
}

/** Every event of the session in order (replayTurns without the grouping). */
export function replayEvents(records: readonly SessionRecord[]): AgentEvent[] {
  return replayTurns(records).flatMap((turn) => turn.events);
}
