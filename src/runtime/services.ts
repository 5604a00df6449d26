// The services a Runtime is given (dependency injection): the small interfaces the hooks runner,
// the undo store and the command/skill provider are adapted to (the audit log is the AuditSink
// of src/store/auditEvents.ts). The Runtime and the tool registry speak only these; the wiring
// code builds the real ones.
import type { PermissionRequest } from "../permission/types.ts";
import type { ToolResult } from "../tools/types.ts";

/** What a hook is asked about: the call's permission request (callId, title, target) and its input. */
export interface ToolHookCall {
  request: PermissionRequest;
  input: unknown;
}

/** preToolUse and postToolUse around every call. A hook can block a call, never approve one. */
export interface ToolHooks {
  /** Runs after describe(), before the permission check. `block` is the reason the model reads. */
  pre(call: ToolHookCall, signal: AbortSignal): Promise<{ block?: string; warnings?: string[] }>;
  /** Runs after the tool. Each `feedback` entry is appended to the result for the model. */
  post(call: ToolHookCall, result: ToolResult, signal: AbortSignal): Promise<{ feedback?: string[]; warnings?: string[] }>;
}

/** What /undo did. */
export interface UndoResult {
  restored: string[];
  removed: string[];
  /** Lines for the user (e.g. "Nothing to undo", "a file changed since and was left alone"). */
  notes: string[];
}

/** The undo store (snapshots of the project per turn). */
export interface UndoStore {
  /** Called before a tool writes these absolute paths. */
  snapshot(paths: string[]): Promise<void>;
  /** Called at the start of every turn, before the user message. */
  beginTurn(): Promise<void>;
  /** Called when a turn ends, however it ends: later edits are the user's, not the turn's. */
  endTurn?(): Promise<void> | void;
  undoLastTurn(): Promise<UndoResult>;
  /** What this session changed, as a diff (for /diff). */
  diff?(): Promise<string>;
  /** Warnings the store raised (undo switched off, an ignored file written …). */
  takeNotices?(): string[];
  close?(): Promise<void> | void;
}

export interface CommandInfo {
  name: string;
  description: string;
  argumentHint?: string;
}

/** Custom commands and skills (filled by the extensions). */
export interface CommandProvider {
  /** The prompt text of `/name args`, or undefined when no command or skill has that name. */
  resolve(name: string, args: string): string | undefined;
  list(): CommandInfo[];
}

export interface Notice {
  level: "info" | "warning";
  text: string;
}
