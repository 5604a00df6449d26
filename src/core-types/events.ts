// What a Runtime tells its front end while a turn runs. Every event of a tool call carries
// the call's id; the ACP front end maps each of these to a session/update.
import type { Usage } from "../model/types.ts";
import type { CallInfo } from "./callInfo.ts";

/** Why a turn ended. An aborted signal ends the turn as "cancelled". */
export type StopReason = "done" | "max_tokens" | "refusal" | "max_steps" | "token_budget" | "repeated_calls" | "cancelled";

export type AgentEvent =
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; text: string }
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
  | {
      type: "tool_result";
      callId: string;
      /** completed, failed (error or cancelled), or denied by the permission engine or a hook. */
      status: "completed" | "failed" | "denied";
      output: string;
      summary?: string;
      parentCallId?: string;
    }
  /** A tool the provider runs itself (Claude's web search): started, then its result. */
  | { type: "server_tool"; callId: string; name: string; input: unknown; status: "started" | "completed"; result?: unknown }
  /** refusedCommand: the prompt's /command did not run (a consent refused, an argument missing): nothing was sent to the model. */
  | { type: "notice"; level: "info" | "warning"; text: string; refusedCommand?: string }
  | { type: "compaction"; beforeTokens: number; afterTokens: number }
  /** partial: some of the failed attempt's text or thinking was already streamed (and is now void). */
  | { type: "model_retry"; attempt: number; delayMs: number; reason: string; partial: boolean }
  | { type: "step_end"; step: number; usage: Usage }
  /** The session's title, set at its first prompt (one visible line, kept in the session file). */
  | { type: "title"; title: string };
