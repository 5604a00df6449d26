// Switching a session's model (the editor's model picker, the chat's /model): the name must be a
// model of the catalog or models.json that this user can use now (a key, the team policy), and
// the conversation must fit its context window — a smaller window gets a compaction first, with
// the model in use, or a refusal that says why. A refused switch changes nothing. The conversation
// and the session file go on with the new model from its next request.
import type { ModelChoices } from "../config/modelChoices.ts";
import type { ModelInfo } from "../model/catalog.ts";
import { effortLevels, isEffortLevel } from "../model/effort.ts";
import type { ModelClient } from "../model/types.ts";
import { COMPACT_AT, type CompactionResult } from "./compaction.ts";
import { groupedCount } from "../text/count.ts";

export interface ActiveModel {
  client: ModelClient;
  info: ModelInfo;
}

/** A switch or an effort level that cannot be made: the message says why and what can be chosen. */
export class ControlError extends Error {
  override readonly name = "ControlError";
}

export interface SwitchHost {
  current: ModelInfo;
  /** The catalog and keys, read now; undefined when this session cannot switch (no wiring). */
  choices(): ModelChoices | undefined;
  /** Opens the model under the session's rules; throws with what to do. */
  open(spec: string): Promise<ActiveModel>;
  /** Tokens in the context now. */
  contextUsed(): number;
  /** A turn runs: no compaction can be made now. */
  turnRunning(): boolean;
  /** Compacts with the model in use. */
  compact(): Promise<CompactionResult | undefined>;
}

export interface PreparedSwitch {
  model: ActiveModel;
  /** The compaction made to fit the new model's window. */
  compaction?: CompactionResult;
}

const tokens = (count: number) => groupedCount(count);

/** The specs the user can switch to now, the current one first if it is among them. */
export function usableModels(choices: ModelChoices, current: ModelInfo): ModelInfo[] {
  const usable = choices.choices.flatMap((choice) => (choice.usable ? [choice.info] : []));
  return usable.some((info) => info.spec === current.spec) ? usable : [current, ...usable];
}

function knownList(choices: ModelChoices, current: ModelInfo): string {
  return usableModels(choices, current)
    .map((info) => info.spec)
    .join(", ");
}

/**
 * Checks and opens the model `name` names, compacting first when the conversation would not fit
 * its window. Undefined when it is the model in use. Throws ControlError (nothing changed, except
 * a compaction already made) or the opener's error.
 */
export async function prepareSwitch(host: SwitchHost, name: string): Promise<PreparedSwitch | undefined> {
  const choices = host.choices();
  if (!choices) throw new ControlError("This session cannot switch models.");
  const wanted = name.trim();
  const info = choices.resolve(wanted) ?? (wanted === host.current.spec ? host.current : undefined);
  if (!info)
    throw new ControlError(
      `There is no model "${wanted}" in the catalog or ~/.garuda/models.json. The ` +
        `models you can use: ${knownList(choices, host.current)}.`,
    );
  if (info.spec === host.current.spec) return undefined;
  const choice = choices.choices.find((entry) => entry.info.spec === info.spec);
  if (choice && !choice.usable)
    throw new ControlError(
      `${info.spec} cannot be used: ${choice.reason}. The models you can use: ${knownList(choices, host.current)}.`,
    );

  const fits = () => host.contextUsed() <= info.contextWindow * COMPACT_AT;
  if (!fits() && host.turnRunning()) {
    throw new ControlError(
      `The conversation has about ${tokens(host.contextUsed())} tokens, more than ` +
        `fits in the ${tokens(info.contextWindow)}-token window of ${info.spec}. Switch ` +
        `after this turn ends: Garuda then compacts the conversation first.`,
    );
  }
  const model = await host.open(info.spec);
  if (fits()) return { model };
  const before = host.contextUsed();
  const compaction = await host.compact();
  if (!fits()) {
    throw new ControlError(
      `The conversation has about ${tokens(host.contextUsed())} ` +
        `tokens${compaction ? ` after compaction (it had ${tokens(before)})` : ""}, ` +
        `more than fits in the ${tokens(info.contextWindow)}-token window of ` +
        `${info.spec}, so the model stays ${host.current.spec}. Start a new ` +
        `conversation to use ${info.spec}.`,
    );
  }
  return { model, ...(compaction && { compaction }) };
}

/** Why `value` is not an effort level of the model, or undefined when it is. */
export function effortRefusal(info: ModelInfo, value: string): string | undefined {
  const levels = effortLevels(info);
  if (!levels) return `${info.spec} has no effort levels.`;
  if (isEffortLevel(info, value)) return undefined;
  return (
    `There is no effort level "${value}" for ${info.spec}. Its levels are: ` +
    `${levels.levels.map((level) => level.value).join(", ")}.`
  );
}
