// Hunk-by-hunk approval of a file change (U0): the change split into its hunks (runs of removed
// and added lines), shown one by one, and the new text with only the accepted hunks applied.
// Lines keep their own line ends, so applying every hunk gives back the new text exactly, and
// applying none gives back the old one. The terminal (src/cli/chat/approver.ts) and the editor
// (src/acp/hunkReview.ts) ask about the hunks their own way; both answer through hunkAnswer().

import type { Choice, PartialApproval } from "../permission/types.ts";
import { oneLine } from "../text/visible.ts";
import { diffLines } from "./diff.ts";

export interface Hunk {
  /** Index of the first old line this hunk replaces (0-based). */
  oldStart: number;
  /** Index of its first line in the new text (0-based). */
  newStart: number;
  removed: string[];
  added: string[];
}

/** The text's lines, each with its own line end ("" has none). */
function splitKeepingEnds(text: string): string[] {
  if (text === "") return [];
  return text.split(/(?<=\n)/);
}

/** The hunks that turn `oldText` (null: a new file) into `newText`. */
export function changeHunks(oldText: string | null, newText: string): Hunk[] {
  const a = splitKeepingEnds(oldText ?? "");
  const b = splitKeepingEnds(newText);
  const hunks: Hunk[] = [];
  let i = 0;
  let j = 0;
  let current: Hunk | undefined;
  for (const { type: op } of diffLines(a, b)) {
    if (op === "same") {
      current = undefined;
      i++;
      j++;
      continue;
    }
    if (!current) {
      current = { oldStart: i, newStart: j, removed: [], added: [] };
      hunks.push(current);
    }
    if (op === "del") current.removed.push(a[i++] as string);
    else current.added.push(b[j++] as string);
  }
  return hunks;
}

/** The old text with only the accepted hunks applied (accepted[k] for hunks[k]). */
export function applyHunks(oldText: string | null, hunks: readonly Hunk[], accepted: readonly boolean[]): string {
  const a = splitKeepingEnds(oldText ?? "");
  const out: string[] = [];
  let i = 0;
  hunks.forEach((hunk, k) => {
    while (i < hunk.oldStart) out.push(a[i++] as string);
    if (accepted[k]) out.push(...hunk.added);
    else out.push(...hunk.removed);
    i += hunk.removed.length;
  });
  while (i < a.length) out.push(a[i++] as string);
  return out.join("");
}

const show = (line: string) => line.replace(/\r?\n$/, "");

/** The hunk as unified-diff lines, with up to `context` unchanged old lines around it. */
export function hunkLines(oldText: string | null, hunk: Hunk, context = 2): string[] {
  const a = splitKeepingEnds(oldText ?? "");
  const from = Math.max(0, hunk.oldStart - context);
  const to = Math.min(a.length, hunk.oldStart + hunk.removed.length + context);
  const before = a.slice(from, hunk.oldStart);
  const after = a.slice(hunk.oldStart + hunk.removed.length, to);
  const oldCount = before.length + hunk.removed.length + after.length;
  const newCount = before.length + hunk.added.length + after.length;
  const oldFirst = oldCount === 0 ? from : from + 1;
  const newFirst = newCount === 0 ? hunk.newStart - before.length : hunk.newStart - before.length + 1;
  return [
    `@@ -${oldFirst},${oldCount} +${newFirst},${newCount} @@`,
    ...before.map((line) => ` ${show(line)}`),
    ...hunk.removed.map((line) => `-${show(line)}`),
    ...hunk.added.map((line) => `+${show(line)}`),
    ...after.map((line) => ` ${show(line)}`),
  ];
}

/** What the model reads when some hunks were left out: which, and what they would have done. */
export function rejectedNote(
  path: string,
  oldText: string | null,
  hunks: readonly Hunk[],
  accepted: readonly boolean[],
): string {
  const rejected = hunks.flatMap((_hunk, k) => (accepted[k] ? [] : [k]));
  const kept = hunks.length - rejected.length;
  const parts = [
    `The user accepted only part of this change to ${path}: ${kept} of ` +
      `${hunks.length} hunks were written, and ` +
      `${rejected.length === 1 ? "this hunk was" : "these hunks were"} rejected and ` +
      `not written:`,
  ];
  let budget = 4_000;
  for (const k of rejected) {
    const text = hunkLines(oldText, hunks[k] as Hunk, 0).join("\n");
    if (text.length > budget) {
      parts.push(`(hunk ${k + 1} and the rest are not shown)`);
      break;
    }
    budget -= text.length;
    parts.push(`hunk ${k + 1}:\n${text}`);
  }
  parts.push(
    "The file now holds only the accepted hunks. Read it again before you change it " +
      "further, and do not make the rejected changes again unless the user asks.",
  );
  return parts.join("\n");
}

/** The longest hunk label (a form's checkbox, a permission card's title). */
const MAX_LABEL_CHARS = 160;

/**
 * A hunk in one line, for a checkbox or a title: its `@@` line and its first removed and added
 * lines, hidden characters made visible (oneLine), cut to MAX_LABEL_CHARS.
 */
export function hunkLabel(oldText: string | null, hunk: Hunk): string {
  const [header = "", ...body] = hunkLines(oldText, hunk, 0);
  const firstRemoved = body.find((line) => line.startsWith("-"));
  const firstAdded = body.find((line) => line.startsWith("+"));
  const parts = [header, firstRemoved, firstAdded].filter((part): part is string => part !== undefined);
  return oneLine(parts.join("  "), MAX_LABEL_CHARS);
}

/**
 * The answer to a hunk review: every hunk kept is "once", none is "deny", some is a
 * PartialApproval (the file gets only those; the model reads which were left out; the audit log
 * names them, numbered from 1).
 */
export function hunkAnswer(
  path: string,
  oldText: string | null,
  hunks: readonly Hunk[],
  accepted: readonly boolean[],
): Exclude<Choice, "session"> | PartialApproval {
  const kept = hunks.flatMap((_hunk, k) => (accepted[k] ? [k + 1] : []));
  if (kept.length === hunks.length) return "once";
  if (kept.length === 0) return "deny";
  const rejected = hunks.flatMap((_hunk, k) => (accepted[k] ? [] : [k + 1]));
  return {
    change: { path, oldText, newText: applyHunks(oldText, hunks, accepted) },
    note: rejectedNote(path, oldText, hunks, accepted),
    hunks: { kept, rejected },
  };
}
