// The tool contract. One file per tool under src/tools/, each with its model-facing
// description beside it. A call is planned once (plan: what it is about, what the engine
// checks) and then run from that plan; the registry runs every call through hooks, the
// permission engine and the tool itself, and reports each step as AgentEvents carrying the
// call's id.
import type { z } from "zod";
import type { CallInfo } from "../core-types/callInfo.ts";
import type { CommandExit, StopReason } from "../core-types/events.ts";
import type { Decision, PartialApproval, PermissionRequest } from "../permission/types.ts";
import type { Mode } from "../core-types/mode.ts";
import type { Executor, SandboxSpec } from "../sandbox/types.ts";

export interface ToolResult {
  /** What the model reads. Errors say what to do next. */
  output: string;
  isError?: boolean;
  /** One short line for a front end (e.g. "12 matches in 4 files"). */
  summary?: string;
  /** How the command the call ran ended (bash; a process that exited while process_manager waited). */
  exit?: CommandExit;
}

/** Everything a tool may use; nothing is ambient. */
export interface ToolContext {
  /** The project root, absolute and real. */
  root: string;
  home: string;
  callId: string;
  mode: Mode;
  signal: AbortSignal;
  executor: Executor;
  /** The sandbox commands run in (already set for the mode: plan = project read-only). */
  sandbox: SandboxSpec | null;
  /** Asks the permission engine (and, through it, the user) about something beyond the call itself. */
  authorize(request: PermissionRequest): Promise<Decision>;
  /** A progress line for the front end (tool_progress). */
  progress(text: string): void;
  /**
   * A chunk of the call's command output, as it arrives, for a front end that streams it
   * (tool_output). A promise says to wait before reading more of the command's output.
   */
  output?(data: string): Promise<void> | undefined;
  /** Takes an undo snapshot of these absolute paths before a write. */
  beforeWrite(paths: string[]): Promise<void>;
  /** The user allowed only part of this call's file change (hunk review): write_file and edit_file write that text. */
  partial?: PartialApproval;
  /**
   * Runs a subagent for this call (the Runtime provides it; absent inside a subagent, so there is
   * no nesting). Its tool calls are reported inside this call; its usage counts toward the session.
   */
  subagent?(task: SubagentTask): Promise<SubagentResult>;
}

/** A subagent's job: its own system prompt, task and tools, with its own limits. */
export interface SubagentTask {
  /** e.g. "explore", for messages. */
  name: string;
  system: string;
  /** The system prompt for the tools the child really gets (e.g. to name them); `system` when absent. */
  systemFor?: (tools: readonly string[]) => string;
  /** The child's first (and only) user message. */
  prompt: string;
  /**
   * Tool names, taken from the session's tools (same instances, same permission engine); a name
   * ending in `*` takes every tool it starts (`mcp__github__*`). A read-only calling tool gets only
   * the read-only ones. A name the session does not have is left out, with a notice.
   */
  tools: readonly string[];
  /** Model responses; default 20, at most 200 and never above the session's step limit. */
  maxSteps?: number;
  /** Tokens; default 150,000, never above what is left of the session's budget. */
  tokenBudget?: number;
  /** Sent (as a note) in the one request without tool use that follows a step, token or repeat stop. */
  wrapUp: string;
  /** Another model for the child (a spec or a family name like "haiku"); default: the session's. */
  model?: string;
}

export interface SubagentResult {
  /** The child's final text; "" when it gave none. */
  answer: string;
  /** How the child's own loop ended (max_steps, token_budget, repeated_calls: before the wrap-up). */
  stopReason: StopReason;
  /** The answer came from the wrap-up request. */
  wrappedUp: boolean;
  /** Model requests made, the wrap-up included. */
  steps: number;
  /** Tool calls the child made. */
  calls: number;
  /** Tokens counted toward the budget (also added to the session's). */
  tokens: number;
}

/** What plan() may read: the call's place and sandbox, nothing of the turn (no signal, no approver). */
export type PlanContext = Pick<ToolContext, "root" | "home" | "sandbox" | "executor">;

/**
 * What the permission engine checks before run(); the registry fills callId, title (from info when absent) and an empty
 * preview.
 */
export type ToolPermission = Omit<PermissionRequest, "callId" | "title"> & { title?: string };

/**
 * One call, resolved once (a path with its symlinks, a command with its `cd` stripped and its
 * sandbox chosen): what front ends show, what the engine checks, and what run() uses, so the
 * three cannot disagree. A tool that keeps more for run() adds it as `state` (PlanWithState).
 */
export interface ToolPlan<Input = unknown> {
  /** The input as the schema parsed it. */
  input: Input;
  info: CallInfo;
  permission: ToolPermission;
  /**
   * The call is sure to fail (an edit whose old text is not in the file): the registry then asks
   * no one and gives the model this error, unless a rule refuses the call.
   */
  cannotRun?: string;
}

/** A plan with the tool's own part: what plan() computed for run() (a resolved path, the sandbox). */
export type PlanWithState<Input, State> = ToolPlan<Input> & { state: State };

export interface Tool<Input = unknown, Plan extends ToolPlan<Input> = ToolPlan<Input>> {
  name: string;
  /** Model-facing: what it does and how to use it well. */
  description: string;
  input: z.ZodType<Input>;
  /** Read-only calls of one step run in parallel and need no approval. */
  readOnly: boolean;
  /**
   * The call's one planning step, before its tool_call event: its display info, its permission
   * request and whatever run() needs from that. It may throw (the registry reports "<tool>
   * failed"); a call that cannot succeed says so in `cannotRun` instead.
   */
  plan(input: Input, ctx: PlanContext): Plan;
  /** Runs the plan the engine allowed. What may have changed since (a file re-pointed) is checked here. */
  run(plan: Plan, ctx: ToolContext): Promise<ToolResult>;
}
