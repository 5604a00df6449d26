// The models subagents ask for (a custom agent's `model`): each opened once per session and spec,
// under the same rules as the session's own (modelFor: the team policy, a provider and a key); a
// failed opening is not kept, so fixing the key or the policy works without a new session.
import { messageOf } from "../errors/caught.ts";
import type { ModelInfo, Price } from "../model/catalog.ts";
import type { Usage } from "../core-types/usage.ts";
import type { ChildHost } from "./child.ts";
import type { ModelClient } from "../model/types.ts";

/** A model a subagent runs on instead of the session's. */
export interface SubagentModel {
  client: ModelClient;
  info: ModelInfo;
}

export class ChildModels {
  readonly #opening = new Map<string, Promise<SubagentModel>>();

  constructor(
    private readonly modelFor: ((spec: string) => Promise<SubagentModel>) | undefined,
    /** Counts a child's response toward the session, at its model's price. */
    private readonly spend: (usage: Usage, price: Price | null) => void,
  ) {}

  /** The child host on the model `spec` names; the session's host when it is the model in use (`current`). */
  async hostFor(host: ChildHost, current: ModelInfo, agent: string, spec: string): Promise<ChildHost> {
    const modelFor = this.modelFor;
    if (!modelFor || spec === current.spec) return host;
    let opening = this.#opening.get(spec);
    if (!opening) {
      opening = modelFor(spec);
      this.#opening.set(spec, opening);
      opening.catch(() => this.#opening.delete(spec));
    }
    let model: SubagentModel;
    try {
      model = await opening;
    } catch (error) {
      const reason = messageOf(error);
      throw new Error(
        `the agent "${agent}" asks for the model ${spec}, which cannot be used here: ` +
          `${reason} Remove \`model:\` from the agent's file (it then runs on the ` +
          `session's model) or fix that.`,
      );
    }
    if (model.info.spec === current.spec) return host;
    const thinking = model.info.thinking === "adaptive" ? "adaptive" : undefined;
    return {
      ...host,
      spend: (usage) => this.spend(usage, model.info.price),
      client: model.client,
      request: { model: model.info.id, ...(thinking !== undefined && { thinking }) },
      contextWindow: model.info.contextWindow,
      modelMaxTokens: model.info.maxTokens,
    };
  }
}
