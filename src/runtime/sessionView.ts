// What an editor is told of a session when it opens: its mode, the modes it may switch to, its
// model, the models and effort levels on offer. The Runtime answers it (acp/configOptions.ts reads
// it).
import type { Mode } from "../core-types/mode.ts";
import type { ModelInfo } from "../model/catalog.ts";
import type { EffortLevels } from "../model/effort.ts";
import { MODES } from "../permission/modes.ts";

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
