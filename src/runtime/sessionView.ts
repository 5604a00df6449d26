// What an editor is told of a session when it opens: its mode, the modes it may switch to, its
// model, the models and effort levels on offer. The Runtime answers it, and so does a new
// session's preview, made from the configuration before the runtime exists (compose/prepare.ts
// planRuntime): `garuda acp` answers session/new from the preview while the runtime is built.
import type { ModelChoices } from "../config/modelChoices.ts";
import type { Mode } from "../core-types/mode.ts";
import type { ModelInfo } from "../model/catalog.ts";
import { type EffortLevels, effortLevels } from "../model/effort.ts";
import { MODES } from "../permission/modes.ts";
import { usableModels } from "./modelSwitch.ts";

export interface SessionView {
  readonly mode: Mode;
  readonly modes: Mode[];
  readonly model: ModelInfo;
  readonly controls: {
    /** The models this session can switch to now; throws when models.json cannot be read. */
    models(): ModelInfo[];
    effortLevels(): EffortLevels | undefined;
    readonly effort: string | undefined;
  };
}

/** The modes a session may switch to: those the team policy does not refuse. */
export function allowedModes(refusal: ((mode: Mode) => string | undefined) | undefined): Mode[] {
  return MODES.filter((mode) => refusal?.(mode) === undefined);
}

/** A new session as its Runtime will show it (no records to replay: a continued session has its runtime answer). */
export function previewSession(parts: {
  mode: Mode;
  modeRefusal: (mode: Mode) => string | undefined;
  model: ModelInfo;
  modelChoices: () => ModelChoices;
}): SessionView {
  const levels = effortLevels(parts.model);
  return {
    mode: parts.mode,
    modes: allowedModes(parts.modeRefusal),
    model: parts.model,
    controls: {
      models: () => usableModels(parts.modelChoices(), parts.model),
      effortLevels: () => levels,
      effort: levels?.default,
    },
  };
}
