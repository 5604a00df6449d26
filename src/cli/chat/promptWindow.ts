// The rows of a prompt taller than the window that are drawn: as many as fit, around the cursor.
// The terminal cannot move the cursor above the window's top, so a prompt drawn whole would leave
// its upper rows where no redraw reaches them (each key would then draw a new copy further down).
// The window keeps its place while the cursor moves inside it and follows the cursor past its edge.
import type { Layout } from "./lineEditor.ts";
import { stripAnsi } from "./style.ts";

export interface PromptText {
  prompt: string;
  continuation: string;
  text: string;
  columns: number;
}

const chars = (text: string) => [...text];

/** Every row of the prompt as the terminal wraps it (the prompt's colours kept on its first row). */
export function promptRows({ prompt, continuation, text, columns }: PromptText): string[] {
  const rows: string[] = [];
  const lines = text.split("\n");
  lines.forEach((line, index) => {
    const prefix = index === 0 ? prompt : continuation;
    const prefixWidth = chars(stripAnsi(prefix)).length;
    const rest = chars(line);
    const firstRoom = Math.max(0, columns - prefixWidth);
    rows.push(prefix + rest.slice(0, firstRoom).join(""));
    for (let at = firstRoom; at < rest.length; at += columns) rows.push(rest.slice(at, at + columns).join(""));
    // Text ending at the right margin: the cursor goes on the row below (as layout() has it).
    const width = prefixWidth + rest.length;
    if (index === lines.length - 1 && width > 0 && width % columns === 0) rows.push("");
  });
  return rows;
}

/**
 * `room` rows of the prompt, the cursor's among them: from `top` (the window drawn last) when the
 * cursor is inside it, else moved just enough to hold the cursor. `full` is the whole prompt's layout.
 */
export function promptWindow(
  prompt: PromptText,
  full: Layout,
  room: number,
  top: number,
): { view: Layout; top: number } {
  const rows = promptRows(prompt);
  let first = Math.min(Math.max(0, top), Math.max(0, rows.length - room));
  if (full.cursorRow < first) first = full.cursorRow;
  if (full.cursorRow >= first + room) first = full.cursorRow - room + 1;
  const shown = rows.slice(first, first + room);
  const last = shown.length - 1;
  return {
    view: {
      output: shown.join("\r\n"),
      cursorRow: full.cursorRow - first,
      cursorColumn: full.cursorColumn,
      endRow: last,
      endColumn: chars(stripAnsi(shown[last] ?? "")).length % prompt.columns,
    },
    top: first,
  };
}
