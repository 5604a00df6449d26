// The permission contract. Front ends only show ApprovalRequests and answer them; every
// decision is made here, the same for the terminal, ACP and headless runs.
import type { FileChange } from "../core-types/fileChange.ts";

export type Choice = "once" | "session" | "deny";
export type Effect = "allow" | "ask" | "deny";

/**
 * Where a rule came from, strongest first. "builtin" names Garuda's own fixed steps (sensitive
 * files, `.git/`, plan mode, read-only, sandbox, the default ask), so every decision names a rule.
 */
export type RuleSource = "managed-policy" | "user-policy" | "project" | "session" | "builtin";

export interface Rule {
  effect: Effect;
  /** `tool` or `tool(pattern)`, e.g. `bash(npm test*)`, `edit_file(src/**)`, `web_fetch(*.github.com)`. */
  pattern: string;
  source: RuleSource;
  /** The file it was read from, for messages and the audit log. */
  file?: string;
}

/** What a call wants to touch, as the engine matches it. */
export type PermissionTarget =
  | {
      kind: "path";
      /** Absolute, or relative to the root. */
      path: string;
      access: "read" | "write";
      /**
       * The path with symlinks resolved, when the caller knows it and it differs. Denials match
       * either path; an allow and "inside the root" need both.
       */
      realPath?: string;
      /** The file has this many names (hard links, more than one): another may be a secret. */
      links?: number;
    }
  | {
      kind: "command";
      command: string;
      /** The command will run inside the OS sandbox (false: on the host, or no sandbox exists). */
      sandboxed: boolean;
    }
  | { kind: "url"; url: string }
  /** A host a sandboxed command wants to reach through the egress proxy. */
  | { kind: "network"; host: string; port: number }
  /** Anything else (MCP tools, web search, consents): matched by tool name only. */
  | { kind: "input" };

/** What a tool (through the registry) or a consent asks the engine. */
export interface PermissionRequest {
  tool: string;
  /** The tool call's id; absent for consents that are not about a call. */
  callId?: string;
  readOnly: boolean;
  target: PermissionTarget;
  /** One line, e.g. `$ npm test` or `Edit src/a.ts`. Passed through visible() before display. */
  title: string;
  /** What the user should see to decide: the command, the diff, the server definition. */
  preview: string;
  change?: FileChange;
  /** For consents: the question itself, e.g. "Run the hooks of this project?". */
  question?: string;
}

/** What a front end shows. Built by the engine from a PermissionRequest. */
export interface ApprovalRequest {
  callId?: string;
  /**
   * Set when the call runs inside a subagent: the subagent's own call id. `callId` is then a call
   * the front end was never shown (ACP gives the question its own entry).
   */
  parentCallId?: string;
  tool: string;
  title: string;
  preview: string;
  change?: FileChange;
  question?: string;
  choices: Choice[];
  labels: Record<Choice, string>;
  /** The title or preview holds hidden characters: show the warning line. */
  hidden: boolean;
  /** The rule(s) "session" would add, e.g. `bash(npm test *)`, so the user sees the scope first. */
  sessionRules?: string[];
  /** Why this asks when it is not the usual reason, e.g. "outside the project" or "hidden characters". */
  note?: string;
  /**
   * The "session" choice is kept beyond the session (a consent's "Yes, and remember", pinned in
   * trust.json) and "once" holds for the session: a front end gives the lasting choice a key of its own.
   */
  remembers?: boolean;
  /**
   * An answer beyond "session" that a front end with askLasting offers as a choice of its own
   * (a host remembered for the project, in ~/.garuda/trust.json).
   */
  lasting?: { label: string; description: string };
}

/**
 * "Allow once" for part of a file change (U0, the terminal's hunk review): the tool writes
 * `change.newText` (the old text with only the accepted hunks) instead of its own, provided the
 * file still holds `change.oldText`; the model reads `note` (which hunks were rejected).
 */
export interface PartialApproval {
  change: FileChange;
  note: string;
  /** Which hunks were kept and which left out, numbered from 1 in the change's order (for the audit log). */
  hunks: { kept: number[]; rejected: number[] };
}

/** "Deny" with the user's words for the model ("deny and say why"): the model reads them in the call's result. */
export interface WordedDenial {
  deny: string;
}

export interface Approver {
  /** Resolves "deny" at once when `signal` aborts (a QuestionWithdrawn reason: the cause ended). */
  ask(request: ApprovalRequest, signal: AbortSignal): Promise<Choice>;
  /**
   * Optional: a question about a file change (`request.change` set) that may be answered hunk by
   * hunk. The engine asks it instead of ask() when the front end has it. A PartialApproval counts
   * as "once" for the accepted part only.
   */
  askChange?(request: ApprovalRequest, signal: AbortSignal): Promise<Choice | PartialApproval>;
  /**
   * Optional: the engine's question about a tool call (a file change may be answered hunk by
   * hunk, as askChange), where a denial may carry the user's words to the model. The engine asks
   * it instead of ask() and askChange() when the front end has it; only the engine does (other
   * callers of ask() read any answer but "deny" as a yes).
   */
  askCall?(request: ApprovalRequest, signal: AbortSignal): Promise<Choice | PartialApproval | WordedDenial>;
  /**
   * Optional: a question that also offers `request.lasting`; "lasting" is that answer. Asked by
   * whoever set `lasting` (the network questions, compose/network.ts), never by the engine itself.
   */
  askLasting?(request: ApprovalRequest, signal: AbortSignal): Promise<Choice | "lasting">;
}

export type AllowedBy = "read_only" | "sandbox" | "rule" | "session" | "user";
/** "protected": a write to Garuda's own files under ~/.garuda (policy, trust, credentials …). */
export type DeniedBy = "policy" | "sensitive" | "git" | "protected" | "rule" | "plan" | "user" | "unattended";

/** The engine's answer. A deny's reason is written for the model: it says what to do instead. */
export type Decision =
  /** `partial`: the user allowed only part of the call's file change (Approver.askChange). */
  | { outcome: "allow"; by: AllowedBy; rule?: Rule; partial?: PartialApproval }
  | { outcome: "deny"; by: DeniedBy; reason: string; rule?: Rule }
  /** `suggested`: the narrowest rules that would let this one call run, for a run no one answers. */
  | { outcome: "ask"; request: ApprovalRequest; rule?: Rule; suggested?: string[] };
