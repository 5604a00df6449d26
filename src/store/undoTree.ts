// What changed between two snapshot trees (a turn's undo point holds two: before and after it),
// and which of those changes an undo may put back: files the turn added are removed, files it
// changed or deleted are restored, and files that changed again after the turn ended (by the
// user, most likely) are left alone with a note.
import { type GitRunner, nulFields } from "./undoGit.ts";

/** One turn's undo point: the project's tree before the turn, and after it once it ended. */
export interface UndoPoint {
  before: string;
  after?: string;
}

export interface TreeChange {
  path: string;
  /** A: added, D: deleted, M: modified, T: type changed (file ↔ symlink). */
  status: "A" | "D" | "M" | "T";
  /** A nested git repository (gitlink): never restored or removed by undo. */
  gitlink: boolean;
}

/** Parses `git diff-tree -r -z --no-renames` raw output (":old new oldsha newsha S\0path\0"…). */
export function parseRawDiff(fields: string[]): TreeChange[] {
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = fields[i] as string;
    const path = fields[i + 1] as string;
    const match = /^:(\d{6}) (\d{6}) [0-9a-f]+ [0-9a-f]+ ([ADMT])/.exec(meta);
    if (!match) continue;
    const gitlink = match[1] === "160000" || match[2] === "160000";
    changes.push({ path, status: match[3] as TreeChange["status"], gitlink });
  }
  return changes;
}

/** What changed from tree `from` to tree `to`; undefined when git could not compare them. */
export async function diffTrees(git: GitRunner, from: string, to: string): Promise<TreeChange[] | undefined> {
  if (from === to) return [];
  const result = await git.run({ script: `g diff-tree -r -z --no-renames ${from} ${to} >"$OUT"`, capture: true });
  if (result.exitCode !== 0) return undefined;
  return parseRawDiff(nulFields(result.stdout));
}

export interface UndoPlan {
  /** Put back as they were before the turn. */
  restore: string[];
  /** Created by the turn: removed. */
  remove: string[];
  /** Left alone, with why. */
  skipped: Array<{ path: string; why: string }>;
}

/**
 * The turn's changes (before → after) against what changed since the turn ended (after → now).
 * A path changed since is left alone: undo never overwrites work it did not see.
 */
export function planUndo(turn: TreeChange[], since: TreeChange[]): UndoPlan {
  const changedSince = new Set(since.map((change) => change.path));
  const plan: UndoPlan = { restore: [], remove: [], skipped: [] };
  for (const change of turn) {
    if (change.gitlink)
      plan.skipped.push({ path: change.path, why: "it is a nested git repository; undo does not touch those" });
    else if (changedSince.has(change.path))
      plan.skipped.push({ path: change.path, why: "it changed again after the turn ended" });
    else if (change.status === "A") plan.remove.push(change.path);
    else plan.restore.push(change.path);
  }
  return plan;
}

/** At most `max` lines, then how many more. */
export function limitLines(lines: string[], max = 30): string[] {
  return lines.length <= max ? lines : [...lines.slice(0, max), `… and ${lines.length - max} more`];
}
