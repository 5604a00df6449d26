// A session's step and token limits: Garuda's defaults, the team policy's, the project's.
import type { TeamPolicy } from "../permission/teamPolicy.ts";
import { DEFAULT_LIMITS } from "./loop.ts";

/**
 * The session's limits: the team policy's (which may raise Garuda's defaults: the team's choice),
 * then the project's, which can only lower them.
 */
export function sessionLimits(policy: TeamPolicy["limits"], project: TeamPolicy["limits"]): { maxSteps: number; tokenBudget: number } {
  const lower = (base: number, cap: number | undefined) => (cap === undefined ? base : Math.min(base, cap));
  return {
    maxSteps: lower(policy.maxSteps ?? DEFAULT_LIMITS.maxSteps, project.maxSteps),
    tokenBudget: lower(policy.tokenBudget ?? DEFAULT_LIMITS.tokenBudget, project.tokenBudget),
  };
}
