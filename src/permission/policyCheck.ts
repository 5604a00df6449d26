// Step 0 of every decision: does the request break the team policy? Nothing later can loosen
// what this refuses (not a project allow, not a session rule, not the user's answer).
import { matchHost } from "./hostMatch.ts";
import type { PathContext } from "./pathMatch.ts";
import { ruleCovers, type CompiledRule, type RequestFacts } from "./ruleMatch.ts";
import { toolMatches } from "./ruleSyntax.ts";
import { policyKeyRule, type PolicyOrigin, type TeamPolicy } from "./teamPolicy.ts";
import type { Rule } from "./types.ts";
import type { Mode } from "../core-types/mode.ts";

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
    reason:
      `The team policy${where(origin)} does not allow ${mode} mode, only ` +
      `${allowed.modes.join(" and ")}. Nothing can be done in ${mode} mode; tell the ` +
      `user.`,
  };
}

function sandboxViolation(
  policy: TeamPolicy,
  facts: RequestFacts,
  sandboxAvailable: boolean,
): PolicyViolation | undefined {
  const target = facts.request.target;
  if (target.kind !== "command" || target.sandboxed) return undefined;
  const required = policy.requireSandbox ?? policy.strictProfile;
  if (required) {
    const key = policy.requireSandbox ? "requireSandbox" : "profile";
    const why = sandboxAvailable ? "this command would run outside it" : "no OS sandbox is available on this computer";
    return {
      rule: policyKeyRule(key, required),
      reason:
        `The team policy${where(required)} requires every command to run in the OS ` +
        `sandbox, and ${why}. Do not retry it outside the sandbox; find a way that ` +
        `works inside it or tell the user.`,
    };
  }
  const forbid = policy.forbidOutsideSandbox;
  if (forbid && sandboxAvailable) {
    return {
      rule: policyKeyRule("allowOutsideSandbox", forbid),
      reason:
        `The team policy${where(forbid)} does not allow running commands outside the OS ` +
        `sandbox. Find a way that works inside it or tell the user.`,
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
    reason:
      `The team policy${where(strict)} only allows these hosts: ` +
      `${policy.network.allow.join(", ") || "none"}; ${host ?? "this address"} is not ` +
      `one of them. Work without it or tell the user.`,
  };
}

/**
 * A policy that forbids commands cannot let one through whose program the words do not tell
 * (`$x`, `sh -c "$s"`, `alias r=rm; r`, `/bin/r?`): any of them may be a forbidden one. Only the
 * policy's own command denials count (disallowedCommands, or a `bash(…)` deny in its permissions).
 */
function unknownProgramViolation(rules: readonly CompiledRule[], facts: RequestFacts): PolicyViolation | undefined {
  const why = facts.command?.unknownProgram;
  if (why === undefined || facts.request.target.kind !== "command") return undefined;
  const denials = rules.filter(({ parsed }) => parsed.tool !== "*" && toolMatches(parsed.tool, facts.request));
  const first = denials[0];
  if (!first) return undefined;
  const named = denials
    .slice(0, 5)
    .map(({ parsed }) => parsed.specifier ?? "every command")
    .join(", ");
  return {
    rule: first.rule,
    reason:
      `The team policy${where(first.rule)} forbids some commands ` +
      `(${named}${denials.length > 5 ? ", …" : ""}), and Garuda cannot tell which ` +
      `program this command runs: ${why}. Write it with every program named plainly ` +
      `(no variables, globs, aliases or functions for a command's name, no script ` +
      `built at run time); if the task needs it as it is, tell the user.`,
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
  const denials = rules.filter((compiled) => compiled.rule.effect === "deny" && isPolicySource(compiled.rule.source));
  // What the words say first; then a program they cannot tell; then words computed when it runs that could make a
  // denied command.
  for (const compiled of denials) {
    if (!ruleCovers(compiled, facts, ctx, "definite")) continue;
    return {
      rule: compiled.rule,
      reason:
        `The team policy${where(compiled.rule)} forbids this ` +
        `(${compiled.rule.pattern}). Do not try another way to do the same thing; tell ` +
        `the user if the task needs it.`,
    };
  }
  const unknown = unknownProgramViolation(denials, facts);
  if (unknown) return unknown;
  for (const compiled of denials) {
    if (!ruleCovers(compiled, facts, ctx, "restrict")) continue;
    return {
      rule: compiled.rule,
      reason:
        `The team policy${where(compiled.rule)} forbids ${compiled.rule.pattern}, and ` +
        `this command could be that once its computed words (variables, $(…)) are ` +
        `filled in. Write those words out plainly, or tell the user if the task needs ` +
        `it.`,
    };
  }
  return sandboxViolation(policy, facts, sandboxAvailable) ?? networkViolation(policy, facts);
}
