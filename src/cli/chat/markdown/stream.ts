// The answer as rendered Markdown while it streams. Finished blocks are written once, for good;
// the block still coming (the last one the lexer sees) is the screen's live tail. The cost of a
// chunk does not grow with the answer: chunks only add to the source, which is lexed and drawn at
// most once a frame (FRAME_MS), and only from the start of the unfinished block; a fenced code
// block streams line by line without the lexer (openFence.ts); a paragraph, list, quote or table
// taller than CUT_ROWS is cut at a line where a new line, item or row starts (cutPoint.ts), its
// first part written for good, so what is lexed again stays short. Other blocks taller than the window leave their top
// rows written for good, so the tail never reaches above the screen where it could not be
// redrawn. Before the libraries are loaded (or if they cannot be), the text is shown wrapped but
// unrendered.
import type { Token } from "marked";
import { safeText } from "../../../text/visible.ts";
import { wrapWords } from "../../wrap.ts";
import type { Screen } from "../screen.ts";
import type { Style } from "../style.ts";
import { type BlockContext, renderBlock } from "./blocks.ts";
import { CodeRows } from "./code.ts";
import type { MarkdownLoader } from "./loader.ts";
import { OpenFence } from "./openFence.ts";
import { cutPoint } from "./cutPoint.ts";

/** Rows kept free under the tail: the spinner and the status line, and one to spare. */
const ROWS_BELOW_TAIL = 4;
/** At most one draw in this many milliseconds (60 a second); chunks that come meanwhile are drawn together. */
export const FRAME_MS = 16;
/** An unfinished paragraph, list, quote or table taller than this (or half the window) is cut where it can be. */
const CUT_ROWS = 12;
/**
 * Or longer than this: lexing costs far more than in proportion to the length (marked, on lines
 * with emphasis: 1 KB 0.5 ms, 6 KB 150 ms; a list item with 6 KB of lines after it, 1.6 s).
 */
const CUT_CHARS = 1_000;
/**
 * An unfinished block with no place to cut it (a paragraph with a span left open, a code block
 * in a list) is written for good beyond this much source, and what follows starts a block anew.
 */
const MAX_UNFINISHED_CHARS = 2_000;
/** The work a frame does at most; a backlog is drawn over the next frames. */
const FRAME_WORK_MS = 8;
/** At the end of the answer, the most time spent on a backlog in Markdown; the rest is written plain. */
const FINISH_WORK_MS = 30;
/** A code block's lines highlighted in one step. */
const FENCE_STEP_LINES = 200;
/** The most source lexed at once. */
const LEX_WINDOW = 2_000;

/** Where a window of `source` ends: after its last line that fits, or (one long line) at LEX_WINDOW. */
function windowEnd(source: string): number {
  const newline = source.lastIndexOf("\n", LEX_WINDOW - 1);
  if (newline > 0) return newline + 1;
  const code = source.charCodeAt(LEX_WINDOW - 1);
  return code >= 0xd800 && code <= 0xdbff ? LEX_WINDOW - 1 : LEX_WINDOW;
}

export interface MarkdownStreamOptions {
  screen: Screen;
  style: Style;
  loader: MarkdownLoader;
  /** The shortest time between two draws (default FRAME_MS); 0 draws at every chunk. */
  frameMs?: number;
  now?: () => number;
}

export class MarkdownStream {
  readonly #o: MarkdownStreamOptions;
  /**
   * The source not written for good yet: the unfinished block, from its start (in a code block: from its unfinished
   * line).
   */
  #pending = "";
  /** Rows of the unfinished block already written for good (it was taller than the window). */
  #frozen = 0;
  /** Something of this answer was written: a blank line in the source becomes a blank row before the next block. */
  #written = false;
  #blank = false;
  #context: BlockContext | undefined;
  /** The fenced code block being streamed line by line, when the unfinished block is one. */
  #fence: OpenFence | undefined;
  /** A draw is due at the next frame. */
  #timer: ReturnType<typeof setTimeout> | undefined;
  #drawnAt = Number.NEGATIVE_INFINITY;
  /** The turn was stopped (Ctrl-C, Esc): at the end, a backlog not drawn in time is left out, not written plain. */
  #stopped = false;
  /** When the work of this draw must stop (the rest waits for the next frame, or is written plain at the end). */
  #deadline = Number.POSITIVE_INFINITY;

  constructor(options: MarkdownStreamOptions) {
    this.#o = options;
  }

  /**
   * A chunk of the answer, drawn at the next frame: never here, so a burst of chunks (a fast
   * server) costs only their text until the timer, and keys are read between frames.
   */
  append(text: string): void {
    if (text === "") return;
    this.#pending += safeText(text.replace(/\r\n?/g, "\n"));
    const frameMs = this.#o.frameMs ?? FRAME_MS;
    if (frameMs === 0) this.#update(false);
    else this.#schedule(Math.max(0, this.#drawnAt + frameMs - this.#now()));
  }

  /**
   * The user stopped the turn: what came but is not drawn by the end is left out (a line says how
   * much), so the stop is not held up writing thousands of lines no one asked to see.
   */
  stop(): void {
    this.#stopped = true;
  }

  /** The answer (or this part of it) ended: the unfinished block is written for good. */
  finish(): void {
    this.#cancelFrame();
    // A backlog a frame could not draw is drawn as far as FINISH_WORK_MS goes, the rest plain.
    this.#deadline = (this.#o.frameMs ?? FRAME_MS) === 0 ? Number.POSITIVE_INFINITY : this.#now() + FINISH_WORK_MS;
    if (this.#pending !== "") this.#update(true);
    this.#deadline = Number.POSITIVE_INFINITY;
    this.#stopped = false;
    this.#o.screen.tail([]);
    this.#pending = "";
    this.#frozen = 0;
    this.#written = false;
    this.#blank = false;
    this.#fence = undefined;
  }

  /** The window changed size: the unfinished block is wrapped again to it. */
  resized(): void {
    this.#cancelFrame();
    this.#o.screen.resized();
    if (this.#pending !== "" || this.#fence) this.#update(false);
  }

  get #width(): number {
    return this.#o.screen.columns - 1;
  }

  get #room(): number {
    return Math.max(3, this.#o.screen.rows - ROWS_BELOW_TAIL - (this.#blank ? 1 : 0));
  }

  #now(): number {
    return (this.#o.now ?? performance.now)();
  }

  #schedule(wait: number): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#draw();
    }, wait);
  }

  /** A frame: at most FRAME_WORK_MS of work; what is left is drawn at the next one. */
  #draw(): void {
    this.#drawnAt = this.#now();
    this.#deadline = this.#drawnAt + FRAME_WORK_MS;
    this.#update(false);
    const behind = this.#now() > this.#deadline;
    this.#deadline = Number.POSITIVE_INFINITY;
    // Behind: the next frame comes after the keys and the stream have had their turn.
    if (behind) this.#schedule(0);
  }

  #overTime(): boolean {
    return this.#now() > this.#deadline;
  }

  /** At the end, out of time: what is left of the answer, wrapped but not rendered (after a stop: how much it was). */
  #writePlain(): void {
    const lines = this.#pending.split("\n");
    if (this.#stopped)
      this.#write([
        this.#o.style.dim(`(${lines.length.toLocaleString("en-US")} more lines of the answer had come; not shown)`),
      ]);
    else this.#write(lines.flatMap((line) => wrapWords(line, this.#width)));
    this.#pending = "";
    this.#fence = undefined;
  }

  #cancelFrame(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #update(final: boolean): void {
    const ctx = this.#ctx();
    if (!ctx) {
      this.#plain(final);
      return;
    }
    // A code block that closes gives the rest back to the lexer; one that opens takes it again.
    for (;;) {
      if (this.#fence && !this.#streamFence(final)) break;
      if (!this.#fence && !this.#lexed(final, ctx)) break;
    }
    if (final && this.#pending !== "" && this.#overTime()) this.#writePlain();
  }

  /** The open code block's finished lines, written; false while it stays open (the rest is its tail). */
  #streamFence(final: boolean): boolean {
    const fence = this.#fence as OpenFence;
    if (this.#overTime()) return false;
    // A step at a time, so a frame stops when its time is up.
    const step = this.#pending.split("\n", FENCE_STEP_LINES + 1);
    const lines = step.length > FENCE_STEP_LINES ? step.slice(0, FENCE_STEP_LINES) : this.#pending.split("\n");
    const more = step.length > FENCE_STEP_LINES;
    const partial = more ? this.#pending.slice(lines.join("\n").length + 1) : (lines.pop() ?? "");
    const close = lines.findIndex((line) => fence.closes(line));
    const body = close < 0 ? lines : lines.slice(0, close);
    // At the end, an unfinished last line is a line of the block (a closing fence without its newline is not).
    const last = final && !more && close < 0 && partial !== "" && !fence.closes(partial) ? [partial] : [];
    const rows = fence.rows([...body, ...last]);
    if (close < 0 && more) {
      this.#pending = partial;
      this.#writeAfterFrozen(rows);
      return true;
    }
    if (close < 0) {
      this.#pending = partial;
      this.#writeAfterFrozen(rows);
      if (final && partial !== "" && fence.closes(partial)) this.#write([fence.closerRow()]);
      if (!final) this.#showTail(fence.tailRows(partial, this.#width));
      return false;
    }
    this.#writeAfterFrozen([...rows, fence.closerRow()]);
    this.#frozen = 0;
    this.#fence = undefined;
    this.#pending = [...lines.slice(close + 1), partial].join("\n");
    return true;
  }

  /**
   * The pending source lexed, LEX_WINDOW at a time: finished blocks written, the unfinished one
   * shown as the tail (or cut, or taken over as a code block). True when a code block opened and
   * takes the rest.
   */
  #lexed(final: boolean, ctx: BlockContext): boolean {
    const libraries = this.#o.loader.libraries as NonNullable<MarkdownLoader["libraries"]>;
    for (;;) {
      if (this.#overTime()) return false;
      // What came in one frame may be a great deal (a fast server): it is lexed a window at a time.
      const whole = this.#pending.length <= LEX_WINDOW;
      const end = whole ? this.#pending.length : windowEnd(this.#pending);
      const tokens = libraries.lex(this.#pending.slice(0, end));
      let last = tokens.length - 1;
      while (last >= 0 && tokens[last]?.type === "space") last--;
      if (last < 0) {
        // Only blank lines so far: nothing to show, and nothing to keep before the first block.
        if (whole && !this.#written) this.#pending = "";
        if (whole) return false;
        this.#blank = this.#written;
        this.#pending = this.#pending.slice(end);
        continue;
      }
      const done = final && whole ? tokens.length : last;
      let consumed = 0;
      for (let i = 0; i < done; i++) {
        const token = tokens[i] as Token;
        consumed += token.raw.length;
        if (token.type === "space") this.#blank = this.#written;
        else this.#commit(renderBlock(token, this.#width, ctx));
      }
      this.#pending = this.#pending.slice(consumed);
      if (final && whole) return false;
      // The window's last block goes on in the next window.
      if (!whole && consumed > 0) continue;
      const token = tokens[last] as Token;
      const fence = this.#openedFence(token);
      if (fence) {
        const opener = this.#pending.indexOf("\n");
        this.#writeAfterFrozen([fence.openerRow()]);
        this.#fence = fence;
        this.#pending = this.#pending.slice(opener + 1);
        return true;
      }
      const rows = renderBlock(token, this.#width, ctx);
      const long =
        !whole || rows.length - this.#frozen > Math.min(CUT_ROWS, this.#room / 2) || token.raw.length > CUT_CHARS;
      const cut = long ? cutPoint(token) : undefined;
      if (cut !== undefined) {
        // The first part as a block of its own, for good; the rest is the unfinished block now.
        const head = this.#pending.slice(0, cut.at);
        this.#pending = `${cut.header ?? ""}${this.#pending.slice(cut.at)}`;
        for (const part of libraries.lex(head))
          if (part.type !== "space") this.#commit(renderBlock(part, this.#width, ctx));
        // The table's header rows the rest starts with again are on the screen already.
        if (cut.header) this.#frozen = this.#headerRows(cut.header, ctx);
        // A loose list's blank line between the two parts.
        if (/\n[ \t]*\n$/.test(head)) this.#blank = this.#written;
        continue;
      }
      if (!whole || this.#pending.length > MAX_UNFINISHED_CHARS) {
        this.#commit(rows);
        this.#pending = this.#pending.slice(token.raw.length);
        if (this.#pending === "") return false;
        continue;
      }
      this.#showTail(rows);
      return false;
    }
  }

  /** How many rows a table's header takes (its header row and the rule under it). */
  #headerRows(header: string, ctx: BlockContext): number {
    const libraries = this.#o.loader.libraries as NonNullable<MarkdownLoader["libraries"]>;
    const [table] = libraries.lex(header);
    return table ? renderBlock(table, this.#width, ctx).length : 0;
  }

  /** The code block `token` when it is a fence still open whose first line is complete. */
  #openedFence(token: Token): OpenFence | undefined {
    if (token.type !== "code" || token.codeBlockStyle === "indented") return undefined;
    const newline = token.raw.indexOf("\n");
    if (newline < 0) return undefined;
    const rest = token.raw.slice(newline + 1).split("\n");
    const libraries = this.#o.loader.libraries as NonNullable<MarkdownLoader["libraries"]>;
    const language = (token.lang ?? "").trim().split(/\s+/)[0] ?? "";
    const fence = OpenFence.open(token.raw.slice(0, newline), language, libraries, this.#o.style);
    // Closed already (the whole block came in one frame): the lexer's rows are right.
    if (!fence || rest.slice(0, -1).some((line) => fence.closes(line))) return undefined;
    if (rest.length === 1 && fence.closes(rest[0] as string)) return undefined;
    return fence;
  }

  /** The unfinished block's rows as the tail; those that no longer fit above the status rows are written for good. */
  #showTail(rows: string[]): void {
    const { screen } = this.#o;
    const shown = rows.slice(this.#frozen);
    const room = this.#room;
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
    this.#writeAfterFrozen(rows);
    this.#frozen = 0;
  }

  /** Rows of the unfinished block from its start: those already written for good are left out. */
  #writeAfterFrozen(rows: readonly string[]): void {
    const skip = Math.min(this.#frozen, rows.length);
    this.#frozen -= skip;
    this.#write(rows.slice(skip));
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
