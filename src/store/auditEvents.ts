// What the audit log records, and which records each audit level keeps.
import type { AuditLevel } from "../permission/teamPolicy.ts";
import type { PermissionAuditEvent } from "../permission/engine.ts";
import type { Choice, Decision, PermissionRequest, PermissionTarget, RuleSource } from "../permission/types.ts";
import type { Mode } from "../core-types/mode.ts";

/** From the team policy: everything, everything but read-only calls, or only refusals. */
export type { AuditLevel };

export type HookOutcome = "continue" | "blocked" | "failed" | "refused" | "feedback";

export type AuditEvent =
  | { type: "tool_request"; callId?: string; tool: string; readOnly: boolean; title: string; target?: string }
  | {
      type: "decision";
      callId?: string;
      tool: string;
      readOnly: boolean;
      outcome: "allow" | "deny" | "ask";
      mode?: Mode;
      by?: string;
      /** The rule pattern that decided, and where it came from; "builtin" when no rule did. */
      rule?: string;
      source: RuleSource;
      file?: string;
      reason?: string;
    }
  | {
      type: "answer";
      callId?: string;
      tool: string;
      readOnly: boolean;
      choice: Choice;
      sessionRules?: string[];
      /** A file change allowed hunk by hunk: which hunks were written and which left out (from 1). */
      hunks?: { kept: number[]; rejected: number[] };
    }
  | { type: "tool_result"; callId?: string; tool: string; readOnly: boolean; ok: boolean; summary?: string }
  | {
      type: "hook";
      event: "preToolUse" | "postToolUse";
      callId?: string;
      tool: string;
      readOnly: boolean;
      command: string;
      /** Which hooks.json it came from. */
      source: "user" | "project";
      outcome: HookOutcome;
      exitCode?: number | null;
      timedOut?: boolean;
      durationMs?: number;
      reason?: string;
    }
  | { type: "sandbox"; event: string; denied: boolean; callId?: string; detail?: string }
  | { type: "stop"; reason: string }
  | { type: "notice"; text: string };

/** Where events go. The AuditLog implements it; tests and disabled audit may use others. */
export interface AuditSink {
  record(event: AuditEvent): void;
}

/** A refusal of any kind: kept at every level. */
function isDenial(event: AuditEvent): boolean {
  switch (event.type) {
    case "decision":
      return event.outcome === "deny";
    case "answer":
      return event.choice === "deny";
    case "hook":
      return event.outcome === "blocked" || event.outcome === "failed" || event.outcome === "refused";
    case "sandbox":
      return event.denied;
    default:
      return false;
  }
}

/** Whether `level` writes this event. The levels nest: all ⊇ mutations ⊇ denials. Stops are always kept. */
export function levelKeeps(level: AuditLevel, event: AuditEvent): boolean {
  if (level === "all" || event.type === "stop" || isDenial(event)) return true;
  if (level === "denials") return false;
  return !("readOnly" in event && event.readOnly);
}

/** A target in one line, as the audit log shows it. */
function describeTarget(target: PermissionTarget): string | undefined {
  switch (target.kind) {
    case "path":
      return `${target.access} ${target.path}`;
    case "command":
      return `${target.sandboxed ? "sandboxed" : "host"}: ${target.command}`;
    case "url":
      return target.url;
    case "network":
      return `${target.host}:${target.port}`;
    case "input":
      return undefined;
  }
}

/** The tool_request event for a permission request. */
export function requestEvent(request: PermissionRequest): AuditEvent {
  const target = describeTarget(request.target);
  return {
    type: "tool_request",
    ...(request.callId ? { callId: request.callId } : {}),
    tool: request.tool,
    readOnly: request.readOnly,
    title: request.title,
    ...(target !== undefined ? { target } : {}),
  };
}

/** The decision event for the engine's answer to a request: names the rule and its source. */
export function decisionEvent(request: PermissionRequest, decision: Decision): AuditEvent {
  const rule = decision.rule;
  return {
    type: "decision",
    ...(request.callId ? { callId: request.callId } : {}),
    tool: request.tool,
    readOnly: request.readOnly,
    outcome: decision.outcome,
    ...(decision.outcome !== "ask" ? { by: decision.by } : {}),
    ...(rule ? { rule: rule.pattern, ...(rule.file ? { file: rule.file } : {}) } : {}),
    source: rule?.source ?? "builtin",
    ...(decision.outcome === "deny" ? { reason: decision.reason } : {}),
  };
}

/**
 * The answer event: what the user chose, the session rules a "session" answer added, and the
 * hunks kept and left out when only part of a file change was allowed.
 */
function answerEvent(
  request: PermissionRequest,
  choice: Choice,
  sessionRules: readonly string[],
  decision: Decision,
): AuditEvent {
  const hunks = decision.outcome === "allow" ? decision.partial?.hunks : undefined;
  return {
    type: "answer",
    ...(request.callId ? { callId: request.callId } : {}),
    tool: request.tool,
    readOnly: request.readOnly,
    choice,
    ...(sessionRules.length > 0 ? { sessionRules: [...sessionRules] } : {}),
    ...(hunks && { hunks: { kept: [...hunks.kept], rejected: [...hunks.rejected] } }),
  };
}

/** The permission engine's audit callback in audit-log form. */
export function permissionAuditEvent(event: PermissionAuditEvent): AuditEvent {
  if (event.type === "answer")
    return answerEvent(
      event.request,
      event.choice,
      event.sessionRules.map((rule) => rule.pattern),
      event.decision,
    );
  return { ...(decisionEvent(event.request, event.decision) as AuditEvent & { type: "decision" }), mode: event.mode };
}
