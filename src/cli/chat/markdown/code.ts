// Fenced code as rows: highlighted by highlight.js when it knows the language, one row per line
// however wide (the terminal wraps a long one, so copying it gives the line back whole), between
// dim fence lines naming the language. A top-level block still streaming is drawn line by line by
// openFence.ts; one inside a list or a quote is highlighted once per finished line here: the rows
// of its finished lines are kept, and only its last, unfinished line is drawn anew. Only the live
// region cuts a wide line into rows that fit (cutRows), since it is drawn again and again.
import type { Tokens } from "marked";
import { displayWidth, splitWide } from "../../wrap.ts";
import type { Style } from "../style.ts";
import { htmlToLines } from "./highlight.ts";
import type { MarkdownLibraries } from "./libraries.ts";
import { balanceLines } from "./sgr.ts";

const TAB = "    ";
/** Beyond this many lines a block is shown uncoloured: highlighting it on every line would cost too much. */
const MAX_HIGHLIGHTED_LINES = 2_000;

export class CodeRows {
  /** The finished lines last highlighted, and their rows. */
  #cache: { key: string; rows: string[] } | undefined;

  constructor(
    private readonly style: Style,
    private readonly libraries: MarkdownLibraries,
  ) {}

  rows(code: Tokens.Code): string[] {
    const { style } = this;
    const language = (code.lang ?? "").trim().split(/\s+/)[0] ?? "";
    const indented = code.codeBlockStyle === "indented";
    const closed = indented || /\n? {0,3}(`{3,}|~{3,})[ \t]*\n?$/.test(code.raw.slice(code.raw.indexOf("\n")));
    // An unfinished block: its last line may still grow, the others are final (from the raw
    // text: marked's text of an unclosed fence keeps or drops the last newline unevenly).
    const newline = code.raw.indexOf("\n");
    const body = closed ? code.text : newline < 0 ? "" : code.raw.slice(newline + 1);
    const lines = body.replace(/\t/g, TAB).split("\n");
    const partial = closed ? "" : (lines.pop() ?? "");
    const finished = lines.join("\n");
    const rows: string[] = [];
    if (!indented) rows.push(style.dim(`\`\`\`${language}`));
    if (lines.length > 0) rows.push(...this.#finishedRows(finished, language));
    if (partial !== "") rows.push(partial);
    if (!indented && closed) rows.push(style.dim("```"));
    return rows;
  }

  #finishedRows(text: string, language: string): string[] {
    const key = `${language}\u0000${text}`;
    if (this.#cache?.key === key) return this.#cache.rows;
    const lines = text.split("\n");
    const html = lines.length <= MAX_HIGHLIGHTED_LINES ? this.libraries.highlight(text, language) : undefined;
    const coloured = html === undefined ? lines : htmlToLines(html, this.style);
    const rows = balanceLines(coloured);
    this.#cache = { key, rows };
    return rows;
  }
}

/**
 * Code lines as rows of at most `width` columns, for the live region only: a wider line is cut (code has no word to
 * break at).
 */
export function cutRows(lines: readonly string[], width: number): string[] {
  const rows: string[] = [];
  for (const line of lines) {
    if (displayWidth(line) <= width) rows.push(line);
    else rows.push(...balanceLines(splitWide(line, width)));
  }
  return rows;
}
