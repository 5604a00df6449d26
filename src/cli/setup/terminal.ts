import { StringDecoder } from "node:string_decoder";
import { wrapLine } from "../wrap.ts";
import { type Key, parseSetupKeys } from "./keys.ts";

/** The user stopped setup (Ctrl-C, or the terminal closed). Nothing has been written. */
export class SetupCancelled extends Error {
  constructor(readonly exitCode: number) {
    super("Setup cancelled");
    this.name = "SetupCancelled";
  }
}

/** The streams setup talks through: the process's own in the binary. */
export interface SetupIO {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

export function processIO(): SetupIO {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}

/** Both ends are a terminal: the questions can be asked and the key read without echo. */
export function isInteractive(io: SetupIO): boolean {
  return Boolean(io.stdin.isTTY && io.stdout.isTTY && typeof io.stdin.setRawMode === "function");
}

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  accent(text: string): string;
  warn(text: string): string;
}

const plain = (text: string) => text;
const sgr = (code: string) => (text: string) => `\x1b[${code}m${text}\x1b[0m`;

/** Colours for a terminal, none when NO_COLOR is set (https://no-color.org). */
function styleFor(env: Record<string, string | undefined>): Style {
  if (env.NO_COLOR) return { bold: plain, dim: plain, accent: plain, warn: plain };
  return { bold: sgr("1"), dim: sgr("2"), accent: sgr("36"), warn: sgr("33") };
}

/** Printable width of a line: escape sequences take no room. */
export function displayWidth(text: string): number {
  return [...text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")].length;
}

/** Cuts a line to `width` columns, keeping its escape sequences (so a colour still ends). */
export function cutLine(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let out = "";
  let used = 0;
  for (const part of text.split(/(\x1b\[[0-9;?]*[A-Za-z])/)) {
    if (part.startsWith("\x1b[")) {
      out += part;
      continue;
    }
    for (const char of part) {
      if (used >= width - 1) break;
      out += char;
      used++;
    }
  }
  return `${out}…\x1b[0m`;
}

/**
 * A terminal in raw mode for the length of the questions: keys arrive one by one, nothing is
 * echoed, and Ctrl-C is a key (it cancels whatever is waiting, the key check included).
 * `close()` puts the terminal back as it was.
 */
export class TerminalSession {
  readonly style: Style;
  readonly #io: SetupIO;
  readonly #decoder = new StringDecoder("utf8");
  readonly #cancel = new AbortController();
  readonly #queue: Key[] = [];
  #waiting: { resolve: (key: Key) => void; reject: (error: unknown) => void } | undefined;
  #live = 0;
  /** The start of a bracketed paste whose end has not come yet. */
  #pending = "";
  readonly #onData = (chunk: Buffer | string) =>
    this.#receive(typeof chunk === "string" ? chunk : this.#decoder.write(chunk));
  readonly #onEnd = () => this.#stop(130);
  readonly #onSigint = () => this.#stop(130);
  readonly #onSigterm = () => this.#stop(143);

  constructor(io: SetupIO, env: Record<string, string | undefined>) {
    this.#io = io;
    this.style = styleFor(env);
    io.stdin.setRawMode(true);
    io.stdin.on("data", this.#onData);
    io.stdin.on("end", this.#onEnd);
    io.stdin.resume();
    process.on("SIGINT", this.#onSigint);
    process.on("SIGTERM", this.#onSigterm);
  }

  /** Aborts when the user cancels: pass it to anything slow (the key check). */
  get signal(): AbortSignal {
    return this.#cancel.signal;
  }

  get columns(): number {
    const columns = this.#io.stdout.columns;
    return columns && columns > 10 ? columns : 80;
  }

  get rows(): number {
    const rows = this.#io.stdout.rows;
    return rows && rows > 6 ? rows : 24;
  }

  /** Throws SetupCancelled if the user has cancelled. */
  throwIfCancelled(): void {
    if (this.#cancel.signal.aborted) throw this.#cancel.signal.reason;
  }

  /** Cancels setup as Ctrl-C does. */
  cancel(): never {
    this.#stop(130);
    throw this.#cancel.signal.reason;
  }

  #stop(exitCode: number): void {
    if (this.#cancel.signal.aborted) return;
    const error = new SetupCancelled(exitCode);
    this.#cancel.abort(error);
    this.#waiting?.reject(error);
    this.#waiting = undefined;
  }

  #receive(text: string): void {
    const { keys, rest } = parseSetupKeys(this.#pending + text);
    this.#pending = rest;
    for (const key of keys) {
      if (key.name === "interrupt") {
        this.#stop(130);
        return;
      }
      if (this.#waiting) {
        const waiting = this.#waiting;
        this.#waiting = undefined;
        waiting.resolve(key);
      } else {
        this.#queue.push(key);
      }
    }
  }

  /** The next key; rejects with SetupCancelled on Ctrl-C. */
  nextKey(): Promise<Key> {
    this.throwIfCancelled();
    const queued = this.#queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  /** A key already received, if any: lets a prompt take a whole paste before drawing again. */
  queuedKey(): Key | undefined {
    this.throwIfCancelled();
    return this.#queue.shift();
  }

  /** Drops keys typed ahead (an Enter after a paste that ended in a newline). */
  discardTypeahead(): void {
    this.#queue.length = 0;
  }

  /**
   * Writes text that stays on screen. "\r\n" ends each line whether or not raw mode maps newlines;
   * a line wider than the window breaks at words (wrap.ts), not where the terminal cuts it.
   */
  write(text: string): void {
    this.#live = 0;
    const width = this.columns - 1;
    this.#io.stdout.write(
      text
        .split(/\r?\n/)
        .map((line) => wrapLine(line, width))
        .join("\r\n"),
    );
  }

  /** Replaces the lines last drawn by `draw` with these (each cut to the terminal's width). */
  draw(lines: string[]): void {
    const width = this.columns - 1;
    const up = this.#live > 1 ? `\x1b[${this.#live - 1}A` : "";
    const body = lines.map((line) => cutLine(line, width)).join("\r\n");
    this.#io.stdout.write(`${up}\r\x1b[J${body}`);
    this.#live = lines.length;
  }

  /** Ends the live region: the cursor moves below it. */
  commit(): void {
    if (this.#live > 0) this.#io.stdout.write("\r\n");
    this.#live = 0;
  }

  /** Erases the live region (a menu once chosen) and leaves the cursor where it began. */
  erase(): void {
    const up = this.#live > 1 ? `\x1b[${this.#live - 1}A` : "";
    if (this.#live > 0) this.#io.stdout.write(`${up}\r\x1b[J`);
    this.#live = 0;
  }

  hideCursor(hidden: boolean): void {
    this.#io.stdout.write(hidden ? "\x1b[?25l" : "\x1b[?25h");
  }

  close(): void {
    process.off("SIGINT", this.#onSigint);
    process.off("SIGTERM", this.#onSigterm);
    this.#io.stdin.off("data", this.#onData);
    this.#io.stdin.off("end", this.#onEnd);
    this.#io.stdin.setRawMode(false);
    this.#io.stdin.pause();
    this.hideCursor(false);
  }
}
