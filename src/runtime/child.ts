// A subagent run: a child loop for one tool call of the parent, with its own system prompt,
// conversation (kept in memory only), tools, step limit and token budget, and the parent's model,
// permission engine, approver and signal. The child's tool calls go out as the parent's events
// with parentCallId = the calling tool's call id; its text does not (it becomes the tool's
// result; "subagent" events carry it, with the child's start and end, for a front end that shows
// the child as a session of its own). Every token it uses is added to the parent's meter as it
// is reported.
import type { ModelClient, ModelEvent, ModelRequest } from "../model/types.ts";
import type { Usage } from "../core-types/usage.ts";
import type { Approver } from "../permission/types.ts";
import { type CallContext, type SubagentCall, ToolRegistry } from "../tools/registry.ts";
import type { SubagentResult, SubagentTask, Tool } from "../tools/types.ts";
import { ASK_USER_TOOL } from "../tools/askUser.ts";
import { Conversation } from "./conversation.ts";
import type { AgentEvent, StopReason } from "../core-types/events.ts";
import { type Limits, runLoop } from "./loop.ts";
import { budgetTokens, UsageMeter } from "./meter.ts";
import { streamResponse } from "./modelStep.ts";
import { noteBlock } from "./notes.ts";

const CHILD_MAX_STEPS = 20;
const CHILD_STEPS_CAP = 200;
const CHILD_TOKEN_BUDGET = 150_000;
/** Share of the child's budget its loop leaves for the wrap-up request. */
const WRAP_UP_SHARE = 0.1;
/** Stops after which the child gets one more request, without tool use, to answer. */
const WRAP_UP_AFTER: ReadonlySet<StopReason> = new Set(["max_steps", "token_budget", "repeated_calls"]);

/** What a child takes from the parent session. */
export interface ChildHost {
  client: ModelClient;
  /** The session's request settings the child shares (model, thinking); not its system prompt, tools or web search. */
  request: Pick<ModelRequest, "model" | "thinking">;
  contextWindow: number;
  modelMaxTokens: number;
  /** The session's limits (the team policy's caps included). */
  limits: Limits;
  /** Tokens left of the session's budget, now. */
  tokensLeft(): number;
  /** Adds a response's usage to the session's meter. */
  spend(usage: Usage): void;
  /** A tool of the session, by name. */
  tool(name: string): Tool | undefined;
  /** The names of the session's tools now (MCP tools included once their servers run). */
  toolNames(): readonly string[];
  /** The parent turn's call context (signal, engine, approver, emit …). */
  calls: CallContext;
}

/** The client, reporting each response's usage as it ends (loop steps, compaction, wrap-up alike). */
function metered(client: ModelClient, onUsage: (usage: Usage) => void): ModelClient {
  return {
    stream(request, signal) {
      const inner = client.stream(request, signal);
      return (async function* (): AsyncGenerator<ModelEvent> {
        for await (const event of inner) {
          if (event.type === "message_end") onUsage(event.usage);
          yield event;
        }
      })();
    },
  };
}

/** The task's tools the session has (a trailing `*` takes every name it starts), and the names it does not. */
function childTools(host: ChildHost, task: SubagentTask, call: SubagentCall): { tools: Tool[]; missing: string[] } {
  const tools = new Map<string, Tool>();
  const missing: string[] = [];
  for (const wanted of task.tools) {
    const names = wanted.endsWith("*")
      ? host.toolNames().filter((name) => name.startsWith(wanted.slice(0, -1)))
      : [wanted];
    const found = names.flatMap((name) => {
      const tool = host.tool(name);
      return tool ? [tool] : [];
    });
    if (found.length === 0) missing.push(wanted);
    // The user is asked only by the session itself, never by a subagent whose calls they do not see as their own.
    for (const tool of found)
      if ((!call.readOnly || tool.readOnly) && tool.name !== ASK_USER_TOOL) tools.set(tool.name, tool);
  }
  return { tools: [...tools.values()], missing };
}

/** The child's events as the parent's: its calls inside the calling one, its text kept back. */
function forward(parent: CallContext, callId: string, counter: { calls: number }): (event: AgentEvent) => void {
  return (event) => {
    switch (event.type) {
      case "tool_call":
        counter.calls++;
        parent.emit({ ...event, parentCallId: callId });
        parent.emit({ type: "tool_progress", callId, text: event.info.title });
        return;
      case "tool_start":
      case "tool_progress":
      case "tool_result":
        parent.emit({ ...event, parentCallId: callId });
        return;
      case "tool_output":
        return parent.emit({ ...event, parentCallId: callId });
      case "notice":
        parent.emit(event);
        return;
      case "model_retry":
        parent.emit({
          type: "tool_progress",
          callId,
          text: `The model's answer broke off (${event.reason}); trying again (attempt ${event.attempt}).`,
        });
        return;
      case "text_delta":
      case "thinking_delta":
        // Not the parent's text: a front end that shows the child as a session of its own shows it there.
        if (event.text !== "")
          parent.emit({
            type: "subagent",
            callId,
            phase: event.type === "text_delta" ? "text" : "thinking",
            text: event.text,
          });
        return;
      default:
        // step_end, compaction, server tools: the child's own business.
        return;
    }
  };
}

/** The parent's approver, marking each question as one from inside the subagent. */
function childApprover(approver: Approver | undefined, callId: string): Approver | undefined {
  if (!approver) return undefined;
  return { ask: (request, signal) => approver.ask({ ...request, parentCallId: callId }, signal) };
}

function lastText(conversation: Conversation): string {
  const last = conversation.messages.at(-1);
  if (last?.role !== "assistant") return "";
  return last.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n")
    .trim();
}

/**
 * Runs `task` as a child of the call `call`. Resolves with the child's answer and counts; a model
 * error rejects (the tokens used until then are already counted). An aborted signal ends it at
 * once with stopReason "cancelled". Its start, text, thinking and end also go to the parent as
 * "subagent" events (a front end may show the child as a session of its own).
 */
export async function runChild(host: ChildHost, task: SubagentTask, call: SubagentCall): Promise<SubagentResult> {
  const parent = host.calls;
  parent.emit({ type: "subagent", callId: call.callId, phase: "started", name: task.name, prompt: task.prompt });
  let outcome: "completed" | "failed" | "cancelled" = "failed";
  try {
    const result = await runChildLoop(host, task, call);
    outcome = result.stopReason === "cancelled" ? "cancelled" : "completed";
    return result;
  } finally {
    if (parent.signal.aborted) outcome = "cancelled";
    parent.emit({ type: "subagent", callId: call.callId, phase: "ended", outcome });
  }
}

async function runChildLoop(host: ChildHost, task: SubagentTask, call: SubagentCall): Promise<SubagentResult> {
  const parent = host.calls;
  const signal = parent.signal;
  const counter = { calls: 0 };
  let tokens = 0;
  const client = metered(host.client, (usage) => {
    tokens += budgetTokens(usage);
    host.spend(usage);
  });
  const result = (stopReason: StopReason, answer: string, steps: number, wrappedUp = false): SubagentResult => ({
    answer,
    stopReason,
    wrappedUp,
    steps,
    calls: counter.calls,
    tokens,
  });

  const budget = Math.min(task.tokenBudget ?? CHILD_TOKEN_BUDGET, host.tokensLeft());
  if (budget <= 0) return result("token_budget", "", 0);
  const maxSteps = Math.max(1, Math.min(task.maxSteps ?? CHILD_MAX_STEPS, CHILD_STEPS_CAP, host.limits.maxSteps));
  const given = childTools(host, task, call);
  if (given.missing.length > 0) {
    parent.emit({
      type: "notice",
      level: "warning",
      text:
        `"${task.name}" lists ${given.missing.map((name) => `"${name}"`).join(", ")}, ` +
        `which this session does not have (an MCP server that is not running?); it runs ` +
        `without ${given.missing.length === 1 ? "it" : "them"}.`,
    });
  }
  const registry = new ToolRegistry(given.tools);
  const system = task.systemFor ? task.systemFor(registry.names()) : task.system;
  const request = { ...host.request, system, tools: registry.specs() as ModelRequest["tools"] };
  const conversation = new Conversation();
  const meter = new UsageMeter(system.length + JSON.stringify(request.tools).length);
  const emit = forward(parent, call.callId, counter);
  const approver = childApprover(parent.approver, call.callId);
  // No subagent capability in the child: subagents do not nest.
  const { subagent: _nested, approver: _approver, emit: _emit, ...shared } = parent;
  const calls: CallContext = { ...shared, emit, ...(approver && { approver }) };
  const limits: Limits = {
    maxSteps,
    tokenBudget: Math.max(1, Math.floor(budget * (1 - WRAP_UP_SHARE))),
    maxOutputTokens: host.limits.maxOutputTokens,
  };

  conversation.record({ type: "user", prompt: task.prompt, content: [{ type: "text", text: task.prompt }] });
  const stats = { steps: 0 };
  const loop = await runLoop({
    client,
    request,
    contextWindow: host.contextWindow,
    modelMaxTokens: host.modelMaxTokens,
    limits,
    conversation,
    meter,
    registry,
    calls,
    emit,
    signal,
    stats,
  });
  if (signal.aborted) return result("cancelled", "", loop.steps);
  if (!WRAP_UP_AFTER.has(loop.stopReason)) return result(loop.stopReason, lastText(conversation), loop.steps);
  // One wrap-up request, if the budget still has room: the same tools are sent (a conversation
  // with tool calls needs them, and the cached prefix stays the same), but any call is ignored.
  if (meter.total >= budget || host.tokensLeft() <= 0)
    return result(loop.stopReason, lastText(conversation), loop.steps);
  conversation.record({ type: "user", prompt: "", content: [noteBlock(task.wrapUp)], synthetic: true });
  const maxTokens = Math.min(host.limits.maxOutputTokens, host.modelMaxTokens);
  const response = await streamResponse(
    client,
    { ...request, messages: conversation.messages, maxTokens },
    signal,
    emit,
  );
  meter.spend(response.usage);
  const answer = response.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n")
    .trim();
  return result(loop.stopReason, answer, loop.steps + 1, true);
}
