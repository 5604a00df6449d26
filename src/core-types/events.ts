// What a Runtime tells its front end while a turn runs. Every event of a tool call carries
// the call's id; the ACP front end maps each of these to a session/update.
import type { Usage } from "./usage.ts";
import type { Mode } from "./mode.ts";
import type { CallInfo } from "./callInfo.ts";
import type { PromptBlock } from "./promptBlock.ts";

/** Why a turn ended. An aborted signal ends the turn as "cancelled". */
export type StopReason =
  | "done"
  | "max_tokens"
  | "refusal"
  | "max_steps"
  | "token_budget"
  | "repeated_calls"
  | "cancelled";

/**
 * Order, for every tool call: its tool_call event comes before any question about that call
 * (the approval the permission engine puts to the user, a consent or further approval the tool
 * asks for while it runs) and before its tool_start, tool_progress, tool_output and
 * tool_result; a call that fails before it runs still has its tool_call, then its tool_result.
 * So a front end always knows a call before it is asked about it (ACP: a
 * session/request_permission names a toolCallId the editor has already been sent).
 */
export type AgentEvent =
  /**
   * `messageId`: the message the text belongs to (store/messageIds.ts), the same for every delta
   * of one message; absent only where a message has no id (a subagent's answer).
   */
  | { type: "text_delta"; text: string; messageId?: string }
  | { type: "thinking_delta"; text: string; messageId?: string }
  | {
      type: "tool_call";
      callId: string;
      tool: string;
      input: unknown;
      info: CallInfo;
      /** Set for a call made inside a subagent: the subagent's own call id. */
      parentCallId?: string;
    }
  /**
   * The call was allowed (asked and answered, or no question needed) and its tool runs now. Live
   * only: a replayed session gives each call with its result.
   */
  | { type: "tool_start"; callId: string; parentCallId?: string }
  | { type: "tool_progress"; callId: string; text: string; parentCallId?: string }
  /**
   * What a command prints, every chunk as it arrives and nothing left out (tool_progress is the
   * latest lines only). Raw: front ends clean it for display. Live only, like tool_start.
   */
  | { type: "tool_output"; callId: string; data: string; parentCallId?: string }
  | {
      type: "tool_result";
      callId: string;
      /** completed, failed (error or cancelled), or denied by the permission engine or a hook. */
      status: "completed" | "failed" | "denied";
      output: string;
      summary?: string;
      /** How the call's command ended (bash, a process that exited), when it ran one. */
      exit?: CommandExit;
      parentCallId?: string;
    }
  /**
   * A tool the provider runs itself (Claude's web search): started, with what it is about
   * (model/serverTools.ts serverToolInfo), then its result, with one line that sums it up.
   */
  | { type: "server_tool"; callId: string; name: string; input: unknown; status: "started"; info: CallInfo }
  | {
      type: "server_tool";
      callId: string;
      name: string;
      input: unknown;
      status: "completed";
      result?: unknown;
      summary: string;
    }
  /**
   * refusedCommand: the prompt's /command did not run (a consent refused, an argument missing): nothing was sent to the
   * model.
   */
  /** refusedPrompt: the prompt was too large for the model's context window: nothing was sent. */
  | { type: "notice"; level: "info" | "warning"; text: string; refusedCommand?: string; refusedPrompt?: true }
  /** A compaction began (automatic, or /compact); `id` names it in the event that ends it. Live only. */
  | { type: "compaction_started"; id: string }
  /**
   * A compaction ended and the conversation is smaller: `pruned` long tool results were cut
   * (stage 1), `summary` now stands for the older messages (stage 2). `id` as in compaction_started.
   */
  | { type: "compaction"; beforeTokens: number; afterTokens: number; id?: string; pruned?: number; summary?: string }
  /**
   * A compaction that began did not end: it failed (`error`) or was stopped; the conversation is as it was. Live only.
   */
  | { type: "compaction_failed"; id: string; error: string; cancelled: boolean }
  /** partial: some of the failed attempt's text or thinking was already streamed (and is now void). */
  | { type: "model_retry"; attempt: number; delayMs: number; reason: string; partial: boolean }
  | { type: "step_end"; step: number; usage: Usage }
  /** The session's title, set at its first prompt (one visible line, kept in the session file). */
  | { type: "title"; title: string }
  /** After every model response and compaction: how full the context is, and the session's cost. */
  | ({ type: "usage" } & UsageSnapshot)
  /** The plan (the todo tool's list) changed: the whole plan. */
  | { type: "plan"; items: readonly PlanItem[] }
  /**
   * A message the user sent while the turn ran was given to the model now, between two steps
   * (after the running tool calls ended): `text` as the model got it, `shown` as the user sent it
   * (an editor's blocks), `id` as Runtime.steer() returned it, `messageId`
   * the id of the user message it is (store/messageIds.ts).
   */
  | { type: "steering"; id: number; text: string; shown?: readonly PromptBlock[]; messageId?: string }
  | SubagentEvent;

/**
 * A subagent's run as a conversation of its own (runtime/child.ts), beside its calls (which come as
 * the parent's events with parentCallId): its start, its text and thinking as they stream, its end.
 * A front end that shows a subagent as a session of its own (ACP child sessions,
 * acp/subagentUpdates.ts) uses these; the others ignore them. Live only.
 */
export type SubagentEvent =
  | { type: "subagent"; callId: string; phase: "started"; name: string; prompt: string }
  | { type: "subagent"; callId: string; phase: "text" | "thinking"; text: string }
  | { type: "subagent"; callId: string; phase: "ended"; outcome: "completed" | "failed" | "cancelled" };

/**
 * Where a turn's events go. A promise returned for a tool_output event holds the command's output
 * until it settles (a front end whose editor reads slower than the command prints); whatever else
 * it returns is ignored.
 */
export type EventSink = (event: AgentEvent) => unknown;

export interface CommandExit {
  /** null when a signal ended it (or it was stopped). */
  code: number | null;
  signal: string | null;
}

export interface UsageSnapshot {
  /** Tokens in the context now (the last response's report, plus an estimate of what came since). */
  used: number;
  /** The model's context window. */
  size: number;
  /** The session's cost so far in US dollars; absent when a model of the session has no price. */
  cost?: number;
}

/** One step of the plan the model keeps (the todo tool's list). */
export interface PlanItem {
  content: string;
  status: "pending" | "in_progress" | "completed";
}

/**
 * Which model the session uses, as a control event names it: the part of model/catalog.ts
 * ModelInfo a front end shows (the Runtime passes the whole ModelInfo, which has these fields).
 */
export interface ModelSummary {
  /** Garuda's name for it: a bare Claude id or `<provider>/<model>`. */
  spec: string;
  provider: string;
  contextWindow: number;
  label?: string;
}

/**
 * A change of the session's controls outside the turn's event stream (Runtime.watch): the mode,
 * the model or the effort set through the Runtime's API or a built-in command, or the usage after
 * a switch or a /compact. Each front end shows it its own way.
 */
export type ControlEvent =
  | { type: "mode"; mode: Mode }
  | { type: "model"; model: ModelSummary }
  | { type: "effort"; effort: string | undefined }
  | ({ type: "usage" } & UsageSnapshot);
