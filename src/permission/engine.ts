// The permission engine of one session: the rules in force (team policy, project settings and
// the session's own "Allow for this session" answers), a pure check(), and authorize(), which
// asks the front end's Approver when the check says "ask". Every decision and every answer goes
// to the audit callback with the rule that decided and the rule's source.
import { ConfigError } from "../errors/configError.ts";
import { untilAborted } from "../untilAborted.ts";
import { decide, type DecisionInputs, type ProjectSandboxRule } from "./decide.ts";
import type { PathContext } from "./pathMatch.ts";
import { bySourceStrength, compileRules, requestFacts, type CompiledRule } from "./ruleMatch.ts";
import { ruleProblem } from "./ruleSyntax.ts";
import { statSync } from "node:fs";
import type { FileIdentity } from "../files/pathStamp.ts";
import { SecretIdentities } from "../files/secretIdentities.ts";
import { secretPlaces } from "../files/secrets.ts";
import { SessionRules } from "./sessionRules.ts";
import { emptyTeamPolicy, type TeamPolicy } from "./teamPolicy.ts";
import type { Approver, Choice, Decision, PartialApproval, PermissionRequest, Rule, WordedDenial } from "./types.ts";
import type { Mode } from "../core-types/mode.ts";

export type PermissionAuditEvent =
  | { type: "decision"; request: PermissionRequest; mode: Mode; decision: Decision }
  | { type: "answer"; request: PermissionRequest; choice: Choice; decision: Decision; sessionRules: Rule[] };

export interface PermissionEngineOptions {
  /** The project root, absolute (the real path). */
  root: string;
  /** The session's other project folders (PathContext.extraRoots), absolute and real. */
  extraRoots?: readonly string[];
  home: string;
  /** Project rules (trusted settings) and any others; the policy's own rules are added from `policy`. */
  rules?: readonly Rule[];
  policy?: TeamPolicy;
  /** An OS sandbox exists on this computer. */
  sandboxAvailable: boolean;
  /** Compare paths without case (default: on macOS and Windows). */
  caseInsensitive?: boolean;
  audit?: (event: PermissionAuditEvent) => void;
  /**
   * Whether the audit log the team policy requires (`audit.enabled`) could not be written, with
   * the reason: every request is then refused, so nothing happens that the log does not hold.
   */
  auditFailure?: () => string | undefined;
  /** The project's settings keep every command in the OS sandbox (strict profile, executor "os"). */
  projectSandbox?: ProjectSandboxRule;
  /**
   * Folders the sandbox hides from commands beyond the home and system secrets (files/secrets.ts), such
   * as $XDG_RUNTIME_DIR: refused to the file tools like sensitive files.
   */
  withheldFromCommands?: readonly string[];
  /** The secrets by identity (shared with the file tools); made from `home` and `withheldFromCommands` when absent. */
  identities?: SecretIdentities;
}

export interface AuthorizeOptions {
  mode: Mode;
  /** Who answers questions; absent for headless runs (an "ask" is then denied). */
  approver?: Approver;
  signal: AbortSignal;
}

export interface PermissionEngine {
  /** The decision for a request, without asking anyone. */
  check(request: PermissionRequest, mode: Mode): Decision;
  /**
   * The reason a rule refuses this request, or undefined when none does; only a refusal is
   * recorded. For checks made on every use of something already allowed elsewhere (the egress
   * proxy's allowlisted hosts), where a recorded "ask" would be noise.
   */
  refusal(request: PermissionRequest, mode: Mode): string | undefined;
  /** check(), and on "ask" the Approver's answer. Never throws; an aborted signal denies at once. */
  authorize(request: PermissionRequest, options: AuthorizeOptions): Promise<Decision>;
  /**
   * The secret on the list that a file already read is under another name (its fstat: a path
   * checked before a question can lead to another file by the time it is read), the set
   * revalidated first; undefined when it is none.
   */
  secretTwinOf(file: FileIdentity): Promise<string | undefined>;
  /** Every rule in force, strongest source first (session rules last). */
  rules(): Rule[];
  sessionRules(): Rule[];
  revokeSessionRule(pattern: string): boolean;
}

const DENIED_BY_USER =
  "The user denied this. Do not retry it or do the same thing another way; ask the user how to go on.";
/** The user's own words with a denial, quoted for the model: they say what to do instead. */
function deniedWithWords(words: string): string {
  return (
    `The user denied this and said: "${words.replace(/\s+/g, " ").trim()}". Do not ` +
    `retry it as it was; follow what they said, or ask them.`
  );
}
/** The most of the user's words a denial carries. */
const MAX_DENIAL_WORDS = 2_000;
/** A question stopped before its answer (a stopped turn, a withdrawn question). */
export const CANCELLED = "The request was cancelled before it was approved.";
const UNATTENDED =
  "This needs the user's approval and no one can answer in this run. Leave it " +
  "out, or finish and say what is still to do.";

function sameRule(a: Rule, b: Rule): boolean {
  return a.effect === b.effect && a.pattern === b.pattern && a.source === b.source && a.file === b.file;
}

function compileChecked(rules: readonly Rule[]): CompiledRule[] {
  const { compiled, invalid } = compileRules(rules);
  const bad = invalid[0];
  if (bad)
    throw new ConfigError(
      bad.file,
      `the rule "${bad.pattern}" ${ruleProblem(bad.pattern) ?? "is not valid"}`,
      "Fix or remove the rule",
    );
  return compiled;
}

/**
 * Resolves "deny" when the signal aborts, whatever the approver does. A file change goes to the
 * approver's askChange when it has one (the terminal's hunk review).
 */
function askUntilAborted(
  approver: Approver,
  request: Decision & { outcome: "ask" },
  signal: AbortSignal,
): Promise<Choice | PartialApproval | WordedDenial> {
  const asked: Promise<Choice | PartialApproval | WordedDenial> = approver.askCall
    ? approver.askCall(request.request, signal)
    : request.request.change && approver.askChange
      ? approver.askChange(request.request, signal)
      : approver.ask(request.request, signal);
  const answered = asked.then(
    (choice): Choice | PartialApproval | WordedDenial => (signal.aborted ? "deny" : choice),
    (): Choice => "deny",
  );
  return untilAborted(answered, signal, () => "deny");
}

export function createPermissionEngine(options: PermissionEngineOptions): PermissionEngine {
  const policy = options.policy ?? emptyTeamPolicy();
  const all: Rule[] = [];
  for (const rule of [...policy.rules, ...(options.rules ?? [])])
    if (!all.some((seen) => sameRule(seen, rule))) all.push(rule);
  const base = compileChecked(all).sort(bySourceStrength);
  const session = new SessionRules();
  let sessionCompiled: CompiledRule[] = [];
  const ctx: PathContext = {
    root: options.root,
    home: options.home,
    caseInsensitive: options.caseInsensitive ?? (process.platform === "darwin" || process.platform === "win32"),
    ...(options.extraRoots && options.extraRoots.length > 0 && { extraRoots: options.extraRoots }),
  };

  const secrets = secretPlaces(options.home, options.withheldFromCommands);
  const identities = options.identities ?? new SecretIdentities(secrets);
  // One stat per path checked: which secret, if any, the file there is under another name.
  const secretTwin = (absPath: string): string | undefined => {
    try {
      const stats = statSync(absPath);
      return identities.latest().secretOf(stats.dev, stats.ino);
    } catch {
      return undefined;
    }
  };
  const inputs = (): DecisionInputs => ({
    ctx,
    secrets,
    secretTwin,
    policy,
    sandboxAvailable: options.sandboxAvailable,
    rules: [...base, ...sessionCompiled],
    ...(options.projectSandbox && { projectSandbox: options.projectSandbox }),
  });
  const record = (event: PermissionAuditEvent) => options.audit?.(event);
  const refresh = () => {
    sessionCompiled = compileRules(session.list()).compiled;
  };

  const check = (request: PermissionRequest, mode: Mode): Decision => {
    const decision = decide(requestFacts(request, ctx), mode, inputs());
    record({ type: "decision", request, mode, decision });
    // Checked after the record, so the write that fails refuses its own request too.
    const failure = options.auditFailure?.();
    if (failure === undefined || decision.outcome === "deny") return decision;
    return {
      outcome: "deny",
      by: "policy",
      rule: {
        effect: "deny",
        pattern: "audit(required)",
        source: policy.audit.origin?.source ?? "managed-policy",
        ...(policy.audit.origin?.file && { file: policy.audit.origin.file }),
      },
      reason:
        `The team policy requires the audit log, and writing it failed (${failure}), so ` +
        `nothing can run now. Tell the user; they need to fix the audit folder ` +
        `(~/.garuda/audit).`,
    };
  };

  const authorize = async (
    request: PermissionRequest,
    { mode, approver, signal }: AuthorizeOptions,
  ): Promise<Decision> => {
    if (signal.aborted) {
      const decision: Decision = {
        outcome: "deny",
        by: "user",
        reason: CANCELLED,
        rule: { effect: "deny", pattern: "cancelled", source: "builtin" },
      };
      record({ type: "decision", request, mode, decision });
      return decision;
    }
    // A path's identity is compared with the secrets' as they are now (revalidated, at most every second).
    if (request.target.kind === "path") await identities.current();
    const decision = check(request, mode);
    if (decision.outcome !== "ask") return decision;
    if (!approver) {
      // The narrowest rule that would allow it, for whoever reads the log or starts the run.
      const rule = decision.suggested?.[0];
      const reason = rule ? `${UNATTENDED} (An allow rule such as ${rule} would let it run.)` : UNATTENDED;
      const denied: Decision = {
        outcome: "deny",
        by: "unattended",
        reason,
        ...(decision.rule ? { rule: decision.rule } : {}),
      };
      record({ type: "decision", request, mode, decision: denied });
      return denied;
    }
    const asked = await askUntilAborted(approver, decision, signal);
    // Part of a change counts as "once" for that part, and only for a question about that file.
    const partial =
      typeof asked === "object" &&
      "change" in asked &&
      decision.request.change &&
      asked.change.path === decision.request.change.path
        ? asked
        : undefined;
    const words = typeof asked === "object" && "deny" in asked ? asked.deny.slice(0, MAX_DENIAL_WORDS).trim() : "";
    let choice: Choice = typeof asked === "object" ? (partial ? "once" : "deny") : asked;
    if (!decision.request.choices.includes(choice)) choice = choice === "session" ? "once" : "deny";
    let added: Rule[] = [];
    let answer: Decision;
    if (choice === "deny") {
      answer = {
        outcome: "deny",
        by: "user",
        reason: signal.aborted ? CANCELLED : words !== "" ? deniedWithWords(words) : DENIED_BY_USER,
        ...(decision.rule ? { rule: decision.rule } : {}),
      };
    } else if (choice === "session" && decision.request.sessionRules) {
      added = session.add(decision.request.sessionRules);
      refresh();
      const rule = added[0] ?? session.list().find((r) => decision.request.sessionRules?.includes(r.pattern));
      answer = { outcome: "allow", by: "session", ...(rule ? { rule } : {}) };
    } else {
      answer = {
        outcome: "allow",
        by: "user",
        ...(decision.rule ? { rule: decision.rule } : {}),
        ...(partial && { partial }),
      };
    }
    record({ type: "answer", request, choice, decision: answer, sessionRules: added });
    return answer;
  };

  const refusal = (request: PermissionRequest, mode: Mode): string | undefined => {
    const decision = decide(requestFacts(request, ctx), mode, inputs());
    if (decision.outcome === "deny") {
      record({ type: "decision", request, mode, decision });
      return decision.reason;
    }
    // A required audit log that cannot be written stops allowlisted traffic too.
    const failure = options.auditFailure?.();
    return failure === undefined
      ? undefined
      : `the team policy requires the audit log, and writing it failed (${failure})`;
  };

  return {
    check,
    refusal,
    authorize,
    secretTwinOf: async (file) => (await identities.current()).secretOf(file.dev, file.ino),
    rules: () => [...base, ...sessionCompiled].map((compiled) => compiled.rule),
    sessionRules: () => session.list(),
    revokeSessionRule: (pattern) => {
      const removed = session.revoke(pattern);
      if (removed) refresh();
      return removed;
    },
  };
}
