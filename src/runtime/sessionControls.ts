// The controls of one session, owned by its Runtime (Runtime.controls): the model and effort every
// request uses, the usage so far, and who watches them. A switch or an effort level from any front
// end goes through here, is told to every watcher, and is kept in the session file as `model` and
// `effort` records so a resumed session goes on with them. The records are written once the file is
// open; a change made before the first prompt is written right after the start record.
import type { ModelChoices } from "../config/modelChoices.ts";
import type { ModelInfo, Price } from "../model/catalog.ts";
import { type EffortLevels, effortLevels, effortRequest, isEffortLevel } from "../model/effort.ts";
import type { ModelRequest } from "../model/types.ts";
import { sessionChoices } from "../store/sessionChoices.ts";
import type { RecordInput, SessionRecord } from "../store/sessionRecords.ts";
import type { CompactionResult } from "./compaction.ts";
import type { Conversation } from "./conversation.ts";
import type { ControlEvent, UsageSnapshot } from "../core-types/events.ts";
import { type UsageMeter, usageSnapshot } from "./meter.ts";
import {
  type ActiveModel,
  ControlError,
  effortRefusal,
  type PreparedSwitch,
  prepareSwitch,
  usableModels,
} from "./modelSwitch.ts";

/** What the controls use of their Runtime. */
export interface ControlsHost {
  meter: UsageMeter;
  conversation: Conversation;
  /** The catalog and keys, read now (config/modelChoices.ts). */
  modelChoices?: () => ModelChoices;
  /** Opens a model under the session's rules; throws with what to do. */
  modelFor?: (spec: string) => Promise<ActiveModel>;
  turnRunning(): boolean;
  closed(): boolean;
  /** Compacts now, with the model in use. */
  compact(): Promise<CompactionResult | undefined>;
}

export class SessionControls {
  #model: ActiveModel;
  #effort: string | undefined;
  /** What the session file says now (its start or resume record, and the records since). */
  readonly #recorded: { model: string; effort: string | undefined };
  readonly #watchers = new Set<(event: ControlEvent) => void>();

  /** `thinking`: a fixed thinking setting (a caller that wants one) that effort levels do not change. */
  constructor(
    model: ActiveModel,
    private readonly host: ControlsHost,
    private readonly thinking?: ModelRequest["thinking"],
  ) {
    this.#model = model;
    this.#recorded = { model: model.info.spec, effort: undefined };
    host.meter.price = model.info.price;
  }

  get model(): ActiveModel {
    return this.#model;
  }

  /** The models this session can switch to now, the one in use among them. Throws when models.json cannot be read. */
  models(): ModelInfo[] {
    const choices = this.host.modelChoices?.();
    return choices ? usableModels(choices, this.#model.info) : [this.#model.info];
  }

  /**
   * Switches to the model `name` names, from the next model request on (a running turn's too),
   * after a compaction when the conversation is too large for its window. Undefined when it is the
   * model in use. Throws ControlError with what can be chosen, or why not: nothing changed.
   */
  async setModel(name: string): Promise<PreparedSwitch | undefined> {
    const { host } = this;
    if (host.closed()) throw new ControlError("This session is closed.");
    const modelFor = host.modelFor;
    const prepared = await prepareSwitch(
      {
        current: this.#model.info,
        choices: () => (modelFor ? host.modelChoices?.() : undefined),
        open: (spec) => (modelFor as NonNullable<typeof modelFor>)(spec),
        contextUsed: () => host.meter.estimate(host.conversation.chars),
        turnRunning: () => host.turnRunning(),
        compact: () => host.compact(),
      },
      name,
    );
    if (!prepared || host.closed()) return prepared;
    this.#model = prepared.model;
    host.meter.price = prepared.model.info.price;
    if (this.#effort !== undefined && !isEffortLevel(prepared.model.info, this.#effort)) this.#effort = undefined;
    this.sync();
    this.emit({ type: "model", model: prepared.model.info });
    this.emit({ type: "effort", effort: this.effort });
    this.emit({ type: "usage", ...this.usage });
    return prepared;
  }

  /** The level in use, the model's default when none was chosen; undefined for a model without levels. */
  get effort(): string | undefined {
    return this.#effort ?? effortLevels(this.#model.info)?.default;
  }

  effortLevels(): EffortLevels | undefined {
    return effortLevels(this.#model.info);
  }

  /** From the next model request on. A level the model does not have is refused: the reason, and nothing changes. */
  setEffort(value: string): string | undefined {
    const refusal = effortRefusal(this.#model.info, value);
    if (refusal !== undefined) return refusal;
    if (this.#effort === value) return undefined;
    this.#effort = value;
    this.sync();
    this.emit({ type: "effort", effort: value });
    return undefined;
  }

  /** How full the context is now, the model's window, and the session's cost so far. */
  get usage(): UsageSnapshot {
    return usageSnapshot(this.host.meter, this.host.conversation.chars, this.#model.info.contextWindow);
  }

  /** The model, thinking and effort fields of a request. */
  request(): Pick<ModelRequest, "model" | "thinking" | "effort"> {
    const fields = effortRequest(this.#model.info, this.#effort);
    const thinking = this.thinking ?? fields.thinking;
    return {
      model: this.#model.info.id,
      ...(thinking !== undefined && { thinking }),
      ...(fields.effort !== undefined && { effort: fields.effort }),
    };
  }

  /**
   * Calls `listener` on every change of the mode, the model, the effort, and the usage outside a turn; returns the
   * unsubscribe.
   */
  watch(listener: (event: ControlEvent) => void): () => void {
    this.#watchers.add(listener);
    return () => this.#watchers.delete(listener);
  }

  /** Tells every watcher; a watcher's mistake does not stop the others. */
  emit(event: ControlEvent): void {
    for (const watcher of [...this.#watchers]) {
      try {
        watcher(event);
      } catch {
        // A front end's display failed; the change stands.
      }
    }
  }

  /** A resumed session: the effort its file ended with, when it was for this model and is still one of its levels. */
  restore(records: readonly SessionRecord[]): void {
    const choices = sessionChoices(records);
    if (choices.model !== this.#model.info.spec || choices.effort === undefined) return;
    this.#recorded.effort = choices.effort;
    if (isEffortLevel(this.#model.info, choices.effort)) this.#effort = choices.effort;
  }

  /** The price of a model the session's records name (for a resumed session's cost); null: unknown. */
  priceLookup(): (spec: string | undefined) => Price | null {
    const own = this.#model.info;
    let choices: ModelChoices | undefined;
    try {
      choices = this.host.modelChoices?.();
    } catch {
      choices = undefined;
    }
    return (spec) => (spec === undefined || spec === own.spec ? own.price : (choices?.resolve(spec)?.price ?? null));
  }

  /** Writes the model and effort records the session file lacks, once it is open. */
  sync(): void {
    const { conversation } = this.host;
    if (!conversation.journal) return;
    const record = (input: RecordInput) => conversation.record(input);
    if (this.#recorded.model !== this.#model.info.spec) {
      record({ type: "model", model: this.#model.info.spec });
      this.#recorded.model = this.#model.info.spec;
      this.#recorded.effort = undefined;
    }
    if (this.#effort !== undefined && this.#recorded.effort !== this.#effort) {
      record({ type: "effort", effort: this.#effort });
      this.#recorded.effort = this.#effort;
    }
  }
}
