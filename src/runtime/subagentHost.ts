// What a subagent (the task tool, a custom agent) runs with. It shares the session's model, its
// tools, the engine, the approver and the turn's signal, and its responses count toward the
// session's token budget; it does not get the subagent capability itself (no nesting). A custom
// agent that names another model runs on that one (childModels.ts).
import type { CallContext, ToolRegistry } from "../tools/registry.ts";
import { type ChildHost, runChild } from "./child.ts";
import type { ChildModels } from "./childModels.ts";
import type { Limits } from "./loop.ts";
import type { UsageMeter } from "./meter.ts";
import type { SessionControls } from "./sessionControls.ts";

export interface SubagentSession {
  controls: SessionControls;
  limits: Limits;
  meter: UsageMeter;
  /** The session's tools now: the registry changes when extensions add tools. */
  registry: () => ToolRegistry;
  childModels: ChildModels;
}

/** `calls` with the subagent capability, on the model in use when the turn began. */
export function withSubagents(calls: CallContext, session: SubagentSession): CallContext {
  const { controls, limits, meter } = session;
  const { model, thinking } = controls.request();
  const active = controls.model;
  const host: ChildHost = {
    client: active.client,
    request: { model, ...(thinking !== undefined && { thinking }) },
    contextWindow: active.info.contextWindow,
    modelMaxTokens: active.info.maxTokens,
    limits,
    tokensLeft: () => limits.tokenBudget - meter.total,
    spend: (usage) => meter.spend(usage, active.info.price),
    tool: (name) => session.registry().get(name),
    toolNames: () => session.registry().names(),
    calls,
  };
  return {
    ...calls,
    subagent: async (task, call) =>
      runChild(
        task.model ? await session.childModels.hostFor(host, controls.model.info, task.name, task.model) : host,
        task,
        call,
      ),
  };
}
