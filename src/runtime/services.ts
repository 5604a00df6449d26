// The services a Runtime is given (dependency injection): the small interfaces the undo store,
// the command/skill provider and the turn extensions are adapted to (the hooks runner is the
// ToolHooks of src/tools/toolHooks.ts, the background processes the BackgroundJobs of
// src/tools/processTable.ts) (the audit log is the AuditSink
// of src/store/auditEvents.ts). The Runtime and the tool registry speak only these; the wiring
// code builds the real ones.
import type { Tool } from "../tools/types.ts";
import type { TurnChanges } from "../core-types/turnChanges.ts";
import type { SnapshotAccess } from "../store/rewindFiles.ts";

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
  /**
   * Called at the start of every turn, before the user message; resolves once the turn's
   * snapshot is taken, which the turn does not wait for (writes and commands do).
   */
  beginTurn(): Promise<void>;
  /** Before a command of the turn runs: resolves once the turn's snapshot is taken (undo.ts). */
  beforeCommand?(lasting?: boolean): Promise<void>;
  /** Called when a turn ends, however it ends: later edits are the user's, not the turn's. */
  endTurn?(): Promise<void> | void;
  undoLastTurn(): Promise<UndoResult>;
  /** What this session changed, as a diff (for /diff). */
  diff?(): Promise<string>;
  /** What the last turn changed, once it ended (the front end's end-of-turn summary). */
  turnChanges?(): Promise<TurnChanges>;
  /** Warnings the store raised (undo switched off, an ignored file written …). */
  takeNotices?(): string[];
  close?(): Promise<void> | void;
  /** Runs a rewind's work on the snapshot store, one at a time with the store's own; undefined when undo is off. */
  withSnapshots?<T>(work: (access: SnapshotAccess) => Promise<T>): Promise<T | undefined>;
}

export interface CommandInfo {
  name: string;
  description: string;
  argumentHint?: string;
}

/**
 * A command whose prompt is made when it runs, inside the turn: a consent to ask first (a project
 * command or skill), or a prompt to fetch (an MCP server's). Runtime.resolveCommand hands the
 * typed text back for it, and runTurn expands it before the model sees anything.
 */
export interface DeferredCommand {
  /** The text for the model, or `refused`: a line for the user saying why it did not run. */
  expand(signal: AbortSignal): Promise<{ text: string } | { refused: string }>;
}

/** Custom commands and skills (filled by the extensions). */
export interface CommandProvider {
  /**
   * The prompt text of `/name args` (or a DeferredCommand that makes it in the turn), or undefined
   * when no command or skill has that name.
   */
  resolve(name: string, args: string): string | DeferredCommand | undefined;
  list(): CommandInfo[];
}

/**
 * Extensions that join a session at its turns (MCP servers): started at the first turn, not at
 * session creation, so a session starts fast; their tools are known only then.
 */
export interface TurnExtensions {
  /**
   * Runs at the start of every turn, before the prompt is expanded or recorded: starts what is
   * not started yet (consents included), drops what died. Resolves with the extra tools for the
   * turn: the same array while nothing changed, so the tool specs stay byte-stable.
   */
  beforeTurn(signal: AbortSignal, notice: (notice: Notice) => void): Promise<readonly Tool[]>;
}

export interface Notice {
  level: "info" | "warning";
  text: string;
}
