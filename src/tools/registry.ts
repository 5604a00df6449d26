// The tool registry: the specs the model sees, and the pipeline every call goes through —
// lookup, input validation, the tool's plan(), the tool_call event, preToolUse hooks, the permission
// engine, the tool_start event, the tool's run() of that plan, postToolUse hooks, the tool_result event.
// run() never throws: every failure becomes a result the model can act on, and every tool_call
// gets one tool_result.
import { z } from "zod";
import { messageOf } from "../errors/caught.ts";
import { INVALID_TOOL_CALL, type InvalidToolCallInput, type ToolSpec, type ToolUseBlock } from "../model/types.ts";
import type { PermissionEngine } from "../permission/engine.ts";
import type { Approver, PermissionRequest } from "../permission/types.ts";
import type { Mode } from "../core-types/mode.ts";
import { userDenial } from "../permission/userDenial.ts";
import type { AgentEvent } from "../core-types/events.ts";
import type { Executor, SandboxSpec } from "../sandbox/types.ts";
import { type AuditSink, requestEvent } from "../store/auditEvents.ts";
import { unifiedDiff } from "./diff.ts";
import { projectGone, projectGoneForUser } from "./projectGone.ts";
import { appendHookFeedback, type ToolHooks } from "./toolHooks.ts";
import type { CallInfo } from "../core-types/callInfo.ts";
import type { SubagentResult, SubagentTask, Tool, ToolContext, ToolPlan, ToolResult } from "./types.ts";

export const CANCELLED_OUTPUT = "Cancelled by the user.";

export type ToolCall = Pick<ToolUseBlock, "id" | "name" | "input">;

/** What one call needs besides the call itself; the Runtime builds it per turn. */
export interface CallContext {
  root: string;
  home: string;
  mode: Mode;
  signal: AbortSignal;
  executor: Executor;
  sandbox: SandboxSpec | null;
  engine: Pick<PermissionEngine, "authorize" | "refusal">;
  approver?: Approver;
  /** A promise returned for tool_output holds the command's output (core-types/events.ts EventSink). */
  emit(event: AgentEvent): unknown;
  beforeWrite(paths: string[]): Promise<void>;
  hooks?: ToolHooks;
  audit?: AuditSink;
  /** Runs a subagent for a call (ToolContext.subagent); absent inside a subagent. */
  subagent?(task: SubagentTask, call: SubagentCall): Promise<SubagentResult>;
}

/** The call a subagent runs for. */
export interface SubagentCall {
  callId: string;
  /** The calling tool is read-only: its subagent gets read-only tools only. */
  readOnly: boolean;
}

export interface CallOutcome {
  callId: string;
  tool: string;
  status: "completed" | "failed" | "denied";
  /** What the model reads. */
  output: string;
  isError: boolean;
  summary?: string;
  info: CallInfo;
  durationMs: number;
  /** The turn was cancelled while this call ran. */
  cancelled: boolean;
}

function fallbackPreview(request: Omit<PermissionRequest, "callId" | "title" | "preview">, input: unknown): string {
  if (request.change) return unifiedDiff(request.change.path, request.change.oldText, request.change.newText).text;
  if (request.target.kind === "command") return request.target.command;
  if (request.target.kind === "url") return request.target.url;
  const json = JSON.stringify(input, null, 2) ?? "";
  return json.length > 4_000 ? `${json.slice(0, 4_000)}…` : json;
}

/** What the model reads for a call its client could not read (model/types.ts INVALID_TOOL_CALL). */
function invalidCallOutput(input: unknown, tools: readonly string[]): string {
  const { error, tool } = (typeof input === "object" && input !== null ? input : {}) as Partial<InvalidToolCallInput>;
  const what = typeof error === "string" && error !== "" ? error : "Your tool call could not be read.";
  const known = typeof tool === "string" && tools.includes(tool) ? "" : ` The tools are: ${tools.join(", ")}.`;
  return `Error: ${what}${known} Nothing was run.`;
}

/** JSON Schema for the model: zod's input schema, without the `$schema` line it sends no one. */
function inputSchema(tool: Tool): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.input, { io: "input" }) as Record<string, unknown>;
  return schema;
}

export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();
  readonly #names: readonly string[];
  #specs: readonly ToolSpec[] | undefined;

  constructor(tools: readonly Tool[]) {
    for (const tool of tools) {
      if (this.#tools.has(tool.name)) throw new Error(`Two tools are named "${tool.name}".`);
      this.#tools.set(tool.name, tool as Tool);
    }
    this.#names = Object.freeze([...this.#tools.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /**
   * The tools for the model, sorted by name; the same array for the registry's whole life (the
   * same bytes in every request of the session, for prompt caching). Made at the first call, not
   * with the registry: zod's JSON Schemas of ~20 tools are a few ms that session/new need not wait for.
   */
  specs(): readonly ToolSpec[] {
    this.#specs ??= Object.freeze(
      this.#names.map((name) => {
        const tool = this.#tools.get(name) as Tool;
        return Object.freeze({ name: tool.name, description: tool.description, inputSchema: inputSchema(tool) });
      }),
    );
    return this.#specs;
  }

  names(): string[] {
    return [...this.#names];
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** Read-only calls of one step may run together. An unknown tool fails at once, so it counts as one. */
  isReadOnly(name: string): boolean {
    return this.#tools.get(name)?.readOnly ?? true;
  }

  async run(call: ToolCall, ctx: CallContext): Promise<CallOutcome> {
    const started = performance.now();
    const tool = this.#tools.get(call.name);
    const fallbackInfo: CallInfo = {
      title: call.name === INVALID_TOOL_CALL ? "A tool call that could not be read" : call.name,
      kind: "other",
      locations: [],
    };
    const finish = (
      info: CallInfo,
      status: CallOutcome["status"],
      output: string,
      summary?: string,
      exit?: ToolResult["exit"],
    ): CallOutcome => {
      const cancelled = ctx.signal.aborted;
      const outcome: CallOutcome = {
        callId: call.id,
        tool: call.name,
        status,
        output,
        isError: status !== "completed",
        ...(summary !== undefined && { summary }),
        info,
        durationMs: performance.now() - started,
        cancelled,
      };
      ctx.emit({
        type: "tool_result",
        callId: call.id,
        status,
        output,
        ...(summary !== undefined && { summary }),
        ...(exit && { exit }),
      });
      ctx.audit?.record({
        type: "tool_result",
        callId: call.id,
        tool: call.name,
        readOnly: tool?.readOnly ?? true,
        ok: status === "completed",
        ...(summary !== undefined && { summary }),
      });
      return outcome;
    };

    if (!tool) {
      ctx.emit({ type: "tool_call", callId: call.id, tool: call.name, input: call.input, info: fallbackInfo });
      if (call.name === INVALID_TOOL_CALL)
        return finish(fallbackInfo, "failed", invalidCallOutput(call.input, this.names()));
      return finish(
        fallbackInfo,
        "failed",
        `Error: there is no tool named "${call.name}". The tools are: ${this.names().join(", ")}.`,
      );
    }
    const parsed = tool.input.safeParse(call.input);
    if (!parsed.success) {
      ctx.emit({ type: "tool_call", callId: call.id, tool: call.name, input: call.input, info: fallbackInfo });
      const problems = z.prettifyError(parsed.error);
      return finish(
        fallbackInfo,
        "failed",
        `Error: the input of ${call.name} is not valid:\n${problems}\nFix the input and call ${call.name} again.`,
      );
    }
    const input = parsed.data;
    let plan: ToolPlan;
    let request: PermissionRequest;
    try {
      plan = tool.plan(input, { root: ctx.root, home: ctx.home, sandbox: ctx.sandbox, executor: ctx.executor });
      const asked = plan.permission;
      const change = asked.change ?? plan.info.change;
      request = {
        ...asked,
        ...(change && { change }),
        callId: call.id,
        title: asked.title ?? plan.info.title,
        preview: asked.preview !== "" ? asked.preview : fallbackPreview({ ...asked, ...(change && { change }) }, input),
      };
    } catch (error) {
      ctx.emit({ type: "tool_call", callId: call.id, tool: call.name, input: call.input, info: fallbackInfo });
      return finish(fallbackInfo, "failed", `Error: ${call.name} failed: ${messageOf(error)}`);
    }
    const { info, cannotRun } = plan;
    // The input as the model sent it (what a replay of the session shows too).
    ctx.emit({ type: "tool_call", callId: call.id, tool: call.name, input: call.input, info });
    ctx.audit?.record(requestEvent(request));
    const gone = projectGone(ctx.root);
    if (gone !== undefined) return finish(info, "failed", `Error: ${gone}`, projectGoneForUser(ctx.root));
    // A call sure to fail is not put to the user: the model gets the error it would get anyway,
    // unless a rule refuses it (then the refusal, so a hidden file's state is not told).
    if (cannotRun !== undefined) {
      const refused = ctx.engine.refusal(request, ctx.mode);
      return refused !== undefined
        ? finish(info, "denied", `Permission denied: ${refused}`)
        : finish(info, "failed", cannotRun);
    }

    const warn = (warnings: string[] | undefined) => {
      for (const text of warnings ?? []) ctx.emit({ type: "notice", level: "warning", text });
    };
    const hookCall = { request, input };
    if (ctx.hooks) {
      const pre = await ctx.hooks.pre(hookCall, ctx.signal).catch((error: unknown) => ({
        block: `A hook that checks this call failed (${messageOf(error)}), so the call was blocked.`,
        warnings: [] as string[],
      }));
      warn(pre.warnings);
      if (ctx.signal.aborted) return finish(info, "failed", CANCELLED_OUTPUT);
      if (pre.block !== undefined) return finish(info, "denied", pre.block);
    }

    const decision = await ctx.engine.authorize(request, {
      mode: ctx.mode,
      ...(ctx.approver && { approver: ctx.approver }),
      signal: ctx.signal,
    });
    if (ctx.signal.aborted) return finish(info, "failed", CANCELLED_OUTPUT);
    if (decision.outcome !== "allow") {
      const reason = decision.outcome === "deny" ? decision.reason : "The call needs an approval that was not given.";
      // The model reads the reason; the user's screen gets a sentence of its own where there is one.
      const forUser = decision.outcome === "deny" ? userDenial(decision) : undefined;
      return finish(info, "denied", `Permission denied: ${reason}`, forUser);
    }

    const partial = decision.partial;
    const subagent = ctx.subagent?.bind(ctx);
    const toolCtx: ToolContext = {
      root: ctx.root,
      home: ctx.home,
      callId: call.id,
      mode: ctx.mode,
      signal: ctx.signal,
      executor: ctx.executor,
      sandbox: ctx.sandbox,
      authorize: (extra) =>
        ctx.engine.authorize(extra, {
          mode: ctx.mode,
          ...(ctx.approver && { approver: ctx.approver }),
          signal: ctx.signal,
        }),
      progress: (text) => ctx.emit({ type: "tool_progress", callId: call.id, text }),
      output: (data) => {
        const held = ctx.emit({ type: "tool_output", callId: call.id, data });
        return held instanceof Promise ? (held as Promise<void>) : undefined;
      },
      beforeWrite: (paths) => ctx.beforeWrite(paths),
      ...(partial && { partial }),
      ...(subagent && {
        subagent: (task: SubagentTask) => subagent(task, { callId: call.id, readOnly: tool.readOnly }),
      }),
    };
    ctx.emit({ type: "tool_start", callId: call.id });
    let result: ToolResult;
    try {
      result = await tool.run(plan, toolCtx);
    } catch (error) {
      if (ctx.signal.aborted) return finish(info, "failed", CANCELLED_OUTPUT);
      result = { output: `Error: ${call.name} failed: ${messageOf(error)}`, isError: true };
    }
    if (ctx.signal.aborted)
      return finish(
        info,
        "failed",
        result.output ? `${result.output}\n\n${CANCELLED_OUTPUT}` : CANCELLED_OUTPUT,
        result.summary,
        result.exit,
      );

    // The model hears which hunks the user left out.
    let output = partial && !result.isError ? `${result.output}\n\n${partial.note}` : result.output;
    if (ctx.hooks) {
      const post = await ctx.hooks.post(hookCall, result, ctx.signal).catch((error: unknown) => ({
        feedback: [] as string[],
        warnings: [`A postToolUse hook failed: ${messageOf(error)}`],
      }));
      warn(post.warnings);
      output = appendHookFeedback(output, post.feedback ?? []);
    }
    return finish(info, result.isError ? "failed" : "completed", output, result.summary, result.exit);
  }
}
