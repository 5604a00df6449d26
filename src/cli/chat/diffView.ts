// A preview on the terminal: hidden characters already made visible (previewText), diff lines
// coloured, and a cap on how many lines a question shows.
import type { Style } from "./style.ts";

export const MAX_PREVIEW_LINES = 200;

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

/** At most `max` lines, then a line that says how many more there were. */
export function capLines(text: string, max = MAX_PREVIEW_LINES): string {
  const lines = text.split("\n");
  if (lines.length <= max) return text;
  return [...lines.slice(0, max), `… ${lines.length - max} more lines not shown`].join("\n");
}

/** Indents every line by `prefix`. */
export function indent(text: string, prefix = "  "): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? line : `${prefix}${line}`))
    .join("\n");
}
