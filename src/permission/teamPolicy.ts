// The team policy in force, merged from the managed file and ~/.garuda/policy.json
// (src/config/policy.ts reads and merges them). The engine only reads it. Every restriction
// remembers the file that imposed it, so a decision can name its rule and source.
import type { Rule } from "./types.ts";
import type { Mode } from "../core-types/mode.ts";

export type PolicySource = "managed-policy" | "user-policy";

/** The policy file a restriction came from. */
export interface PolicyOrigin {
  source: PolicySource;
  file: string;
}

export type AuditLevel = "all" | "mutations" | "denials";

export interface TeamPolicy {
  /** The files that were read, strongest first. Empty: no policy. */
  origins: PolicyOrigin[];
  /**
   * Every rule the policy makes, with its source and file: `permissions` allow/ask/deny, plus
   * `disallowedCommands` as `bash(…)` denials, `denyPaths` as `read(…)`/`edit(…)` denials,
   * `network.blockedHosts` as `network(…)`/`web_fetch(…)` denials and `network.allow` as
   * `network(…)` allows.
   */
  rules: Rule[];
  /** As written, for the sandbox: `denyPaths` are unreadable and unwritable there too. */
  disallowedCommands: string[];
  denyPaths: string[];
  /** Set: every command must run in the OS sandbox (no sandbox = no commands). */
  requireSandbox: PolicyOrigin | null;
  /** Set: a command that could run in the sandbox may not be offered a run outside it. */
  forbidOutsideSandbox: PolicyOrigin | null;
  /** Set: profile "strict" (implies both of the above). */
  strictProfile: PolicyOrigin | null;
  /** Set: approvals offer no "Allow for this session". */
  forbidSessionApprovals: PolicyOrigin | null;
  /** The modes a session may use; null = both. One mode = that mode is forced. */
  allowedModes: { modes: Mode[]; origins: PolicyOrigin[] } | null;
  /** Model specs (`*` wildcards) a session may use; null = any. From the managed file when it sets them. */
  allowedModels: { models: string[]; origin: PolicyOrigin } | null;
  network: {
    blockedHosts: string[];
    /** Hosts the policy lets sandboxed commands reach. */
    allow: string[];
    /** Set: only `allow` hosts may be reached (commands and web_fetch); nothing else asks. */
    strictAllowlist: PolicyOrigin | null;
  };
  /** The smallest of every file's value. processes, memoryMB, cpuSeconds: each sandboxed command's. */
  limits: { maxSteps?: number; tokenBudget?: number; processes?: number; memoryMB?: number; cpuSeconds?: number };
  /** The file each command limit came from (the one with the smallest value), for "how to raise it". */
  limitOrigins?: Partial<Record<"processes" | "memoryMB" | "cpuSeconds", PolicyOrigin>>;
  /** From the managed file when it sets it, else the user's. */
  audit: { enabled: boolean; level: AuditLevel; origin: PolicyOrigin | null };
}

/** The policy when no policy file exists. */
export function emptyTeamPolicy(): TeamPolicy {
  return {
    origins: [],
    rules: [],
    disallowedCommands: [],
    denyPaths: [],
    requireSandbox: null,
    forbidOutsideSandbox: null,
    strictProfile: null,
    forbidSessionApprovals: null,
    allowedModes: null,
    allowedModels: null,
    network: { blockedHosts: [], allow: [], strictAllowlist: null },
    limits: {},
    audit: { enabled: false, level: "all", origin: null },
  };
}

/** A synthesized rule naming a policy key, for decisions that come from a flag rather than a rule list. */
export function policyKeyRule(key: string, origin: PolicyOrigin): Rule {
  return { effect: "deny", pattern: `policy.${key}`, source: origin.source, file: origin.file };
}
