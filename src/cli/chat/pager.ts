// A full-screen view of long text (the transcript, Ctrl-O), as a pager has it: the terminal's
// alternate screen, so leaving it gives back the chat exactly as it was; it opens at the end.
// Up/Down (k/j) move a line, PgUp/PgDn (b/Space) a page, Home/End (g/G) to either end; q, Esc or
// Ctrl-O again leaves. Lines wider than the window are cut into rows that fit.
import { displayWidth, splitWide } from "../wrap.ts";
import type { Key } from "../keys.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";

export interface PagerDeps {
  screen: Screen;
  style: Style;
  /** The next key; undefined when the terminal closed. */
  nextKey: () => Promise<Key | undefined>;
  /** Named in the bottom row ("Transcript"). */
  title: string;
  /** Where the view draws; the screen's raw output unless given (past a held output). */
  write?: (text: string) => void;
}

const ENTER_ALTERNATE = "\x1b[?1049h\x1b[?25l";
const LEAVE_ALTERNATE = "\x1b[?25h\x1b[?1049l";

/** Shows `lines` until the user leaves; false when the terminal closed meanwhile. */
export async function showPager(lines: readonly string[], deps: PagerDeps): Promise<boolean> {
  const { screen } = deps;
  const write = deps.write ?? ((text: string) => screen.raw(text));
  let top = Number.POSITIVE_INFINITY;
  write(ENTER_ALTERNATE);
  try {
    for (;;) {
      const rows = fitRows(lines, screen.columns);
      const page = Math.max(1, screen.rows - 1);
      const last = Math.max(0, rows.length - page);
      top = Math.max(0, Math.min(top, last));
      draw(rows, top, page, deps, write);
      const key = await deps.nextKey();
      if (!key) return false;
      const move = movement(key, page);
      if (move === "leave") return true;
      if (move === "start") top = 0;
      else if (move === "end") top = last;
      else top = Math.max(0, Math.min(last, top + move));
    }
  } finally {
    write(LEAVE_ALTERNATE);
  }
}

/** Every line as rows that fit the window, one column spare (an empty line stays one row). */
export function fitRows(lines: readonly string[], columns: number): string[] {
  const width = Math.max(1, columns - 1);
  return lines.flatMap((line) => (displayWidth(line) <= width ? [line] : splitWide(line, width)));
}

/** What a key does: rows to move by, to an end, or leave; 0 for a key the pager does not use. */
export function movement(key: Key, page: number): number | "start" | "end" | "leave" {
  const name = key.name === "char" ? key.char : key.name;
  switch (name) {
    case "q":
    case "escape":
    case "transcript":
    case "interrupt":
    case "eof":
      return "leave";
    case "up":
    case "k":
      return -1;
    case "down":
    case "j":
    case "enter":
      return 1;
    case "page-up":
    case "b":
      return -page;
    case "page-down":
    case " ":
      return page;
    case "home":
    case "g":
      return "start";
    case "end":
    case "G":
      return "end";
    default:
      return 0;
  }
}

function draw(
  rows: readonly string[],
  top: number,
  page: number,
  deps: PagerDeps,
  write: (text: string) => void,
): void {
  const { screen, style } = deps;
  const shown = rows.slice(top, top + page);
  while (shown.length < page) shown.push(style.dim("~"));
  const end = Math.min(rows.length, top + page);
  const where = rows.length === 0 ? "empty" : `rows ${top + 1}–${end} of ${rows.length}`;
  const help = `${deps.title} · ${where} · ↑↓ PgUp PgDn Home End · q or Esc to leave`;
  const bottom = displayWidth(help) < screen.columns ? help : splitWide(help, screen.columns - 1)[0];
  // Reset colours at each row's end: a row cut from a coloured line must not paint the next.
  const body = shown.map((row) => `${row}\x1b[0m\x1b[K`).join("\r\n");
  write(`\x1b[H${body}\r\n${style.dim(bottom ?? "")}\x1b[K`);
}
