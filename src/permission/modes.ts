// Which mode a session may use. The team policy's `allowedModes` forbids modes (["plan"] forces
// plan mode); the engine denies every request in a forbidden mode, and front ends use
// resolveMode() to start in, or switch to, a mode that is allowed.
import type { TeamPolicy } from "./teamPolicy.ts";
import type { Mode } from "../core-types/mode.ts";

export const MODES: readonly Mode[] = ["build", "plan"];

export interface ResolvedMode {
  mode: Mode;
  /** Set when the requested mode was not allowed: what happened instead, for the user. */
  notice?: string;
}

/** The requested mode when the policy allows it, else the first allowed one, with a notice. */
export function resolveMode(policy: TeamPolicy, requested: Mode): ResolvedMode {
  const allowed = policy.allowedModes;
  if (!allowed || allowed.modes.includes(requested)) return { mode: requested };
  const mode = allowed.modes[0] ?? "plan";
  const file = allowed.origins[0]?.file;
  return {
    mode,
    notice: `The team policy${file ? ` (${file})` : ""} does not allow ${requested} mode; using ${mode} mode.`,
  };
}

/** Why the policy forbids `mode`, or undefined when it allows it. */
export function modeRefusal(policy: TeamPolicy, mode: Mode): string | undefined {
  const allowed = policy.allowedModes;
  if (!allowed || allowed.modes.includes(mode)) return undefined;
  const file = allowed.origins[0]?.file;
  return `The team policy${file ? ` (${file})` : ""} does not allow ${mode} mode, only ${allowed.modes.join(" and ")}.`;
}
