// The answer as rendered Markdown while it streams. Finished blocks are written once, for good;
// the block still coming (the last one the lexer sees) is the screen's live tail, drawn again on
// every chunk. A block taller than the window leaves its top rows written for good, so the tail
// never reaches above the screen where it could not be redrawn. Before the libraries are loaded
// (or if they cannot be), the text is shown wrapped but unrendered.
import type { Token } from "marked";
import { safeText } from "../../../text/visible.ts";
import { wrapWords } from "../../wrap.ts";
import type { Screen } from "../screen.ts";
import type { Style } from "../style.ts";
import { type BlockContext, renderBlock } from "./blocks.ts";
import { CodeRows } from "./code.ts";
import type { MarkdownLoader } from "./loader.ts";

/** Rows kept free under the tail: the spinner and the status line, and one to spare. */
const ROWS_BELOW_TAIL = 4;

export interface MarkdownStreamOptions {
  screen: Screen;
  style: Style;
  loader: MarkdownLoader;
}

export class MarkdownStream {
  readonly #o: MarkdownStreamOptions;
  /** The source not written for good yet: the unfinished block, from its start. */
  #pending = "";
  /** Rows of the unfinished block already written for good (it was taller than the window). */
  #frozen = 0;
  /** Something of this answer was written: a blank line in the source becomes a blank row before the next block. */
  #written = false;
  #blank = false;
  #context: BlockContext | undefined;

  constructor(options: MarkdownStreamOptions) {
    this.#o = options;
  }

  /** A chunk of the answer. */
  append(text: string): void {
    if (text === "") return;
    this.#pending += safeText(text.replace(/\r\n?/g, "\n"));
    this.#update(false);
  }

  /** The answer (or this part of it) ended: the unfinished block is written for good. */
  finish(): void {
    if (this.#pending !== "") this.#update(true);
    this.#o.screen.tail([]);
    this.#pending = "";
    this.#frozen = 0;
    this.#written = false;
    this.#blank = false;
  }

  /** The window changed size: the unfinished block is wrapped again to it. */
  resized(): void {
    this.#o.screen.resized();
    if (this.#pending !== "") this.#update(false);
  }

  get #width(): number {
    return this.#o.screen.columns - 1;
  }

  #update(final: boolean): void {
    const ctx = this.#ctx();
    if (!ctx) {
      this.#plain(final);
      return;
    }
    const tokens = (this.#o.loader.libraries as NonNullable<MarkdownLoader["libraries"]>).lex(this.#pending);
    let last = tokens.length - 1;
    while (last >= 0 && tokens[last]?.type === "space") last--;
    if (last < 0) {
      // Only blank lines so far: nothing to show, and nothing to keep before the first block.
      if (!this.#written) this.#pending = "";
      return;
    }
    const done = final ? tokens.length : last;
    let consumed = 0;
    for (let i = 0; i < done; i++) {
      const token = tokens[i] as Token;
      consumed += token.raw.length;
      if (token.type === "space") this.#blank = this.#written;
      else this.#commit(renderBlock(token, this.#width, ctx));
    }
    this.#pending = this.#pending.slice(consumed);
    if (final) return;
    this.#showTail(renderBlock(tokens[last] as Token, this.#width, ctx));
  }

  /** The unfinished block's rows as the tail; those that no longer fit above the status rows are written for good. */
  #showTail(rows: string[]): void {
    const { screen } = this.#o;
    const shown = rows.slice(this.#frozen);
    const room = Math.max(3, screen.rows - ROWS_BELOW_TAIL - (this.#blank ? 1 : 0));
    if (shown.length > room) {
      const over = shown.length - room;
      this.#write(shown.slice(0, over));
      this.#frozen += over;
      shown.splice(0, over);
    }
    screen.tail(this.#blank && shown.length > 0 ? ["", ...shown] : shown);
  }

  /** A finished block: the rows not written yet (all of them, unless it was taller than the window). */
  #commit(rows: string[]): void {
    const rest = rows.slice(this.#frozen);
    this.#frozen = 0;
    this.#write(rest);
  }

  #write(rows: readonly string[]): void {
    if (rows.length === 0) return;
    const blank = this.#blank ? "\n" : "";
    this.#blank = false;
    this.#written = true;
    this.#o.screen.write(`${blank}${rows.join("\n")}\n`);
  }

  /** No libraries (yet): the text wrapped at words, finished lines written, the last one the tail. */
  #plain(final: boolean): void {
    const lines = this.#pending.split("\n");
    const partial = final ? "" : (lines.pop() ?? "");
    if (lines.length > 0) this.#write(lines.flatMap((line) => wrapWords(line, this.#width)));
    this.#pending = partial;
    if (!final) this.#o.screen.tail(partial === "" ? [] : wrapWords(partial, this.#width));
  }

  #ctx(): BlockContext | undefined {
    const libraries = this.#o.loader.libraries;
    if (!libraries) return undefined;
    this.#context ??= { style: this.#o.style, code: new CodeRows(this.#o.style, libraries), lex: libraries.lex };
    return this.#context;
  }
}
