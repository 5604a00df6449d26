// The session's controls as ACP config options (stable in v1): the mode (category "mode", kept in
// step with the older session modes), the model (category "model": the models this user can use
// now) and, for a model that has them, its effort levels (category "thought_level"). Every one is
// a `select` (boolean options are sent only to a client that advertises them; Garuda has none).
// session/set_config_option changes the runtime and answers the whole set; a value that is not
// offered is an invalid-params error that changes nothing.
import * as acp from "@agentclientprotocol/sdk";
import { messageOf } from "../errors/caught.ts";
import type { ModelInfo } from "../model/catalog.ts";
import type { Mode } from "../core-types/mode.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { SessionView } from "../runtime/sessionView.ts";
import { oneLine } from "../text/visible.ts";

const MODE_OPTION = "mode";
const MODEL_OPTION = "model";
const EFFORT_OPTION = "effort";

export const MODES: acp.SessionMode[] = [
  { id: "build", name: "Build", description: "Edits ask first; commands run in the sandbox." },
  { id: "plan", name: "Plan", description: "Reads and plans. No edits; commands cannot write the project." },
];

/** The mode session/set_mode names; an invalid-params error for one that is not offered. */
export function modeOf(modeId: string): Mode {
  const mode = MODES.find((m) => m.id === modeId)?.id as Mode | undefined;
  if (!mode)
    throw acp.RequestError.invalidParams(
      { modeId: oneLine(modeId, 100) },
      `unknown mode "${oneLine(modeId, 100)}"; the modes are ${MODES.map((m) => m.id).join(" and ")}`,
    );
  return mode;
}

function tokens(count: number): string {
  return count >= 1_000_000 ? `${count / 1_000_000}M` : `${Math.round(count / 1000)}K`;
}

function modelDescription(info: ModelInfo): string {
  const price = info.price ? `$${info.price.input}/$${info.price.output} per MTok` : "price unknown";
  const label = info.label ? `${oneLine(info.label, 120)} · ` : "";
  return `${label}${tokens(info.contextWindow)} context · ${price}`;
}

/** The session modes (the older API), only those the team policy allows. */
export function sessionModes(runtime: SessionView): acp.SessionModeState {
  return {
    currentModeId: runtime.mode,
    availableModes: MODES.filter((mode) => runtime.modes.includes(mode.id as Mode)),
  };
}

/** The models to offer; the model in use alone when models.json cannot be read now (`log` says why). */
function offeredModels(runtime: SessionView, log: (text: string) => void): ModelInfo[] {
  try {
    return runtime.controls.models();
  } catch (error) {
    log(`garuda acp: listing the models failed: ${messageOf(error)}`);
    return [runtime.model];
  }
}

/** The whole set, in priority order: mode, model, effort. */
export function configOptions(runtime: SessionView, log: (text: string) => void = () => {}): acp.SessionConfigOption[] {
  const modes = sessionModes(runtime);
  const options: acp.SessionConfigOption[] = [
    {
      id: MODE_OPTION,
      name: "Mode",
      category: "mode",
      type: "select",
      currentValue: modes.currentModeId,
      options: modes.availableModes.map((mode) => ({
        value: mode.id,
        name: mode.name,
        ...(mode.description && { description: mode.description }),
      })),
    },
    {
      id: MODEL_OPTION,
      name: "Model",
      category: "model",
      type: "select",
      currentValue: runtime.model.spec,
      options: offeredModels(runtime, log).map((info) => ({
        value: info.spec,
        name: oneLine(info.spec, 120),
        description: modelDescription(info),
      })),
    },
  ];
  const levels = runtime.controls.effortLevels();
  const effort = runtime.controls.effort;
  if (levels && effort !== undefined) {
    options.push({
      id: EFFORT_OPTION,
      name: "Effort",
      description: `How much ${oneLine(runtime.model.spec, 120)} thinks before it answers.`,
      category: "thought_level",
      type: "select",
      currentValue: effort,
      options: levels.levels.map((level) => ({ value: level.value, name: level.name, description: level.description })),
    });
  }
  return options;
}

const invalid = (params: { configId: string; value?: unknown }, message: string) =>
  acp.RequestError.invalidParams({ configId: params.configId, value: params.value }, message);

/**
 * Applies session/set_config_option to the runtime. Throws an invalid-params RequestError (nothing
 * changed) for an unknown option, a value it does not offer, or a switch that cannot be made.
 */
/** Sets one option; what the change stopped (a switch to plan mode), for the user. */
export async function setConfigOption(runtime: Runtime, params: acp.SetSessionConfigOptionRequest): Promise<string[]> {
  const value = (params as { value?: unknown }).value;
  const known = [MODE_OPTION, MODEL_OPTION, ...(runtime.controls.effortLevels() ? [EFFORT_OPTION] : [])];
  if (!known.includes(params.configId)) {
    const forModel = params.configId === EFFORT_OPTION ? ` for ${runtime.model.spec}` : "";
    throw invalid(
      params,
      `There is no option "${oneLine(params.configId, 80)}"${forModel}. The options are: ${known.join(", ")}.`,
    );
  }
  if (typeof value !== "string")
    throw invalid(params, `"${params.configId}" takes one of its values (a string), not ${JSON.stringify(value)}.`);
  if (params.configId === MODE_OPTION) {
    const mode = MODES.find((known) => known.id === value)?.id as Mode | undefined;
    if (!mode)
      throw invalid(params, `There is no mode "${oneLine(value, 80)}". The modes are: ${runtime.modes.join(", ")}.`);
    const { refusal, notices } = await runtime.setMode(mode);
    if (refusal !== undefined) throw invalid(params, refusal);
    return notices;
  }
  if (params.configId === MODEL_OPTION) {
    try {
      await runtime.controls.setModel(value);
    } catch (error) {
      // A ControlError (runtime/modelSwitch.ts, not imported here: the core loads at session/new) says what can be
      // chosen.
      if (error instanceof Error && error.name === "ControlError") throw invalid(params, error.message);
      throw invalid(params, `${oneLine(value, 120)} cannot be used: ${messageOf(error)}`);
    }
    return [];
  }
  const refusal = runtime.controls.setEffort(value);
  if (refusal !== undefined) throw invalid(params, refusal);
  return [];
}
