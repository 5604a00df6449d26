// The decision itself: a pure function of the request, the mode and rule data. Steps in order,
// the first that applies wins (DESIGN.md "Safety model"):
//   0  team-policy violation (policy deny rules, mode, sandbox, network keys) → deny
//   1  sensitive file with no allow rule naming it → deny (reads too); a file that is a secret
//      under another name (its device and inode are a secret's: a hard link, a bind mount) → deny
//   2  write into .git/ (any depth) or ~/.garuda, or (root at or above ~) the home's own files → deny
//   3  deny rule → deny
//   4  plan mode and not read-only → deny, telling the model to put it in its plan
//   5a read of a file with more than one name (hard links) → ask, unless an allow rule names it
//   5  read-only tool → allow
//   6  command in the OS sandbox → allow
//   7  ask rule → ask (no "session" choice: an ask rule means every time)
//   8  allow rule or session rule → allow
//   9  else ask
// Details: step 5 covers reads inside the root and tools without a target (MCP, search); reads
// outside the root and URLs skip it (a fetched URL can carry data out) and ask unless an allow
// rule covers them; a "session" answer then covers that folder or host. A command with hidden
// characters, or naming a sensitive file, skips steps 6 and 8 and asks. In plan mode a
// sandboxed command passes step 4 (the sandbox keeps the project read-only); a command outside
// the sandbox, a file write, and any other non-read-only call without an allow rule are denied.
import { buildApprovalRequest } from "./approvals.ts";
import { isPolicySource, policyViolation } from "./policyCheck.ts";
import { insideAnyRoot, insideRoot, type PathContext } from "./pathMatch.ts";
import { readRequestFor, ruleCovers, type CompiledRule, type RequestFacts } from "./ruleMatch.ts";
import { toolMatches } from "./ruleSyntax.ts";
import { type SecretPlace, shownSecret } from "../files/secrets.ts";
import { isGarudaPath, isGitPath, namesSensitive, sensitivePattern } from "./sensitive.ts";
import { isHomeOwnPath } from "../files/homeOwn.ts";
import { isInside } from "../files/isInside.ts";
import { proposeSessionScope, type SessionScope } from "./sessionRules.ts";
import type { TeamPolicy } from "./teamPolicy.ts";
import type { Decision, Rule } from "./types.ts";
import type { Mode } from "../core-types/mode.ts";

export interface DecisionInputs {
  ctx: PathContext;
  policy: TeamPolicy;
  sandboxAvailable: boolean;
  /** Every rule (policy, project, session), strongest source first. */
  rules: readonly CompiledRule[];
  /** The project's settings require the OS sandbox for every command (strict profile, executor "os"). */
  projectSandbox?: ProjectSandboxRule;
  /** The places the sandbox hides (secretPlaces()): refused like sensitive files. */
  secrets?: readonly SecretPlace[];
  /**
   * The secret on the list whose identity (device and inode) the file or folder at this path has,
   * whatever the path's name (files/secretIdentities.ts); undefined when none or nothing is there.
   */
  secretTwin?: (absPath: string) => string | undefined;
}

/** A project setting that keeps every command in the OS sandbox. */
export interface ProjectSandboxRule {
  /** `profile(strict)` or `executor(os)`: what the decision names. */
  pattern: string;
  file: string;
}

const builtin = (effect: Rule["effect"], pattern: string): Rule => ({ effect, pattern, source: "builtin" });

/** What the model reads for a change refused in plan mode (every such refusal contains it). */
export const PLAN_NOTE =
  "Plan mode is for reading and planning: nothing in the project may change yet. " +
  "Put this step in your plan instead; the user switches to build mode to carry " +
  "it out.";

function shown(path: string, root: string): string {
  const rel = insideRoot(path, root);
  return rel === undefined || rel === "" ? path : rel;
}

/** An allow rule (of any source) that names these paths on purpose for this tool (namesSensitive()). */
function namingAllowRule(facts: RequestFacts, inputs: DecisionInputs, paths: string[]): Rule | undefined {
  return inputs.rules.find(
    ({ rule, parsed }) =>
      rule.effect === "allow" &&
      parsed.specifier !== undefined &&
      toolMatches(parsed.tool, facts.request) &&
      paths.every((path) => namesSensitive(parsed.specifier as string, path, inputs.ctx, inputs.secrets)),
  )?.rule;
}

const sensitiveAllowed = (facts: RequestFacts, inputs: DecisionInputs, paths: string[]) =>
  namingAllowRule(facts, inputs, paths) !== undefined;

/** The first sensitive file a command names, when no `read(…)` allow rule names it. */
function sensitiveMention(facts: RequestFacts, inputs: DecisionInputs): string | undefined {
  for (const path of facts.mentionedPaths) {
    if (sensitivePattern(path, inputs.secrets) === undefined) continue;
    const probe = { ...facts, request: readRequestFor(facts.request, path), paths: [path] };
    if (!sensitiveAllowed(probe, inputs, [path])) return shown(path, inputs.ctx.root);
  }
  return undefined;
}

function firstCovering(
  inputs: DecisionInputs,
  facts: RequestFacts,
  effect: Rule["effect"],
  skip?: (rule: Rule) => boolean,
): Rule | undefined {
  const reading = effect === "allow" ? "allow" : "restrict";
  return inputs.rules.find(
    (compiled) =>
      compiled.rule.effect === effect && !skip?.(compiled.rule) && ruleCovers(compiled, facts, inputs.ctx, reading),
  )?.rule;
}

function ask(
  facts: RequestFacts,
  inputs: DecisionInputs,
  rule: Rule,
  options: { session: boolean; note?: string },
): Decision {
  let scope: SessionScope | undefined;
  if (options.session && !inputs.policy.forbidSessionApprovals) {
    const allowed = inputs.rules
      .filter(
        ({ rule: r, parsed }) =>
          r.effect === "allow" && parsed.specifier !== undefined && toolMatches(parsed.tool, facts.request),
      )
      .map(({ parsed }) => parsed.specifier as string);
    scope = proposeSessionScope(facts, inputs.ctx.root, allowed);
  }
  const request = buildApprovalRequest(facts.request, {
    sessionRules: scope?.rules,
    ...(scope?.label !== undefined && { sessionLabel: scope.label }),
    ...(options.note !== undefined && { note: options.note }),
  });
  return { outcome: "ask", rule, request, ...(scope && { suggested: scope.narrowest }) };
}

export function decide(facts: RequestFacts, mode: Mode, inputs: DecisionInputs): Decision {
  const { request } = facts;
  const target = request.target;
  const { root, home } = inputs.ctx;
  // A root at or above the home folder (a session at ~): the home's own files are not the project's.
  // Nor in an extra folder (~/go holds ~/go/bin): the home's rules hold for each extra root too.
  const homeInRoot = isInside(home, root);
  const extraRoots = inputs.ctx.extraRoots ?? [];
  const homeOwnOfProject = (path: string) =>
    isHomeOwnPath(path, home) && (homeInRoot || extraRoots.some((extra) => isInside(path, extra)));

  // 0. Team policy.
  const violation = policyViolation(inputs.policy, inputs.rules, facts, mode, inputs.sandboxAvailable, inputs.ctx);
  if (violation) return { outcome: "deny", by: "policy", reason: violation.reason, rule: violation.rule };

  if (target.kind === "path") {
    // 1. Sensitive files, for reads and writes alike.
    const hit = facts.paths
      .map((path) => sensitivePattern(path, inputs.secrets))
      .find((pattern) => pattern !== undefined);
    if (hit !== undefined && !sensitiveAllowed(facts, inputs, facts.paths)) {
      const path = shown(facts.paths[0] as string, root);
      const verb = target.access === "read" ? "read" : "change";
      return {
        outcome: "deny",
        by: "sensitive",
        rule: builtin("deny", `${target.access === "read" ? "read" : "edit"}(${hit})`),
        reason:
          `${path} may hold secrets, so Garuda does not ${verb} it. Work without its ` +
          `contents; if the task truly needs it, ask the user to add an allow rule that ` +
          `names it, e.g. ${target.access === "read" ? "read" : "edit"}(${path}).`,
      };
    }
    // 1b. The same file as a secret under another name: refused whatever the rules say (an allow
    // rule that names the secret opens it by its own path, not through another name).
    const twin = inputs.secretTwin
      ? facts.paths.map((path) => inputs.secretTwin?.(path)).find((secret) => secret !== undefined)
      : undefined;
    if (twin !== undefined) {
      const path = shown(facts.paths[0] as string, root);
      const secret = shownSecret(twin, home);
      const verb = target.access === "read" ? "read" : "change";
      return {
        outcome: "deny",
        by: "sensitive",
        rule: builtin("deny", `${target.access === "read" ? "read" : "edit"}(${secret})`),
        reason:
          `${path} is the same file as ${secret} (another name for it: a link, a hard ` +
          `link or a mount), which may hold secrets, so Garuda does not ${verb} it. Work ` +
          `without its contents; if the task truly needs it, ask the user to add an allow ` +
          `rule that names ${secret}, and use that path.`,
      };
    }
    // 2. .git/ and Garuda's own files.
    if (target.access === "write") {
      if (facts.paths.some(isGitPath)) {
        return {
          outcome: "deny",
          by: "git",
          rule: builtin("deny", "edit(**/.git/**)"),
          reason:
            "Files inside .git/ are git's own; writing them can corrupt the repository or " +
            "plant hooks. Use git commands instead.",
        };
      }
      if (facts.paths.some((path) => isGarudaPath(path, home))) {
        return {
          outcome: "deny",
          by: "protected",
          rule: builtin("deny", "edit(~/.garuda/**)"),
          reason:
            "Files under ~/.garuda hold Garuda's own settings, policy and credentials; a " +
            "tool may not change them. Ask the user to make the change.",
        };
      }
      const homeOwn = facts.paths.find(homeOwnOfProject);
      if (homeOwn !== undefined) {
        return {
          outcome: "deny",
          by: "protected",
          rule: builtin("deny", "edit(~/.*)"),
          reason:
            `${homeOwn} is one of the home folder's own files (dotfiles, ~/bin, the PATH ` +
            `folders), which this session does not change although it lies in one of its ` +
            `folders: the computer runs or trusts them later. Ask the user to make the ` +
            `change, or to start Garuda in a project folder.`,
        };
      }
    }
  }

  // 3. Deny rules (policy denials were step 0).
  const denyRule = firstCovering(inputs, facts, "deny", (rule) => isPolicySource(rule.source));
  if (denyRule) {
    const where = denyRule.file ? ` in ${denyRule.file}` : "";
    return {
      outcome: "deny",
      by: "rule",
      rule: denyRule,
      reason:
        `A deny rule${where} forbids this (${denyRule.pattern}). Do not try another way ` +
        `to do the same thing; tell the user if the task needs it.`,
    };
  }

  // 3b. The project's settings require the sandbox: a tightening, so it applies whether or not the file is trusted.
  const required = inputs.projectSandbox;
  if (required && target.kind === "command" && !target.sandboxed) {
    const why = inputs.sandboxAvailable
      ? "this command would run outside it"
      : "no OS sandbox is available on this computer";
    return {
      outcome: "deny",
      by: "rule",
      rule: { effect: "deny", pattern: required.pattern, source: "project", file: required.file },
      reason:
        `The project's settings (${required.file}) run every command in the OS sandbox ` +
        `(${required.pattern}), and ${why}. Find a way that works inside it, or tell ` +
        `the user.`,
    };
  }

  // 4. Plan mode.
  if (mode === "plan" && !request.readOnly) {
    const planRule = builtin("deny", "mode(plan)");
    if (target.kind === "command" && !target.sandboxed) {
      return {
        outcome: "deny",
        by: "plan",
        rule: planRule,
        reason:
          `In plan mode commands run only inside the sandbox, where the project is ` +
          `read-only, and this one would run outside it. ${PLAN_NOTE}`,
      };
    }
    if (target.kind === "path" && target.access === "write")
      return { outcome: "deny", by: "plan", rule: planRule, reason: PLAN_NOTE };
    if ((target.kind === "url" || target.kind === "input") && !firstCovering(inputs, facts, "allow")) {
      return { outcome: "deny", by: "plan", rule: planRule, reason: PLAN_NOTE };
    }
  }

  const outside =
    target.kind === "path" && facts.paths.some((path) => !insideAnyRoot(path, inputs.ctx) || homeOwnOfProject(path));

  // 5a. A file with other names (hard links) may be a secret under one of them, which this name
  // cannot show: it is asked about every time, unless an allow rule names the file itself.
  const links = target.kind === "path" && target.access === "read" ? (target.links ?? 1) : 1;
  if (links > 1) {
    const named = namingAllowRule(facts, inputs, facts.paths);
    if (named) return { outcome: "allow", by: named.source === "session" ? "session" : "rule", rule: named };
    const where = outside ? " It is outside the project folder." : "";
    return ask(facts, inputs, builtin("ask", "read(hard-linked)"), {
      session: false,
      note:
        `It has ${links} names (hard links): another of them may be a secret file, ` +
        `which this name cannot show.${where}`,
    });
  }

  // 5. Read-only tools: reads inside the root, and calls with no target to check.
  const readOnlyTarget = (target.kind === "path" && target.access === "read" && !outside) || target.kind === "input";
  if (request.readOnly && readOnlyTarget) {
    return { outcome: "allow", by: "read_only", rule: builtin("allow", "read_only") };
  }

  // 6. Commands in the OS sandbox.
  const analysis = facts.command;
  const hidden = analysis?.hidden === true;
  const secret = sensitiveMention(facts, inputs);
  if (target.kind === "command" && target.sandboxed && inputs.sandboxAvailable && !hidden && secret === undefined) {
    return { outcome: "allow", by: "sandbox", rule: builtin("allow", "sandbox") };
  }

  let note: string | undefined;
  if (outside) {
    const onlyHomeOwn = facts.paths.every((path) => insideAnyRoot(path, inputs.ctx));
    note = onlyHomeOwn
      ? "It is one of the home folder's own files (a dotfile, ~/bin …), not part of a project."
      : "It is outside the project folder.";
  } else if (secret !== undefined) note = `It names ${secret}, which may hold secrets.`;
  else if (analysis?.notAllowable !== undefined)
    note = `No rule can allow it without asking: ${analysis.notAllowable}.`;
  else if (target.kind === "command" && !target.sandboxed)
    note = inputs.sandboxAvailable
      ? "It would run outside the OS sandbox."
      : "No OS sandbox is available: it would run directly on this computer.";

  // 7. Ask rules: always asked, never remembered.
  const askRule = firstCovering(inputs, facts, "ask");
  if (askRule) return ask(facts, inputs, askRule, note === undefined ? { session: false } : { session: false, note });

  // 8. Allow rules and session rules. A project's allow rule is consent to run a command in the
  // sandbox; leaving the sandbox (when there is one) takes the user's own rule or answer.
  if (secret === undefined) {
    const leaving = target.kind === "command" && !target.sandboxed && inputs.sandboxAvailable;
    const allowRule = firstCovering(inputs, facts, "allow", leaving ? (rule) => rule.source === "project" : undefined);
    if (allowRule)
      return { outcome: "allow", by: allowRule.source === "session" ? "session" : "rule", rule: allowRule };
  }

  // 9. Ask.
  return ask(
    facts,
    inputs,
    builtin("ask", "default"),
    note === undefined ? { session: secret === undefined } : { session: secret === undefined, note },
  );
}
