// Compaction: keeps the conversation inside the model's context window. Stage 1 cuts long tool
// results of older turns to a short head; when that is not enough, stage 2 asks the model for a
// summary of the older messages and puts it in their place, keeping the latest turns as they are.
// Each stage is one session record, so a resumed session has the same messages.
import type { Message, ModelClient, ModelRequest } from "../model/types.ts";
import type { Usage } from "../core-types/usage.ts";
import {
  type PrunedResult,
  appendMessage,
  shownSummary,
  summaryMessage,
  summaryText,
} from "../store/sessionRecords.ts";
import type { AgentEvent } from "../core-types/events.ts";
import { messageOf } from "../errors/caught.ts";
import { newMessageId } from "../store/messageIds.ts";
import type { Conversation } from "./conversation.ts";
import { CHARS_PER_TOKEN, type UsageMeter } from "./meter.ts";
import { streamResponse } from "./modelStep.ts";
import { safeEmit } from "./safeEmit.ts";

/** Compact when the context estimate passes this share of the window… */
export const COMPACT_AT = 0.8;
/** …and stop after stage 1 when it is down to this share. */
const COMPACT_TARGET = 0.6;
/** Stage 1 cuts results longer than this… */
const PRUNE_OVER_CHARS = 1_000;
/** …to a head this long… */
export const PRUNE_HEAD_CHARS = 200;
/** …in messages before the last this many assistant turns. */
export const KEEP_RECENT_TURNS = 4;

export const SUMMARY_INSTRUCTION = [
  "Summarize the conversation above for yourself: you will continue the work from " +
    "this summary alone, without those messages.",
  "Keep: the user's task and requests; the plan (the todo items and their state); " +
    "decisions made and why; every file read or changed, with the lines or symbols " +
    "that matter; commands run and what they showed (what passed, what failed); " +
    "errors and open problems; what to do next.",
  "Be complete but brief; use short lists. Answer with the summary only. Do not call tools.",
].join("\n");

export interface CompactionContext {
  client: ModelClient;
  /** The request the loop sends, minus the messages: the summary request reuses it (and its cached prefix). */
  request: Omit<ModelRequest, "messages">;
  contextWindow: number;
  conversation: Conversation;
  meter: UsageMeter;
}

export interface CompactionResult {
  beforeTokens: number;
  afterTokens: number;
  stages: Array<1 | 2>;
}

export interface CompactOptions {
  /** Both stages, whatever the estimate (/compact, a context-window stop). */
  force: boolean;
  focus?: string;
  signal: AbortSignal;
  /**
   * Told when a compaction begins and how it ends (compaction_started, then compaction or
   * compaction_failed), so a front end can show it as it runs; absent: nothing is told.
   */
  emit?: (event: AgentEvent) => unknown;
}

function contextEstimate(ctx: Pick<CompactionContext, "conversation" | "meter">): number {
  return ctx.meter.estimate(ctx.conversation.chars);
}

export function needsCompaction(ctx: CompactionContext): boolean {
  return contextEstimate(ctx) > ctx.contextWindow * COMPACT_AT;
}

/** Stage 1: the long tool results before the last KEEP_RECENT_TURNS assistant turns, cut to a head. */
export function pruneToolResults(messages: readonly Message[]): { pruned: PrunedResult[]; savedChars: number } {
  const assistants = messages.flatMap((message, index) => (message.role === "assistant" ? [index] : []));
  const before =
    assistants.length > KEEP_RECENT_TURNS ? (assistants[assistants.length - KEEP_RECENT_TURNS] as number) : 0;
  const pruned: PrunedResult[] = [];
  let savedChars = 0;
  messages.slice(0, before).forEach((message, index) => {
    if (message.role !== "user") return;
    message.content.forEach((block, blockIndex) => {
      if (block.type !== "tool_result" || block.content.length <= PRUNE_OVER_CHARS) return;
      const cut = block.content.length - PRUNE_HEAD_CHARS;
      const content =
        `${block.content.slice(0, PRUNE_HEAD_CHARS)}\n[… ${cut} more characters were ` +
        `removed to save context. Run the tool again if you need them.]`;
      pruned.push({ message: index, block: blockIndex, content });
      savedChars += block.content.length - content.length;
    });
  });
  return { pruned, savedChars };
}

/**
 * Stage 2: where the kept tail starts (an assistant message), or undefined when there is nothing older to summarize.
 */
export function summaryCut(messages: readonly Message[], keepTurns = 2): number | undefined {
  const assistants = messages.flatMap((message, index) => (message.role === "assistant" ? [index] : []));
  for (let keep = Math.min(keepTurns, assistants.length - 1); keep >= 1; keep--) {
    const cut = assistants[assistants.length - keep] as number;
    if (cut > (assistants[0] as number)) return cut;
  }
  return undefined;
}

async function summarize(
  ctx: CompactionContext,
  head: Message[],
  focus: string | undefined,
  signal: AbortSignal,
): Promise<{ text: string; usage: Usage }> {
  const messages = [...head];
  const instruction = focus ? `${SUMMARY_INSTRUCTION}\nFocus on: ${focus}` : SUMMARY_INSTRUCTION;
  appendMessage(messages, { role: "user", content: [{ type: "text", text: instruction }] });
  const response = await streamResponse(ctx.client, { ...ctx.request, messages }, signal, undefined);
  const text = response.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n")
    .trim();
  return { text, usage: response.usage };
}

/**
 * Runs stage 1, then stage 2 unless stage 1 brought the estimate to COMPACT_TARGET. `force`
 * (/compact, a context-window stop) runs both. Undefined when nothing could be compacted. Both
 * stages' records carry one id, the one the events name.
 */
export async function compact(ctx: CompactionContext, options: CompactOptions): Promise<CompactionResult | undefined> {
  const { pruned, savedChars } = pruneToolResults(ctx.conversation.messages);
  // Nothing to cut and nothing to summarize: no compaction begins.
  if (pruned.length === 0 && summaryCut(ctx.conversation.messages) === undefined) return undefined;
  const id = newMessageId();
  options.emit?.({ type: "compaction_started", id });
  let done: { result: CompactionResult; summary?: string } | undefined;
  try {
    done = await runStages(ctx, options, id, { pruned, savedChars });
  } catch (error) {
    options.emit?.({ type: "compaction_failed", id, error: messageOf(error), cancelled: options.signal.aborted });
    throw error;
  }
  if (!done) {
    options.emit?.({ type: "compaction_failed", id, error: "the model's summary was empty", cancelled: false });
    return undefined;
  }
  const { result, summary } = done;
  options.emit?.({
    type: "compaction",
    id,
    beforeTokens: result.beforeTokens,
    afterTokens: result.afterTokens,
    ...(result.stages.includes(1) && { pruned: pruned.length }),
    ...(summary !== undefined && { summary }),
  });
  return result;
}

async function runStages(
  ctx: CompactionContext,
  options: CompactOptions,
  id: string,
  { pruned, savedChars }: ReturnType<typeof pruneToolResults>,
): Promise<{ result: CompactionResult; summary?: string } | undefined> {
  const { conversation, meter } = ctx;
  const beforeTokens = contextEstimate(ctx);
  const stages: Array<1 | 2> = [];
  let estimate = beforeTokens;

  if (pruned.length > 0) {
    estimate = Math.max(0, beforeTokens - Math.floor(savedChars / CHARS_PER_TOKEN));
    conversation.record({ type: "compaction", stage: 1, id, beforeTokens, afterTokens: estimate, pruned });
    meter.rebase(estimate, conversation.chars);
    stages.push(1);
    if (!options.force && estimate <= ctx.contextWindow * COMPACT_TARGET)
      return { result: { beforeTokens, afterTokens: estimate, stages } };
  }

  let shown: string | undefined;
  const cut = summaryCut(conversation.messages);
  if (cut !== undefined) {
    const summary = await summarize(ctx, conversation.messages.slice(0, cut), options.focus, options.signal);
    meter.spend(summary.usage);
    if (summary.text !== "") {
      const prompt = conversation.prompt && conversation.prompt.index < cut ? conversation.prompt.text : undefined;
      const text = summaryText(summary.text, prompt);
      const chars = [summaryMessage(text), ...conversation.messages.slice(cut)].reduce(
        (sum, message) => sum + JSON.stringify(message.content).length,
        0,
      );
      const after = Math.ceil((meter.fixedChars + chars) / CHARS_PER_TOKEN);
      conversation.record({
        type: "compaction",
        stage: 2,
        id,
        beforeTokens: estimate,
        afterTokens: after,
        keptFrom: cut,
        summary: text,
        usage: summary.usage,
      });
      meter.rebase(undefined, conversation.chars);
      estimate = contextEstimate(ctx);
      stages.push(2);
      shown = shownSummary(text);
    }
  }
  if (stages.length === 0) return undefined;
  return { result: { beforeTokens, afterTokens: estimate, stages }, ...(shown !== undefined && { summary: shown }) };
}

/** What /compact may give (Runtime.compact): a focus for the summary, its own stop, who is told as it runs. */
export interface CompactNowOptions {
  focus?: string;
  signal?: AbortSignal;
  emit?: (event: AgentEvent) => unknown;
}

/** /compact: both stages now, whatever the estimate; stopped by `options.signal` or `closing` (the session's). */
export function compactNow(
  ctx: CompactionContext,
  options: CompactNowOptions,
  closing: AbortSignal,
): Promise<CompactionResult | undefined> {
  return compact(ctx, {
    force: true,
    signal: AbortSignal.any([options.signal ?? new AbortController().signal, closing]),
    ...(options.focus && { focus: options.focus }),
    ...(options.emit && { emit: safeEmit(options.emit) }),
  });
}
