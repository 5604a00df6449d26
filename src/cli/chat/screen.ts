// Where the terminal front ends write: a stream, whether it is a terminal (then a transient
// status line may be drawn and redrawn in place, and raw mode needs "\r\n"), and whether the
// last thing written ended a line, so a new item always starts on a line of its own.
import { stripAnsi } from "./style.ts";

export interface WriteTarget {
  write(text: string): unknown;
  columns?: number;
  rows?: number;
}

export class Screen {
  #atLineStart = true;
  #status = false;

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

  write(text: string): void {
    if (text === "") return;
    this.#clearStatus();
    this.#out(text);
    this.#atLineStart = text.endsWith("\n");
  }

  /** Starts a new line unless the cursor is at the start of one. */
  endLine(): void {
    if (!this.#atLineStart) this.write("\n");
  }

  /** A whole line (or several) of its own. */
  line(text = ""): void {
    this.endLine();
    this.write(`${text}\n`);
  }

  /**
   * A transient line at the bottom (a running command's latest output, "Working…"), replaced by
   * the next status or erased by the next write. Only on a terminal, and only at a line start.
   */
  status(text: string | undefined): void {
    if (!this.live) return;
    if (text === undefined) {
      this.#clearStatus();
      return;
    }
    if (!this.#atLineStart) return;
    const width = this.columns - 1;
    const plain = stripAnsi(text);
    const shown = [...plain].length > width ? `${[...plain].slice(0, width - 1).join("")}…` : text;
    this.stream.write(`\r\x1b[K${shown}`);
    this.#status = true;
  }

  /** Raw bytes for the line editor, which keeps its own cursor (no newline conversion). */
  raw(text: string): void {
    this.stream.write(text);
  }

  /** After the line editor drew and committed a line: the cursor is at a line start. */
  markLineStart(): void {
    this.#atLineStart = true;
    this.#status = false;
  }

  #clearStatus(): void {
    if (!this.#status) return;
    this.#status = false;
    this.stream.write("\r\x1b[K");
  }

  #out(text: string): void {
    this.stream.write(this.rawMode ? text.replace(/\r?\n/g, "\r\n") : text);
  }
}
