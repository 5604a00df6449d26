// The hooks as the tool registry is given them (dependency injection): the registry runs pre
// and post around every call and shows the model their feedback, and knows nothing of how hooks
// are configured or run (src/extensions/hooks.ts builds the real ones).
import type { PermissionRequest } from "../permission/types.ts";
import type { ToolResult } from "./types.ts";

/** What a hook is asked about: the call's permission request (callId, title, target) and its input. */
export interface ToolHookCall {
  request: PermissionRequest;
  input: unknown;
}

/** preToolUse and postToolUse around every call. A hook can block a call, never approve one. */
export interface ToolHooks {
  /**
   * Runs after the tool's plan() and the tool_call event, before the permission check. `block` is the reason the model
   * reads.
   */
  pre(call: ToolHookCall, signal: AbortSignal): Promise<{ block?: string; warnings?: string[] }>;
  /** Runs after the tool. Each `feedback` entry is appended to the result for the model. */
  post(
    call: ToolHookCall,
    result: ToolResult,
    signal: AbortSignal,
  ): Promise<{ feedback?: string[]; warnings?: string[] }>;
}

/** The tool result with hook feedback after it, one block per hook. */
export function appendHookFeedback(result: string, feedback: readonly string[]): string {
  if (feedback.length === 0) return result;
  return [result, ...feedback.map((text) => `<hook_feedback>\n${text}\n</hook_feedback>`)].join("\n\n");
}
