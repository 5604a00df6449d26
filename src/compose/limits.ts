// A session's limits: its step and token limits, and what each sandboxed command may use. The
// team policy's values come first (they may raise Garuda's defaults: the team's choice), then the
// project's, which can only lower them.
import type { TeamPolicy } from "../permission/teamPolicy.ts";
import type { LimitsInForce } from "../sandbox/limiter.ts";
import { type CommandLimits, type LimitKind, defaultCommandLimits } from "../sandbox/limits.ts";
import type { SandboxAvailability } from "../sandbox/types.ts";
import { DEFAULT_LIMITS } from "../runtime/loop.ts";
import { groupedCount } from "../text/count.ts";

type Caps = TeamPolicy["limits"];
const lower = (base: number | undefined, cap: number | undefined) =>
  cap === undefined ? base : base === undefined ? cap : Math.min(base, cap);

export function sessionLimits(policy: Caps, project: Caps): { maxSteps: number; tokenBudget: number } {
  return {
    maxSteps: lower(policy.maxSteps ?? DEFAULT_LIMITS.maxSteps, project.maxSteps) as number,
    tokenBudget: lower(policy.tokenBudget ?? DEFAULT_LIMITS.tokenBudget, project.tokenBudget) as number,
  };
}

export interface CommandLimitSources {
  policy: Pick<TeamPolicy, "limits" | "limitOrigins">;
  project: Caps;
  /** <root>/.garuda/settings.json */
  projectFile: string;
  /** ~/.garuda/policy.json */
  userPolicyFile: string;
  defaults?: CommandLimits;
}

/** Each sandboxed command's limits, and for each the sentence that says how to raise it. */
export function commandLimits(sources: CommandLimitSources): CommandLimits {
  const defaults = sources.defaults ?? defaultCommandLimits();
  const raise: Partial<Record<LimitKind, string>> = {};
  const pick = (key: LimitKind): number | undefined => {
    const fromPolicy = sources.policy.limits[key];
    const base = fromPolicy ?? defaults[key];
    const value = lower(base, sources.project[key]);
    const origin = sources.policy.limitOrigins?.[key];
    if (value !== base) {
      raise[key] =
        `The project's ${sources.projectFile} lowers it (limits.${key}); the user can ` +
        `raise it there${base !== undefined ? ` (up to ${groupedCount(base)})` : ""}.`;
    } else if (fromPolicy !== undefined && origin?.source === "managed-policy") {
      raise[key] =
        `The team policy ${origin.file} sets it (limits.${key}); only whoever manages that file can raise it.`;
    } else if (fromPolicy !== undefined && origin) {
      raise[key] = `It is limits.${key} in ${origin.file}; the user can raise it there.`;
    } else {
      raise[key] =
        `To allow more, the user can set limits.${key} in ${sources.userPolicyFile} (a ` +
        `project's .garuda/settings.json can only lower it).`;
    }
    return value;
  };
  const processes = pick("processes") as number;
  const memoryMB = pick("memoryMB") as number;
  const cpuSeconds = pick("cpuSeconds");
  return { processes, memoryMB, ...(cpuSeconds !== undefined && { cpuSeconds }), raise };
}

/** The session's warning when the Linux sandbox holds no process limit (root without a cgroup). */
export function unlimitedNotice(sandbox: SandboxAvailability, inForce: LimitsInForce | null): string | undefined {
  if (!sandbox.available || sandbox.kind !== "bwrap" || inForce?.processes !== "none") return undefined;
  return (
    "Sandboxed commands have no process limit here: Garuda runs as root, to which " +
    "the kernel does not apply the per-user process limit, and it cannot make a " +
    "cgroup (/sys/fs/cgroup is not writable, or no cgroup hands down the pids and " +
    "memory controllers). A fork bomb in a command could fill the machine's process " +
    "table. Run Garuda as an ordinary user to get the limit."
  );
}
