// How hard a model thinks: the levels each model of the catalog offers (the editor's effort
// picker, the chat's /effort) and what a level becomes in a request. A Claude model with adaptive
// thinking takes Anthropic's `effort` (output_config.effort); one with extended thinking takes a
// thinking budget; an OpenAI-compatible model whose models.json entry lists `effort` levels takes
// them as `reasoning_effort`. A model with none of these has no levels, and no picker.
import { groupedCount } from "../text/count.ts";
import type { ModelInfo } from "./catalog.ts";
import type { ModelRequest } from "./types.ts";

export interface EffortLevel {
  value: string;
  name: string;
  description: string;
}

export interface EffortLevels {
  levels: readonly EffortLevel[];
  /** What a session starts with: what the provider does when nothing is sent. */
  default: string;
}

const ADAPTIVE: EffortLevels = {
  levels: [
    { value: "low", name: "Low", description: "Fastest and cheapest; thinks little." },
    { value: "medium", name: "Medium", description: "Thinks on harder steps." },
    { value: "high", name: "High", description: "Thinks as needed (the model's default)." },
    { value: "max", name: "Max", description: "Thinks the most; slowest and costliest." },
  ],
  default: "high",
};

/** Thinking budgets (tokens) of a model with extended thinking; the request lowers one that does not fit. */
const BUDGETS = { low: 4_000, medium: 10_000, high: 24_000 } as const;
export const THINKING_BUDGETS: Readonly<Record<string, number>> = BUDGETS;

const EXTENDED: EffortLevels = {
  levels: [
    { value: "off", name: "Off", description: "No thinking before the answer (the default)." },
    { value: "low", name: "Low", description: `Thinks up to ${groupedCount(BUDGETS.low)} tokens per step.` },
    { value: "medium", name: "Medium", description: `Thinks up to ${groupedCount(BUDGETS.medium)} tokens per step.` },
    { value: "high", name: "High", description: `Thinks up to ${groupedCount(BUDGETS.high)} tokens per step.` },
  ],
  default: "off",
};

const DEFAULT_REASONING = "default";

const titleCase = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).replace(/[_-]/g, " ");

/** The model's levels, or undefined when it has none. */
export function effortLevels(info: ModelInfo): EffortLevels | undefined {
  if (info.effort && info.effort.length > 0) {
    return {
      levels: [
        { value: DEFAULT_REASONING, name: "Default", description: "What the server does when no level is sent." },
        ...info.effort
          .filter((level) => level !== DEFAULT_REASONING)
          .map((level) => ({ value: level, name: titleCase(level), description: `reasoning_effort "${level}"` })),
      ],
      default: DEFAULT_REASONING,
    };
  }
  if (info.thinking === "adaptive") return ADAPTIVE;
  if (info.thinking === "extended") return EXTENDED;
  return undefined;
}

/** Whether `value` is one of the model's levels. */
export function isEffortLevel(info: ModelInfo, value: string): boolean {
  return effortLevels(info)?.levels.some((level) => level.value === value) ?? false;
}

/**
 * The thinking and effort fields of a request for the model at `value` (undefined: the default).
 * The default sends what Garuda sent before levels existed, so a session that never picks a level
 * makes the same requests.
 */
export function effortRequest(info: ModelInfo, value: string | undefined): Pick<ModelRequest, "thinking" | "effort"> {
  if (info.effort && info.effort.length > 0) {
    return value !== undefined && value !== DEFAULT_REASONING && info.effort.includes(value) ? { effort: value } : {};
  }
  if (info.thinking === "adaptive") {
    const effort =
      value !== undefined && value !== ADAPTIVE.default && isEffortLevel(info, value) ? { effort: value } : {};
    return { thinking: "adaptive", ...effort };
  }
  if (info.thinking === "extended") {
    const budget = value !== undefined ? THINKING_BUDGETS[value] : undefined;
    return budget !== undefined ? { thinking: { budgetTokens: budget } } : {};
  }
  return {};
}
