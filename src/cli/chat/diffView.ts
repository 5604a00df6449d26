// A preview on the terminal: hidden characters already made visible (questionPreview), diff lines
// coloured, and fitted to the screen: a question's header and choices must stay in view, so the
// preview gets the rows that are left, long diff lines are cut to the width, and a line says how
// much is not shown.
import type { FileChange } from "../../core-types/fileChange.ts";
import { unifiedDiff } from "../../tools/diff.ts";
import type { Style } from "./style.ts";
import { groupedCount } from "../../text/count.ts";

/** Where nothing scrolls away (a pipe, a log), a preview still stops somewhere. */
export const MAX_PREVIEW_LINES = 200;
/** A log keeps long lines, up to this many characters. */
export const MAX_PLAIN_WIDTH = 500;

/** The line a file tool ends its preview with when it stopped the diff early. */
const TOOL_CUT = /^… (\d+) more diff lines not shown$/;

/** True when the text holds a unified diff (a file change's preview). */
export function looksLikeDiff(text: string): boolean {
  return /^--- .*\n\+\+\+ /m.test(text);
}

/** Colours the lines of a unified diff; other lines stay as they are. */
export function colourDiff(text: string, style: Style): string {
  if (!style.enabled) return text;
  return text
    .split("\n")
    .map((line) => {
      if (line.startsWith("+++ ") || line.startsWith("--- ")) return style.bold(line);
      if (line.startsWith("@@")) return style.cyan(line);
      if (line.startsWith("+")) return style.green(line);
      if (line.startsWith("-")) return style.red(line);
      return line;
    })
    .join("\n");
}

/**
 * A change's preview with the whole diff. The tool stops its text at 20,000 characters (a file of
 * one long line then shows none of its content); the change itself has all of it. The lines
 * before the diff (a symlink's note) and its header stay the tool's.
 */
export function wholeDiff(preview: string, change: FileChange | undefined): string {
  const lines = preview.split("\n");
  const header = lines.findIndex((line) => line.startsWith("+++ "));
  if (!change || header < 0 || !TOOL_CUT.test(lines.at(-1) ?? "")) return preview;
  const body = unifiedDiff("-", change.oldText, change.newText, { maxChars: Number.POSITIVE_INFINITY })
    .text.split("\n")
    .slice(2);
  return [...lines.slice(0, header + 1), ...body].join("\n");
}

export interface Fitted {
  /** The lines shown, each within the width when cutting. */
  shown: string[];
  /** How many lines are not shown, counting those the tool already left out. */
  hidden: number;
  /** Some shown line was cut short. */
  cut: boolean;
}

/**
 * The first lines of `text` that fit in `rows` rows of `columns` columns. With `cut`, a longer
 * line is cut to the width and ends in "…" (one row each); without, it takes the rows it wraps to.
 */
export function fitLines(text: string, rows: number, columns: number, cut: boolean): Fitted {
  const lines = text.split("\n");
  let hidden = 0;
  const toolCut = TOOL_CUT.exec(lines.at(-1) ?? "");
  if (toolCut) {
    lines.pop();
    hidden += Number(toolCut[1]);
  }
  const shown: string[] = [];
  let used = 0;
  let wasCut = false;
  for (const line of lines) {
    const chars = [...line];
    const height = cut ? 1 : Math.max(1, Math.ceil(chars.length / columns));
    // The first line is shown whatever its height: a preview never shows nothing.
    if (used + height > rows && shown.length > 0) break;
    used += height;
    if (cut && chars.length > columns) {
      shown.push(`${chars.slice(0, columns - 1).join("")}…`);
      wasCut = true;
    } else {
      shown.push(line);
    }
  }
  return { shown, hidden: hidden + lines.length - shown.length, cut: wasCut };
}

/** What a fitted preview leaves out, and how to see it (`key`), or undefined when nothing is. */
export function fitNote(fitted: Fitted, key: string): string | undefined {
  if (fitted.hidden > 0)
    return (
      `… ${groupedCount(fitted.hidden)} more ` +
      `${fitted.hidden === 1 ? "line" : "lines"} not shown ([${key}] shows all of it)`
    );
  if (fitted.cut) return `(long lines are cut to fit; [${key}] shows them whole)`;
  return undefined;
}

/** Indents every line by `prefix`. */
export function indent(text: string, prefix = "  "): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? line : `${prefix}${line}`))
    .join("\n");
}
