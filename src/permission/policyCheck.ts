// Step 0 of every decision: does the request break the team policy? Nothing later can loosen
// what this refuses (not a project allow, not a session rule, not the user's answer).
import { matchHost } from "./hostMatch.ts";
import type { PathContext } from "./pathMatch.ts";
import { ruleCovers, type CompiledRule, type RequestFacts } from "./ruleMatch.ts";
import { policyKeyRule, type PolicyOrigin, type TeamPolicy } from "./teamPolicy.ts";
import type { Mode, Rule } from "./types.ts";

export interface PolicyViolation {
  rule: Rule;
  reason: string;
}

export const isPolicySource = (source: Rule["source"]) => source === "managed-policy" || source === "user-policy";

const where = (origin: { file?: string }) => (origin.file ? ` (${origin.file})` : "");

function modeViolation(policy: TeamPolicy, mode: Mode): PolicyViolation | undefined {
  const allowed = policy.allowedModes;
  if (!allowed || allowed.modes.includes(mode)) return undefined;
  const origin = allowed.origins[0] as PolicyOrigin;
  return {
    rule: policyKeyRule("allowedModes", origin),
    reason: `The team policy${where(origin)} does not allow ${mode} mode, only ${allowed.modes.join(" and ")}. Nothing can be done in ${mode} mode; tell the user.`,
  };
}

function sandboxViolation(policy: TeamPolicy, facts: RequestFacts, sandboxAvailable: boolean): PolicyViolation | undefined {
  const target = facts.request.target;
  if (target.kind !== "command" || target.sandboxed) return undefined;
  const required = policy.requireSandbox ?? policy.strictProfile;
  if (required) {
    const key = policy.requireSandbox ? "requireSandbox" : "profile";
    const why = sandboxAvailable ? "this command would run outside it" : "no OS sandbox is available on this computer";
    return {
      rule: policyKeyRule(key, required),
      reason: `The team policy${where(required)} requires every command to run in the OS sandbox, and ${why}. Do not retry it outside the sandbox; find a way that works inside it or tell the user.`,
    };
  }
  const forbid = policy.forbidOutsideSandbox;
  if (forbid && sandboxAvailable) {
    return {
      rule: policyKeyRule("allowOutsideSandbox", forbid),
      reason: `The team policy${where(forbid)} does not allow running commands outside the OS sandbox. Find a way that works inside it or tell the user.`,
    };
  }
  return undefined;
}

function networkViolation(policy: TeamPolicy, facts: RequestFacts): PolicyViolation | undefined {
  const kind = facts.request.target.kind;
  const strict = policy.network.strictAllowlist;
  if (!strict || (kind !== "url" && kind !== "network")) return undefined;
  const host = facts.host;
  if (host !== undefined && policy.network.allow.some((pattern) => matchHost(pattern, host))) return undefined;
  return {
    rule: policyKeyRule("network.strictAllowlist", strict),
    reason: `The team policy${where(strict)} only allows these hosts: ${policy.network.allow.join(", ") || "none"}; ${host ?? "this address"} is not one of them. Work without it or tell the user.`,
  };
}

/** The first policy rule or key the request breaks, or undefined. */
export function policyViolation(
  policy: TeamPolicy,
  rules: readonly CompiledRule[],
  facts: RequestFacts,
  mode: Mode,
  sandboxAvailable: boolean,
  ctx: PathContext,
): PolicyViolation | undefined {
  const byMode = modeViolation(policy, mode);
  if (byMode) return byMode;
  for (const compiled of rules) {
    if (compiled.rule.effect !== "deny" || !isPolicySource(compiled.rule.source)) continue;
    if (!ruleCovers(compiled, facts, ctx, "restrict")) continue;
    return {
      rule: compiled.rule,
      reason: `The team policy${where(compiled.rule)} forbids this (${compiled.rule.pattern}). Do not try another way to do the same thing; tell the user if the task needs it.`,
    };
  }
  return sandboxViolation(policy, facts, sandboxAvailable) ?? networkViolation(policy, facts);
}
