// The team policy: the managed file (an administrator's: /etc/garuda/policy.json, on macOS
// /Library/Application Support/Garuda/policy.json) and the user's ~/.garuda/policy.json. Never
// from the project: a project must not be able to set its own restrictions (or lift them), so a
// <root>/.garuda/policy.json is ignored with a notice.
//
// Merge, toward the stricter value: lists are joined; requireSandbox, strictAllowlist and
// profile "strict" hold if any file sets them; allowOutsideSandbox and allowSessionApprovals are
// false if any file says false; limits take the smallest; allowedModes keep only modes every
// file allows; allowedModels and audit come from the managed file when it sets them, else the
// user's. A missing file is no policy; a file that cannot be read or is invalid is an error
// naming it (fail closed: Garuda does not start without the policy it was given).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { emptyTeamPolicy, type PolicyOrigin, type TeamPolicy } from "../permission/teamPolicy.ts";
import type { Rule } from "../permission/types.ts";
import type { Mode } from "../core-types/mode.ts";
import { ConfigError } from "../errors/configError.ts";
import { describeIssues, parseConfigJson, readConfigText } from "./jsonFile.ts";
import { parseSpec } from "./modelsFile.ts";
import { policyFileRules } from "./policyRules.ts";
import { policyFileSchema, POLICY_KEYS_HINT, type PolicyFile } from "./policySchema.ts";
import { NETWORK_PRESETS } from "./networkPresets.ts";

/** The managed policy file of a platform; undefined where there is none (Windows). */
export function managedPolicyPath(platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform === "darwin") return "/Library/Application Support/Garuda/policy.json";
  if (platform === "win32") return undefined;
  return "/etc/garuda/policy.json";
}

/** Reads and validates one policy file; undefined when it does not exist. */
function readPolicyFile(path: string): PolicyFile | undefined {
  const fix = `Fix the file (${POLICY_KEYS_HINT}), or ask whoever manages it`;
  const text = readConfigText(path);
  if (text === undefined) return undefined;
  const result = policyFileSchema.safeParse(parseConfigJson(path, text, fix));
  if (!result.success) throw new ConfigError(path, `is not a valid team policy (${describeIssues(result.error)})`, fix);
  return result.data;
}

interface PolicyPart {
  origin: PolicyOrigin;
  file: PolicyFile;
}

const expandHosts = (hosts: readonly string[]) => hosts.flatMap((host) => NETWORK_PRESETS[host] ?? [host]);
const union = (lists: (readonly string[] | undefined)[]) => [...new Set(lists.flatMap((list) => list ?? []))];

function firstWhere(parts: readonly PolicyPart[], test: (file: PolicyFile) => boolean): PolicyOrigin | null {
  return parts.find((part) => test(part.file))?.origin ?? null;
}

function mergeModes(parts: readonly PolicyPart[]): TeamPolicy["allowedModes"] {
  const setting = parts.filter((part) => part.file.allowedModes);
  if (setting.length === 0) return null;
  let modes: Mode[] = ["build", "plan"];
  for (const part of setting) modes = modes.filter((mode) => part.file.allowedModes?.includes(mode));
  if (modes.length === 0) {
    const files = setting.map((part) => part.origin.file).join(" and ");
    throw new ConfigError(
      files,
      "together allow no mode at all (allowedModes have nothing in common)",
      "Make the allowedModes lists share a mode",
    );
  }
  return { modes, origins: setting.map((part) => part.origin) };
}

type LimitKey = keyof NonNullable<PolicyFile["limits"]>;

/** The smallest value any file sets for a limit, and the file it is in. */
function minLimit(parts: readonly PolicyPart[], key: LimitKey): { value: number; origin: PolicyOrigin } | undefined {
  let smallest: { value: number; origin: PolicyOrigin } | undefined;
  for (const part of parts) {
    const value = part.file.limits?.[key];
    if (value !== undefined && (smallest === undefined || value < smallest.value))
      smallest = { value, origin: part.origin };
  }
  return smallest;
}

/** Merges policy files, strongest (managed) first, into the policy in force. */
function mergePolicies(parts: readonly PolicyPart[]): TeamPolicy {
  const policy = emptyTeamPolicy();
  if (parts.length === 0) return policy;
  const fromStrongest = <T>(
    pick: (file: PolicyFile) => T | undefined,
  ): { value: T; origin: PolicyOrigin } | undefined => {
    for (const part of parts) {
      const value = pick(part.file);
      if (value !== undefined) return { value, origin: part.origin };
    }
    return undefined;
  };
  policy.origins = parts.map((part) => part.origin);
  policy.disallowedCommands = union(parts.map((part) => part.file.disallowedCommands));
  policy.denyPaths = union(parts.map((part) => part.file.denyPaths));
  policy.requireSandbox = firstWhere(parts, (file) => file.requireSandbox === true);
  policy.forbidOutsideSandbox = firstWhere(parts, (file) => file.allowOutsideSandbox === false);
  policy.strictProfile = firstWhere(parts, (file) => file.profile === "strict");
  policy.forbidSessionApprovals = firstWhere(parts, (file) => file.allowSessionApprovals === false);
  policy.allowedModes = mergeModes(parts);
  const models = fromStrongest((file) => file.allowedModels);
  policy.allowedModels = models ? { models: [...models.value], origin: models.origin } : null;
  policy.network = {
    blockedHosts: union(parts.map((part) => part.file.network?.blockedHosts)),
    allow: union(parts.map((part) => expandHosts(part.file.network?.allow ?? []))),
    strictAllowlist: firstWhere(parts, (file) => file.network?.strictAllowlist === true),
  };
  policy.limits = {};
  policy.limitOrigins = {};
  for (const key of ["maxSteps", "tokenBudget", "processes", "memoryMB", "cpuSeconds"] as const) {
    const smallest = minLimit(parts, key);
    if (!smallest) continue;
    policy.limits[key] = smallest.value;
    if (key !== "maxSteps" && key !== "tokenBudget") policy.limitOrigins[key] = smallest.origin;
  }
  const audit = fromStrongest((file) => file.audit);
  if (audit)
    policy.audit = { enabled: audit.value.enabled ?? false, level: audit.value.level ?? "all", origin: audit.origin };
  policy.rules = parts.flatMap((part) => policyFileRules(part.file, part.origin));
  return policy;
}

/**
 * Every rule the policy makes, strongest file first, each with its source and file. The engine
 * adds these itself from the policy; this is for listing them (/permissions) and for tests.
 */
export function policyRules(policy: TeamPolicy): Rule[] {
  return policy.rules.map((rule) => ({ ...rule }));
}

export interface PolicyLocations {
  /** The managed file; undefined where the platform has none. Tests pass a temp file. */
  managed: string | undefined;
  /** ~/.garuda/policy.json (garudaPaths(home).policy). */
  user: string;
  /** The project root, only to notice (and ignore) a policy file inside it. */
  root?: string;
}

export interface LoadedPolicy {
  policy: TeamPolicy;
  /** For the user: e.g. that a project's policy file is ignored. */
  notices: string[];
}

/** The file a project might put a policy in (it is never read). */
const projectPolicyFile = (root: string) => join(root, ".garuda", "policy.json");

/** Loads and merges the team policy. Throws a ConfigError naming a broken or unreadable file. */
export function loadTeamPolicy(locations: PolicyLocations): LoadedPolicy {
  const parts: PolicyPart[] = [];
  const sources: [PolicyOrigin["source"], string | undefined][] = [
    ["managed-policy", locations.managed],
    ["user-policy", locations.user],
  ];
  for (const [source, file] of sources) {
    if (file === undefined) continue;
    const parsed = readPolicyFile(file);
    if (parsed) parts.push({ origin: { source, file }, file: parsed });
  }
  const notices: string[] = [];
  if (locations.root !== undefined) {
    const ignored = projectPolicyFile(locations.root);
    if (existsSync(ignored)) {
      notices.push(
        `${ignored} is ignored: a team policy is read only from ` +
          `${locations.managed ?? "the managed policy file"} and ${locations.user}, never ` +
          `from a project, so that a project cannot set or lift its own restrictions. Put ` +
          `project rules in .garuda/settings.json ("permissions"), or ask your ` +
          `administrator to add them to the team policy.`,
      );
    }
  }
  return { policy: mergePolicies(parts), notices };
}

function wildcardRegex(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
}

/** The canonical form of a model spec: Claude models without `anthropic/`. */
function canonicalSpec(spec: string): string {
  const { provider, id } = parseSpec(spec.trim());
  return provider === "anthropic" ? id : `${provider}/${id}`;
}

/** Whether the policy allows a model spec (`*` wildcards; `anthropic/x` is the same as `x`). */
export function isModelAllowed(policy: TeamPolicy, spec: string): boolean {
  const allowed = policy.allowedModels;
  if (!allowed) return true;
  const wanted = canonicalSpec(spec);
  return allowed.models.some((pattern) => wildcardRegex(canonicalSpec(pattern)).test(wanted));
}

/** Throws a ConfigError naming the policy file when the model is not allowed. Call before building a client. */
export function checkModelAllowed(policy: TeamPolicy, spec: string): void {
  if (isModelAllowed(policy, spec)) return;
  const allowed = policy.allowedModels;
  throw new ConfigError(
    allowed?.origin.file,
    `the team policy does not allow the model "${spec}"`,
    `Use one of: ${allowed?.models.join(", ")} (garuda models lists them)`,
  );
}
