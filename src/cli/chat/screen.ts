// Where the terminal front ends write: a stream, whether it is a terminal (then a transient
// status line may be drawn and redrawn in place, and raw mode needs "\r\n"), and whether the
// last thing written ended a line, so a new item always starts on a line of its own.
import { displayWidth, splitWide, wrapLine } from "../wrap.ts";
import { stripAnsi } from "./style.ts";

export interface WriteTarget {
  write(text: string): unknown;
  columns?: number;
  rows?: number;
}

export class Screen {
  #atLineStart = true;
  /** What is drawn of the live region now: the streamed answer's unfinished block, then the status rows. */
  #drawn: string[] = [];
  /** The columns the live region was drawn at (a resize reflows its rows). */
  #drawnColumns = 0;
  #tail: readonly string[] = [];
  #status: readonly string[] = [];

  constructor(
    private readonly stream: WriteTarget,
    /** A terminal: status lines are drawn in place. False for pipes and files: plain lines only. */
    readonly live: boolean,
    /** The terminal is in raw mode: every "\n" is written as "\r\n". */
    private readonly rawMode = live,
  ) {}

  get atLineStart(): boolean {
    return this.#atLineStart;
  }

  get columns(): number {
    const columns = this.stream.columns;
    return columns && columns > 10 ? columns : 80;
  }

  get rows(): number {
    const rows = this.stream.rows;
    return rows && rows > 5 ? rows : 24;
  }

  /**
   * Text that stays: the live region is erased first. The tail's owner draws it again after; the
   * status rows come back with the next tail or status.
   */
  write(text: string): void {
    if (text === "") return;
    this.#clearLive();
    this.#tail = [];
    this.#out(text);
    this.#atLineStart = text.endsWith("\n");
  }

  /** Starts a new line unless the cursor is at the start of one. */
  endLine(): void {
    if (!this.#atLineStart) this.write("\n");
  }

  /** A whole line (or several) of its own; on a terminal, a line wider than the window breaks at words. */
  line(text = ""): void {
    this.endLine();
    const width = this.columns - 1;
    const fitted = this.live
      ? text
          .split("\n")
          .map((line) => wrapLine(line, width))
          .join("\n")
      : text;
    this.write(`${fitted}\n`);
  }

  /**
   * Transient lines at the bottom (a running command's latest output, the spinner, the status
   * line), replaced by the next status or erased by the next write. Only on a terminal, and only
   * at a line start. Each row is cut to the window, so none wraps.
   */
  status(text: string | undefined): void {
    if (!this.live) return;
    if (text === undefined) {
      this.#status = [];
      this.#drawLive();
      return;
    }
    if (!this.#atLineStart) return;
    const width = this.columns - 1;
    this.#status = text.split("\n").map((row) => {
      const plain = stripAnsi(row);
      return [...plain].length > width ? `${[...plain].slice(0, width - 1).join("")}…` : row;
    });
    this.#drawLive();
  }

  /**
   * The streamed answer's unfinished block, above the status rows: drawn again in place on every
   * chunk, from its first changed row. A row wider than the window (a URL, a line of code, which
   * stay whole when written for good) is drawn here in pieces that fit, so every row is one.
   */
  tail(rows: readonly string[]): void {
    if (!this.live || !this.#atLineStart) return;
    const width = this.columns - 1;
    this.#tail = rows.flatMap((row) => (displayWidth(row) <= width ? [row] : splitWide(row, width)));
    this.#drawLive();
  }

  /** The window changed size: the live region was reflowed by the terminal, so it is drawn anew. */
  resized(): void {
    if (!this.live || this.#drawn.length === 0) return;
    this.#clearLive();
    this.#drawLive();
  }

  /** Raw bytes for the line editor, which keeps its own cursor (no newline conversion). */
  raw(text: string): void {
    this.stream.write(text);
  }

  /** After the line editor drew and committed a line: the cursor is at a line start. */
  markLineStart(): void {
    this.#atLineStart = true;
    this.#drawn = [];
    this.#tail = [];
    this.#status = [];
  }

  /** Draws tail and status, rewriting only from the first row that changed. */
  #drawLive(): void {
    // The live region never outgrows the window (the cursor cannot go back above its top): the
    // tail's last rows are shown, the rest come whole when its block is written for good.
    const room = Math.max(0, this.rows - 1 - this.#status.length);
    const rows = [...this.#tail.slice(Math.max(0, this.#tail.length - room)), ...this.#status];
    if (this.#drawnColumns !== this.columns) this.#clearLive();
    let same = 0;
    while (same < rows.length && same < this.#drawn.length && rows[same] === this.#drawn[same]) same++;
    if (same === rows.length && same === this.#drawn.length) return;
    const last = this.#drawn.length - 1;
    if (same < this.#drawn.length) {
      this.stream.write(`\r${last > same ? `\x1b[${last - same}A\x1b[J` : "\x1b[K"}${rows.slice(same).join("\r\n")}`);
    } else {
      this.stream.write(`${last >= 0 ? "\r\n" : "\r\x1b[K"}${rows.slice(same).join("\r\n")}`);
    }
    this.#drawn = rows;
    this.#drawnColumns = this.columns;
  }

  /** Erases the live region; the cursor ends at the start of its first row. */
  #clearLive(): void {
    const drawn = this.#drawn;
    if (drawn.length === 0) return;
    // Rows drawn at another width were reflowed by the terminal: each now takes as many rows as it needs.
    const columns = this.columns;
    const rowsOf = (row: string) =>
      this.#drawnColumns === columns ? 1 : Math.max(1, Math.ceil(displayWidth(row) / columns));
    let up = 0;
    drawn.forEach((row, i) => {
      up += i < drawn.length - 1 ? rowsOf(row) : rowsOf(row) - 1;
    });
    this.stream.write(`\r${up > 0 ? `\x1b[${up}A\x1b[J` : "\x1b[K"}`);
    this.#drawn = [];
  }

  #out(text: string): void {
    this.stream.write(this.rawMode ? text.replace(/\r?\n/g, "\r\n") : text);
  }
}
