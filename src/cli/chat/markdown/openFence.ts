// A fenced code block while it streams, line by line, without the Markdown lexer: each finished
// line is final, so it is highlighted once and written for good; only the last, unfinished line
// is the screen's tail. highlight.js keeps no state between calls, so a batch of new lines is
// highlighted after the last CONTEXT_LINES lines before it (a string or comment opened there
// still colours them) and only the new lines' colours are kept: the cost of a batch does not grow
// with the block.
import type { Style } from "../style.ts";
import { cutRows } from "./code.ts";
import { htmlToLines } from "./highlight.ts";
import type { MarkdownLibraries } from "./libraries.ts";
import { balanceLines } from "./sgr.ts";

/** Lines before a batch that are highlighted again with it, for the state they leave. */
const CONTEXT_LINES = 30;
const TAB = "    ";
/** An opening fence: up to 3 spaces, 3 or more backticks or tildes, then the info string. */
const OPENER = /^( {0,3})(`{3,}|~{3,})/;

export class OpenFence {
  /** The last lines written, for the highlighter's state at the next batch. */
  #context: string[] = [];

  private constructor(
    private readonly libraries: MarkdownLibraries,
    private readonly style: Style,
    readonly language: string,
    /** The fence's characters ("```", "~~~~" …): a closing fence has as many or more of the same. */
    private readonly fence: string,
    /** The opener's indentation: as many leading spaces are taken off each line (CommonMark). */
    private readonly indent: number,
  ) {}

  /** The block opened by `opener` (its first line, without the newline); undefined when it opens no fence. */
  static open(opener: string, language: string, libraries: MarkdownLibraries, style: Style): OpenFence | undefined {
    const match = OPENER.exec(opener);
    if (!match) return undefined;
    return new OpenFence(libraries, style, language, match[2] as string, (match[1] as string).length);
  }

  /** The dim row of the opening fence, naming the language. */
  openerRow(): string {
    return this.style.dim(`\`\`\`${this.language}`);
  }

  /** The dim row of the closing fence. */
  closerRow(): string {
    return this.style.dim("```");
  }

  /** Whether `line` closes the block. */
  closes(line: string): boolean {
    const match = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
    const marks = match?.[1];
    return marks !== undefined && marks[0] === this.fence[0] && marks.length >= this.fence.length;
  }

  /**
   * Finished lines as rows, highlighted after the lines before them: written for good, each whole
   * however wide (the terminal wraps it, so copying gives the line back).
   */
  rows(lines: readonly string[]): string[] {
    if (lines.length === 0) return [];
    const code = lines.map((line) => this.#text(line));
    const context = this.#context;
    const html = this.libraries.highlight([...context, ...code].join("\n"), this.language);
    const coloured = html === undefined ? code : balanceLines(htmlToLines(html, this.style)).slice(context.length);
    this.#context = [...context, ...code].slice(-CONTEXT_LINES);
    return coloured;
  }

  /** The unfinished last line, uncoloured (its words may still change how it is highlighted). */
  tailRows(partial: string, width: number): string[] {
    return partial === "" ? [] : cutRows([this.#text(partial)], width);
  }

  #text(line: string): string {
    let cut = 0;
    while (cut < this.indent && line[cut] === " ") cut++;
    return line.slice(cut).replace(/\t/g, TAB);
  }
}
