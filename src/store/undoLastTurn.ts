// /undo's work in the undo store (undo.ts undoLastTurn()): finds the last turn that changed
// files, skipping (and dropping) the turns after it that changed none, and puts back what it
// changed. A file that changed again after the turn ended is left alone and named in a note
// (undoTree.ts planUndo), so undo never destroys work it did not see.
import { restoreFiles } from "./rewindFiles.ts";
import type { GitRunner } from "./undoGit.ts";
import { diffTrees, limitLines, planUndo, type TreeChange, type UndoPoint } from "./undoTree.ts";

/** What /undo did (the runtime's UndoResult). */
export interface UndoOutcome {
  restored: string[];
  removed: string[];
  notes: string[];
}

/** An undo that changed nothing, and why. */
export const undoRefused = (reason: string): UndoOutcome => ({ restored: [], removed: [], notes: [reason] });

export interface LastTurnUndo {
  git: GitRunner;
  /** The store's points, oldest first: the turns skipped and the one undone are taken off. */
  points: UndoPoint[];
  /** The project now (a tree id). */
  now: string;
  /** Called once the points are looked at: the next change takes a snapshot of its own again. */
  uncover(): void;
}

/** Undoes the last turn that changed files (`points` is not empty). */
export async function undoLastTurn({ git, points, now, uncover }: LastTurnUndo): Promise<UndoOutcome> {
  let skippedTurns = 0;
  let point: UndoPoint | undefined;
  let turn: TreeChange[] = [];
  while (points.length > 0) {
    const top = points[points.length - 1] as UndoPoint;
    const changes = await diffTrees(git, top.before, top.after ?? now);
    if (changes === undefined) return undoRefused("Undo failed: the snapshot of the last turn could not be read.");
    if (changes.length > 0) {
      point = top;
      turn = changes;
      break;
    }
    points.pop();
    skippedTurns++;
  }
  uncover();
  if (!point) return undoRefused("Nothing to undo: the last turns changed no files.");
  const since = point.after !== undefined ? await diffTrees(git, point.after, now) : [];
  const plan = planUndo(turn, since ?? []);
  const notes: string[] = [];
  if (skippedTurns > 0)
    notes.push(
      `The latest ${skippedTurns === 1 ? "turn" : `${skippedTurns} turns`} changed no ` +
        `files, so the turn before ${skippedTurns === 1 ? "it" : "them"} was undone.`,
    );
  const failed = await restoreFiles(git, point.before, plan);
  if (failed !== undefined) return undoRefused(`Undo failed: ${failed}.`);
  points.pop();
  notes.push(...limitLines(plan.skipped.map((s) => `Left ${s.path} as it is: ${s.why}.`)));
  return { restored: plan.restore, removed: plan.remove, notes };
}
