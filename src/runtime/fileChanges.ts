// What a session's turns changed in the project, through the undo store it was given: /diff, the
// last turn's changes (and why they may be incomplete), /undo of the last turn and /undo N. Apart
// from runtime.ts, which refuses these while a turn runs; the rewind points are rewind.ts.
import type { TurnChanges } from "../core-types/turnChanges.ts";
import type { SessionRewinds } from "./rewind.ts";
import type { RuntimeOptions } from "./runtimeOptions.ts";
import type { UndoResult } from "./services.ts";

export interface FileChangesContext {
  options: Pick<RuntimeOptions, "undo" | "extraRoots" | "sandboxAvailability" | "executor">;
  rewinds: SessionRewinds;
  /** Notes for the model's next user message. */
  notes: string[];
}

/** /diff: what this session changed in the project. */
export async function sessionDiff(ctx: FileChangesContext): Promise<string> {
  const store = ctx.options.undo;
  if (!store?.diff) return "Undo is off in this session, so Garuda has no record of its changes.";
  return store.diff();
}

/**
 * What the last turn changed (the undo store's snapshots: edit tools and sandboxed commands
 * alike). Complete only where commands could write nowhere else: no other project folders (no
 * snapshot holds them) and an OS sandbox (without one, a command the user allowed can write
 * anywhere).
 */
export async function lastTurnChanges(ctx: FileChangesContext): Promise<TurnChanges> {
  const { options } = ctx;
  const store = options.undo;
  if (!store?.turnChanges) return { available: false, reason: "undo is off in this session" };
  const changes = await store.turnChanges();
  if (!changes.available) return changes;
  const gaps = [...changes.gaps];
  const extra = options.extraRoots ?? [];
  if (extra.length > 0)
    gaps.push(`commands can also write the other project folders (${extra.join(", ")}), which no snapshot holds`);
  if (!(options.sandboxAvailability ?? options.executor.sandbox).available)
    gaps.push("commands run without an OS sandbox, so one you allowed could write outside the project folder");
  return { ...changes, gaps, complete: gaps.length === 0 };
}

/** /undo: the undo store restores the files of the last turn; the model hears of it next turn. */
export async function undoLastTurn(ctx: FileChangesContext): Promise<UndoResult> {
  const store = ctx.options.undo;
  if (!store) return { restored: [], removed: [], notes: ["Undo is off in this session."] };
  const result = await store.undoLastTurn();
  await ctx.rewinds.filesSettled("now");
  const changed = [
    ...result.restored.map((path) => `restored ${path}`),
    ...result.removed.map((path) => `removed ${path}`),
  ];
  if (changed.length > 0) {
    ctx.notes.push(
      `The user undid the file changes of the last turn (${changed.join(", ")}). ` +
        "Read those files again before relying on what you saw of them.",
    );
  }
  return result;
}

/** /undo N: the files back to how they were before the N-th last prompt (N turns back). */
export async function undoTurnsBack(ctx: FileChangesContext, n: number): Promise<UndoResult> {
  const point = ctx.rewinds.pointBack(n);
  if (!point)
    return { restored: [], removed: [], notes: [`This session has fewer than ${n} prompts to go back over.`] };
  const { files } = await ctx.rewinds.rewind({ messageId: point.messageId, mode: "files", dryRun: false });
  return { restored: files?.restored ?? [], removed: files?.removed ?? [], notes: files?.notes ?? [] };
}
