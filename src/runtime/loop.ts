// The agent loop of one turn, a small state machine: check the limits, compact when the context
// is near full, stream a model response, run its tool calls, record both, repeat until the model
// ends the turn or a limit does. It knows no provider and no front end: a ModelClient in, a
// StopReason and AgentEvents out, every change to the conversation a session record.
import {
  type AssistantBlock,
  type ModelClient,
  ModelError,
  type ModelRequest,
  type ToolUseBlock,
} from "../model/types.ts";
import { keptChange, type RecordedResult } from "../store/sessionRecords.ts";
import type { CallContext, CallOutcome, ToolRegistry } from "../tools/registry.ts";
import { cutText } from "../text/cut.ts";
import type { CallInfo } from "../core-types/callInfo.ts";
import { abortable } from "./abortable.ts";
import { type CompactionContext, compact, needsCompaction } from "./compaction.ts";
import type { Conversation } from "./conversation.ts";
import type { AgentEvent, StopReason } from "../core-types/events.ts";
import { CHARS_PER_TOKEN, type UsageMeter, usageSnapshot } from "./meter.ts";
import { streamResponse } from "./modelStep.ts";
import { CUT_CONTINUE_NOTE, noteBlock } from "./notes.ts";
import { runToolCalls } from "./toolBatch.ts";
import { keptMessageIds, newMessageId } from "../store/messageIds.ts";
import type { TurnInbox } from "./turnInbox.ts";

export interface Limits {
  /** Model responses per turn. */
  maxSteps: number;
  /** Tokens per session (input, cache writes and output). */
  tokenBudget: number;
  /** max_tokens of a request; a response cut in the middle of a tool call raises it to the model's maximum. */
  maxOutputTokens: number;
}

export const DEFAULT_LIMITS: Limits = { maxSteps: 50, tokenBudget: 20_000_000, maxOutputTokens: 32_000 };
/** The same call (tool and input) this many times in a row ends the turn. */
const REPEAT_LIMIT = 3;
/** Responses cut by max_tokens that are answered with "go on" (and more room), per turn; the next cut ends the turn. */
const CUT_RETRIES = 3;

export const CUT_TOOL_OUTPUT =
  "Not run: your response was cut off at the output limit before it was complete, " +
  "so this call may be incomplete. Send it again; split large content (a long " +
  "file) into several smaller calls.";

export interface LoopContext {
  /**
   * Read at every request (client, request, window, maximum): a model switched in the turn applies from the next
   * request.
   */
  client: ModelClient;
  /** Model, system prompt, tools, thinking and effort. */
  request: Omit<ModelRequest, "messages" | "maxTokens">;
  contextWindow: number;
  /** The model's own output maximum. */
  modelMaxTokens: number;
  limits: Limits;
  conversation: Conversation;
  meter: UsageMeter;
  registry: ToolRegistry;
  /** For the tools: carries the turn's signal and emit. */
  calls: CallContext;
  emit(event: AgentEvent): unknown;
  signal: AbortSignal;
  /** Model responses of this turn so far; kept here so a turn that throws still reports them. */
  stats: { steps: number };
  /** The messages the user sends while the turn runs, taken between steps. */
  inbox?: Pick<TurnInbox, "take">;
}

export interface LoopResult {
  stopReason: StopReason;
  steps: number;
  /** The last response was cut at the output limit: the next turn tells the model. */
  cutOff: boolean;
}

/** JSON with object keys sorted, so {a,b} and {b,a} are the same call. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The longest tool result the model reads (and the session file keeps). Garuda's tools cut their
 * own output far below it; this is the bound for any tool (an MCP server's, an error that quotes
 * its input).
 */
export const MAX_TOOL_RESULT_CHARS = 400_000;

function toRecorded(outcome: CallOutcome): RecordedResult {
  const { change, ...info } = outcome.info;
  const kept = change && keptChange(change);
  return {
    callId: outcome.callId,
    tool: outcome.tool,
    content: cutText(outcome.output, MAX_TOOL_RESULT_CHARS),
    isError: outcome.isError,
    status: outcome.status,
    ...(outcome.summary !== undefined && { summary: outcome.summary }),
    info,
    durationMs: Math.round(outcome.durationMs),
    ...(kept && { change: kept }),
  };
}

/** Counts identical calls in a row across the turn's steps. */
class RepeatWatch {
  #last = "";
  #count = 0;

  /** Adds the step's calls; true when one was made REPEAT_LIMIT times in a row. */
  add(calls: readonly ToolUseBlock[]): boolean {
    let hit = false;
    for (const call of calls) {
      const key = `${call.name} ${stableJson(call.input)}`;
      this.#count = key === this.#last ? this.#count + 1 : 1;
      this.#last = key;
      if (this.#count >= REPEAT_LIMIT) hit = true;
    }
    return hit;
  }
}

function compactionContext(ctx: LoopContext, maxTokens: number): CompactionContext {
  return {
    client: ctx.client,
    request: { ...ctx.request, maxTokens },
    contextWindow: ctx.contextWindow,
    conversation: ctx.conversation,
    meter: ctx.meter,
  };
}

/** How full the context is now and what the session cost so far (after a response or a compaction). */
function reportUsage(ctx: LoopContext): void {
  ctx.emit({ type: "usage", ...usageSnapshot(ctx.meter, ctx.conversation.chars, ctx.contextWindow) });
}

/** Compacts, the front end told as it begins and ends (compaction.ts), then the usage after it. */
async function compactAndReport(ctx: LoopContext, maxTokens: number, force: boolean): Promise<boolean> {
  const result = await compact(compactionContext(ctx, maxTokens), { force, signal: ctx.signal, emit: ctx.emit });
  if (result) reportUsage(ctx);
  return result !== undefined;
}

/** Runs the calls and records their results; on abort, records what finished and closes the rest. */
async function runCalls(ctx: LoopContext, calls: ToolUseBlock[]): Promise<void> {
  const done = new Map<string, CallOutcome>();
  // What each call was shown as, so one the stop closes keeps its title in the session file.
  const described = new Map<string, CallInfo>();
  const context: CallContext = {
    ...ctx.calls,
    emit: (event) => {
      if (event.type === "tool_call" && event.parentCallId === undefined) described.set(event.callId, event.info);
      ctx.calls.emit(event);
    },
  };
  try {
    const outcomes = await abortable(runToolCalls(ctx.registry, calls, context, done), ctx.signal);
    ctx.conversation.record({ type: "tool_results", results: outcomes.map(toRecorded) });
  } catch (error) {
    const known = new Map(
      [...done.values()]
        .filter((outcome) => !outcome.cancelled)
        .map((outcome) => [outcome.callId, toRecorded(outcome)] as const),
    );
    ctx.conversation.closeOpenToolCalls(known, described);
    throw error;
  }
}

export async function runLoop(ctx: LoopContext): Promise<LoopResult> {
  const { conversation, meter, limits, signal } = ctx;
  const repeats = new RepeatWatch();
  let maxTokens = Math.min(limits.maxOutputTokens, ctx.modelMaxTokens);
  let cutRetries = 0;
  let forceCompaction = false;
  let quietUntilChars = 0;
  const end = (stopReason: StopReason, cutOff = false): LoopResult => ({ stopReason, steps: ctx.stats.steps, cutOff });

  try {
    for (;;) {
      if (signal.aborted) return end("cancelled");
      if (meter.total >= limits.tokenBudget) return end("token_budget");
      if (ctx.stats.steps >= limits.maxSteps) return end("max_steps");
      // A model switched in the turn may take less.
      maxTokens = Math.min(maxTokens, ctx.modelMaxTokens);
      const compactionNeeded =
        forceCompaction ||
        (conversation.chars >= quietUntilChars && needsCompaction(compactionContext(ctx, maxTokens)));
      if (compactionNeeded) {
        const compacted = await compactAndReport(ctx, maxTokens, forceCompaction);
        if (forceCompaction && !compacted) {
          throw new ModelError(
            "The conversation no longer fits in the model's context window and compaction " +
              "could not make room. Start a new conversation.",
          );
        }
        forceCompaction = false;
        // No new compaction until a tenth of the window was added: one that could not get below
        // the mark (a large latest turn) must not ask for a summary at every step.
        quietUntilChars = conversation.chars + ctx.contextWindow * 0.1 * CHARS_PER_TOKEN;
      }

      const step = ++ctx.stats.steps;
      const response = await streamResponse(
        ctx.client,
        { ...ctx.request, messages: conversation.messages, maxTokens },
        signal,
        ctx.emit,
      );
      meter.spend(response.usage);
      const kept = sendable(response.content);
      conversation.record({
        type: "assistant",
        step,
        stopReason: response.stopReason,
        content: kept,
        usage: response.usage,
        // The ids the editor saw while it streamed, so a replay shows the same messages.
        messageIds: keptMessageIds(kept, response.streamed),
      });
      meter.observe(response.usage, conversation.chars);
      reportUsage(ctx);
      const calls = response.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
      const stepEnd = () => ctx.emit({ type: "step_end", step, usage: response.usage });

      if (response.stopReason === "max_tokens") {
        stepEnd();
        if (cutRetries >= CUT_RETRIES) {
          conversation.closeOpenToolCalls(cutResults(calls));
          return end("max_tokens", true);
        }
        // Cut off: the text stays, no call runs (it may be incomplete), the model hears why and gets more room.
        cutRetries++;
        maxTokens = ctx.modelMaxTokens;
        if (calls.length > 0) conversation.record({ type: "tool_results", results: [...cutResults(calls).values()] });
        else
          conversation.record({ type: "user", prompt: "", content: [noteBlock(CUT_CONTINUE_NOTE)], synthetic: true });
        continue;
      }
      if (response.stopReason === "refusal") {
        conversation.closeOpenToolCalls();
        stepEnd();
        return end("refusal");
      }
      if (response.stopReason === "model_context_window_exceeded") forceCompaction = true;
      if (calls.length === 0) {
        stepEnd();
        // A paused turn (server tools) or a context-window stop goes on from where it stopped.
        if (response.stopReason === "pause_turn" || response.stopReason === "model_context_window_exceeded") continue;
        // A message sent while the model answered is answered in the same turn.
        if (takeSteering(ctx)) continue;
        return end("done");
      }
      await runCalls(ctx, calls);
      stepEnd();
      const repeated = repeats.add(calls);
      // The user spoke after the calls ended: the model reads it with their results.
      if (takeSteering(ctx)) continue;
      if (repeated) return end("repeated_calls");
    }
  } catch (error) {
    // Whatever was pending when the signal aborted (the stream, a tool) ends as a cancel.
    if (signal.aborted) return end("cancelled");
    throw error;
  }
}

/**
 * Gives the model the messages the user sent while the turn ran: each one a user record of its
 * own (it joins the tool results' message), shown as it is given. False when none waited.
 */
function takeSteering(ctx: LoopContext): boolean {
  const messages = ctx.inbox?.take() ?? [];
  for (const message of messages) {
    const messageId = newMessageId();
    ctx.conversation.record({
      type: "user",
      prompt: message.text,
      content: [{ type: "text", text: message.text }],
      steering: true,
      ...(message.shown && { shown: [...message.shown] }),
      messageId,
    });
    ctx.emit({
      type: "steering",
      id: message.id,
      text: message.text,
      ...(message.shown && { shown: message.shown }),
      messageId,
    });
  }
  return messages.length > 0;
}

/** A thinking block cut off before its signature cannot be sent back; it is left out. */
function sendable(content: AssistantBlock[]): AssistantBlock[] {
  return content.filter((block) => block.type !== "thinking" || block.signature !== "");
}

function cutResults(calls: readonly ToolUseBlock[]): Map<string, RecordedResult> {
  return new Map(
    calls.map(
      (call) =>
        [
          call.id,
          {
            callId: call.id,
            tool: call.name,
            content: CUT_TOOL_OUTPUT,
            isError: true,
            status: "failed",
            synthetic: true,
          },
        ] as const,
    ),
  );
}
