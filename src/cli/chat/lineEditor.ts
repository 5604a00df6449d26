// The prompt's line editor in a raw-mode terminal: typing, moving, deleting, history, multi-line
// input (Alt-Enter or Ctrl-J, a paste, or "\" at the end then Enter), a long paste collapsed to a
// mark (pastes.ts), redrawn in place after each key. The text model is pure (apply()); layout()
// computes where each row and the cursor land, so the drawing can be checked without a terminal.
import type { HistoryEntry } from "../../store/promptHistory.ts";
import type { Key } from "../keys.ts";
import { expandPastes, isLongPaste, pasteMark } from "./pastes.ts";
import { stripAnsi } from "./style.ts";

export type EditResult = "submit" | "interrupt" | "eof" | "toggle-mode" | "clear-screen" | "changed" | "none";

const chars = (text: string) => [...text];
const isWordChar = (char: string | undefined) => char !== undefined && /[\p{L}\p{N}_]/u.test(char);

export class EditBuffer {
  /** The text as code points, so the cursor never splits a character. */
  #chars: string[] = [];
  #cursor = 0;
  /** The collapsed pastes: mark → pasted text. */
  #pastes = new Map<string, string>();
  readonly #history: readonly HistoryEntry[];
  #historyIndex: number;
  #draft: HistoryEntry = { text: "" };

  constructor(history: ReadonlyArray<HistoryEntry | string> = []) {
    this.#history = history.map((entry) => (typeof entry === "string" ? { text: entry } : entry));
    this.#historyIndex = history.length;
  }

  /** The text as shown (long pastes as their marks). */
  get text(): string {
    return this.#chars.join("");
  }

  /** The text as sent: each paste mark replaced by what was pasted. */
  get expanded(): string {
    return expandPastes(this.text, this.#pastes);
  }

  /** The prompt for the history: the text as shown, with the pastes its marks stand for. */
  get entry(): HistoryEntry {
    const text = this.text;
    const pastes = [...this.#pastes].filter(([mark]) => text.includes(mark));
    return pastes.length > 0 ? { text, pastes } : { text };
  }

  /** Sets text and pastes together (a history entry, a draft kept over a mode switch). */
  load(entry: HistoryEntry): void {
    this.#pastes = new Map(entry.pastes ?? []);
    this.set(entry.text);
  }

  /** The cursor as an index into `text` (UTF-16). */
  get cursor(): number {
    return this.#chars.slice(0, this.#cursor).join("").length;
  }

  set(text: string, cursor = chars(text).length): void {
    this.#chars = chars(text);
    this.#cursor = Math.max(0, Math.min(cursor, this.#chars.length));
  }

  /** Replaces text[start, end) (UTF-16 indexes) with `insert`, the cursor after it (a completion). */
  replace(start: number, end: number, insert: string): void {
    const text = this.text;
    const head = text.slice(0, start) + insert;
    this.set(head + text.slice(end), chars(head).length);
  }

  /** Applies one key. "submit" leaves the text in place for the caller to take. */
  apply(key: Key): EditResult {
    switch (key.name) {
      case "char":
        return this.#insert(key.char);
      case "paste":
        return this.#paste(key.text);
      case "newline":
        return this.#insert("\n");
      case "enter": {
        // A line that ends in "\" continues on the next line.
        if (this.#cursor === this.#chars.length && this.#chars.at(-1) === "\\") {
          this.#chars.pop();
          this.#cursor--;
          return this.#insert("\n");
        }
        return "submit";
      }
      case "interrupt":
        return "interrupt";
      case "eof":
        if (this.#chars.length === 0) return "eof";
        return this.#deleteAt(this.#cursor);
      case "backspace": {
        if (this.#cursor === 0) return "none";
        // A paste's mark goes whole: half a mark would send neither the paste nor sense.
        const mark = this.#markBeforeCursor();
        if (mark) {
          this.#chars.splice(this.#cursor - mark.length, mark.length);
          this.#cursor -= mark.length;
          return "changed";
        }
        this.#cursor--;
        return this.#deleteAt(this.#cursor);
      }
      case "delete":
        return this.#deleteAt(this.#cursor);
      case "left":
        return this.#move(this.#cursor - 1);
      case "right":
        return this.#move(this.#cursor + 1);
      case "home":
        return this.#move(this.#lineStart());
      case "end":
        return this.#move(this.#lineEnd());
      case "word-left": {
        let at = this.#cursor;
        while (at > 0 && !isWordChar(this.#chars[at - 1])) at--;
        while (at > 0 && isWordChar(this.#chars[at - 1])) at--;
        return this.#move(at);
      }
      case "word-right": {
        let at = this.#cursor;
        while (at < this.#chars.length && !isWordChar(this.#chars[at])) at++;
        while (at < this.#chars.length && isWordChar(this.#chars[at])) at++;
        return this.#move(at);
      }
      case "delete-word": {
        let at = this.#cursor;
        while (at > 0 && !isWordChar(this.#chars[at - 1])) at--;
        while (at > 0 && isWordChar(this.#chars[at - 1])) at--;
        if (at === this.#cursor) return "none";
        this.#chars.splice(at, this.#cursor - at);
        this.#cursor = at;
        return "changed";
      }
      case "kill-line": {
        const end = this.#lineEnd();
        if (end === this.#cursor) return "none";
        this.#chars.splice(this.#cursor, end - this.#cursor);
        return "changed";
      }
      case "kill-start": {
        const start = this.#lineStart();
        if (start === this.#cursor) return "none";
        this.#chars.splice(start, this.#cursor - start);
        this.#cursor = start;
        return "changed";
      }
      case "up":
        return this.#cursorLine() === 0 ? this.#recall(-1) : this.#moveLine(-1);
      case "down":
        return this.#cursorLine() === this.#lineCount() - 1 ? this.#recall(1) : this.#moveLine(1);
      case "shift-tab":
        return "toggle-mode";
      case "clear-screen":
        return "clear-screen";
      case "tab":
        return this.#insert("  ");
      case "escape":
      case "suspend":
      case "history-search":
      case "cancel":
      case "transcript":
      case "page-up":
      case "page-down":
        return "none";
    }
  }

  /** A long paste goes in as its mark; the text is kept for the sending. */
  #paste(text: string): EditResult {
    if (!isLongPaste(text)) return this.#insert(text);
    const mark = pasteMark(text, new Set(this.#pastes.keys()));
    this.#pastes.set(mark, text);
    return this.#insert(mark);
  }

  /** The paste mark that ends at the cursor, as code points. */
  #markBeforeCursor(): string[] | undefined {
    const before = this.#chars.slice(0, this.#cursor).join("");
    for (const mark of this.#pastes.keys()) if (before.endsWith(mark)) return chars(mark);
    return undefined;
  }

  #insert(text: string): EditResult {
    if (text === "") return "none";
    const added = chars(text);
    this.#chars.splice(this.#cursor, 0, ...added);
    this.#cursor += added.length;
    return "changed";
  }

  #deleteAt(index: number): EditResult {
    if (index < 0 || index >= this.#chars.length) return "none";
    this.#chars.splice(index, 1);
    return "changed";
  }

  #move(to: number): EditResult {
    const next = Math.max(0, Math.min(to, this.#chars.length));
    if (next === this.#cursor) return "none";
    this.#cursor = next;
    return "changed";
  }

  #lineStart(at = this.#cursor): number {
    let start = at;
    while (start > 0 && this.#chars[start - 1] !== "\n") start--;
    return start;
  }

  #lineEnd(at = this.#cursor): number {
    let end = at;
    while (end < this.#chars.length && this.#chars[end] !== "\n") end++;
    return end;
  }

  #cursorLine(): number {
    return this.#chars.slice(0, this.#cursor).filter((char) => char === "\n").length;
  }

  #lineCount(): number {
    return this.#chars.filter((char) => char === "\n").length + 1;
  }

  #moveLine(delta: -1 | 1): EditResult {
    const column = this.#cursor - this.#lineStart();
    const target = delta < 0 ? this.#lineStart() - 1 : this.#lineEnd() + 1;
    const start = this.#lineStart(target);
    return this.#move(Math.min(start + column, this.#lineEnd(target)));
  }

  /** History: -1 older, 1 newer; the text being typed is kept as the newest entry. */
  #recall(delta: -1 | 1): EditResult {
    const next = this.#historyIndex + delta;
    if (next < 0 || next > this.#history.length) return "none";
    if (this.#historyIndex === this.#history.length) this.#draft = this.entry;
    this.#historyIndex = next;
    this.load(next === this.#history.length ? this.#draft : (this.#history[next] as HistoryEntry));
    return "changed";
  }
}

export interface Layout {
  /** What to write after clearing from the prompt's first row. */
  output: string;
  /** The row (from the prompt's first row) and column where the cursor must go. */
  cursorRow: number;
  cursorColumn: number;
  /** The row and column where the output leaves the cursor. */
  endRow: number;
  endColumn: number;
}

/**
 * Where prompt and text land on a terminal `columns` wide: each line of the text after its prompt
 * (the first line's or the continuation's), wrapped. When the text ends exactly at the right
 * margin, a line break is added so the terminal's cursor is where the layout says.
 */
export function layout(prompt: string, continuation: string, text: string, cursor: number, columns: number): Layout {
  const lines = text.split("\n");
  const before = text.slice(0, cursor).split("\n");
  const cursorLine = before.length - 1;
  const cursorOffset = chars(before.at(-1) ?? "").length;
  const parts: string[] = [];
  let row = 0;
  let cursorRow = 0;
  let cursorColumn = 0;
  let endRow = 0;
  let endColumn = 0;
  lines.forEach((line, index) => {
    const prefix = index === 0 ? prompt : continuation;
    const prefixWidth = chars(stripAnsi(prefix)).length;
    const length = prefixWidth + chars(line).length;
    const last = index === lines.length - 1;
    if (index === cursorLine) {
      const position = prefixWidth + cursorOffset;
      cursorRow = row + Math.floor(position / columns);
      cursorColumn = position % columns;
      if (!last && position > 0 && position === length && position % columns === 0) {
        cursorRow--;
        cursorColumn = columns - 1;
      }
    }
    parts.push(prefix + line);
    if (last) {
      const wraps = length > 0 && length % columns === 0;
      if (wraps) parts.push("");
      endRow = row + Math.floor(length / columns);
      endColumn = length % columns;
    } else {
      row += Math.max(1, Math.ceil(length / columns));
    }
  });
  return { output: parts.join("\r\n"), cursorRow, cursorColumn, endRow, endColumn };
}

/** The escape sequences that move the cursor from (fromRow, end) to (toRow, toColumn). */
export function moveCursor(fromRow: number, toRow: number, toColumn: number): string {
  let out = "";
  if (fromRow > toRow) out += `\x1b[${fromRow - toRow}A`;
  else if (toRow > fromRow) out += `\x1b[${toRow - fromRow}B`;
  out += "\r";
  if (toColumn > 0) out += `\x1b[${toColumn}C`;
  return out;
}
