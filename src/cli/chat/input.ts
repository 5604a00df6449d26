// The chat's input. On a terminal: raw mode for the whole chat (keys one by one, no echo, Ctrl-C
// a key, bracketed paste), the line editor for prompts, single keys for questions. In a pipe:
// one line per prompt or answer, SIGINT as Ctrl-C. Either way, while a turn runs, Ctrl-C goes to
// the turn's interrupt handler.
import { StringDecoder } from "node:string_decoder";
import { type Key, parseKeys } from "./keys.ts";
import { EditBuffer, layout, moveCursor } from "./lineEditor.ts";
import type { Screen } from "./screen.ts";

export type PromptResult =
  | { kind: "text"; text: string }
  | { kind: "interrupt" }
  | { kind: "eof" }
  /** Shift-Tab: switch between build and plan; `draft` is the text typed so far. */
  | { kind: "toggle-mode"; draft: string };

export interface ChatInput {
  /** A terminal (keys, line editing) rather than a pipe (lines). */
  readonly interactive: boolean;
  readPrompt(prompt: string, continuation: string, draft?: string): Promise<PromptResult>;
  /**
   * One answer to a question: on a terminal the next key ("y", "enter", "escape" …), in a pipe
   * the next line. Undefined when the input ended or `signal` aborted.
   */
  readAnswer(signal: AbortSignal): Promise<string | undefined>;
  /** A line of text (a session number to pick); undefined at the end of input. */
  readLine(prompt: string): Promise<string | undefined>;
  /** While set, Ctrl-C (or SIGINT) calls this instead of reaching a prompt. */
  onInterrupt(handler: (() => void) | undefined): void;
  close(): void;
}

interface TtyStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  on(event: "data", listener: (chunk: Buffer | string) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  off(event: "data", listener: (chunk: Buffer | string) => void): unknown;
  off(event: "end", listener: () => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

const keyAnswer = (key: Key): string | undefined => {
  if (key.name === "char") return key.char.toLowerCase();
  if (key.name === "enter" || key.name === "escape") return key.name;
  return undefined;
};

/** The terminal: raw mode, keys, the line editor. */
export class TerminalInput implements ChatInput {
  readonly interactive = true;
  readonly #decoder = new StringDecoder("utf8");
  readonly #queue: Key[] = [];
  #pending = "";
  #waiter: ((key: Key | undefined) => void) | undefined;
  #interrupt: (() => void) | undefined;
  #ended = false;
  readonly #history: string[] = [];
  readonly #onData = (chunk: Buffer | string) => this.#receive(typeof chunk === "string" ? chunk : this.#decoder.write(chunk));
  readonly #onEnd = () => {
    this.#ended = true;
    this.#deliver(undefined);
  };
  /** A SIGINT from outside (kill -INT) counts as Ctrl-C; in raw mode the key sends none. */
  readonly #onSigint = () => this.#receive("\x03");

  constructor(
    private readonly stdin: TtyStream,
    private readonly screen: Screen,
  ) {
    stdin.setRawMode?.(true);
    stdin.on("data", this.#onData);
    stdin.on("end", this.#onEnd);
    stdin.resume();
    process.on("SIGINT", this.#onSigint);
    // Bracketed paste: a pasted newline is text, not Enter.
    screen.raw("\x1b[?2004h");
  }

  onInterrupt(handler: (() => void) | undefined): void {
    this.#interrupt = handler;
  }

  #receive(text: string): void {
    const { keys, rest } = parseKeys(this.#pending + text);
    this.#pending = rest;
    for (const key of keys) {
      if (key.name === "interrupt" && this.#interrupt) {
        this.#interrupt();
        continue;
      }
      if (this.#waiter) this.#deliver(key);
      else if (this.#queue.length < 4096) this.#queue.push(key);
    }
  }

  #deliver(key: Key | undefined): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.(key);
  }

  /** The next key; undefined when the terminal closed. */
  #nextKey(signal?: AbortSignal): Promise<Key | undefined> {
    const queued = this.#queue.shift();
    if (queued) return Promise.resolve(queued);
    if (this.#ended || signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const onAbort = () => {
        this.#waiter = undefined;
        resolve(undefined);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiter = (key) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(key);
      };
    });
  }

  async readPrompt(prompt: string, continuation: string, draft = ""): Promise<PromptResult> {
    const buffer = new EditBuffer(this.#history);
    buffer.set(draft);
    let row = 0;
    const draw = (final = false) => {
      const cursor = final ? buffer.text.length : buffer.cursor;
      const view = layout(prompt, continuation, buffer.text, cursor, this.screen.columns);
      const up = row > 0 ? `\x1b[${row}A` : "";
      this.screen.raw(`${up}\r\x1b[J${view.output}${moveCursor(view.endRow, view.cursorRow, view.cursorColumn)}`);
      row = view.cursorRow;
    };
    this.screen.endLine();
    draw();
    for (;;) {
      const key = await this.#nextKey();
      if (!key) {
        draw(true);
        this.screen.raw("\r\n");
        this.screen.markLineStart();
        return { kind: "eof" };
      }
      const result = buffer.apply(key);
      switch (result) {
        case "submit": {
          draw(true);
          this.screen.raw("\r\n");
          this.screen.markLineStart();
          const text = buffer.text;
          if (text.trim() !== "" && this.#history.at(-1) !== text) this.#history.push(text);
          return { kind: "text", text };
        }
        case "interrupt":
          draw(true);
          this.screen.raw("^C\r\n");
          this.screen.markLineStart();
          return { kind: "interrupt" };
        case "eof":
          draw(true);
          this.screen.raw("\r\n");
          this.screen.markLineStart();
          return { kind: "eof" };
        case "toggle-mode":
          this.screen.raw(`${row > 0 ? `\x1b[${row}A` : ""}\r\x1b[J`);
          this.screen.markLineStart();
          return { kind: "toggle-mode", draft: buffer.text };
        case "clear-screen":
          this.screen.raw("\x1b[2J\x1b[H");
          row = 0;
          draw();
          break;
        case "changed":
          draw();
          break;
        case "none":
          break;
      }
    }
  }

  async readAnswer(signal: AbortSignal): Promise<string | undefined> {
    // Keys typed before the question was shown must not answer it.
    this.#queue.length = 0;
    for (;;) {
      const key = await this.#nextKey(signal);
      // Ctrl-C or Ctrl-D outside a turn (a question at start-up) answers no.
      if (!key || key.name === "eof" || key.name === "interrupt") return undefined;
      const answer = keyAnswer(key);
      if (answer !== undefined) return answer;
    }
  }

  async readLine(prompt: string): Promise<string | undefined> {
    const result = await this.readPrompt(prompt, "  ");
    return result.kind === "text" ? result.text : undefined;
  }

  close(): void {
    process.off("SIGINT", this.#onSigint);
    this.screen.raw("\x1b[?2004l");
    this.stdin.off("data", this.#onData);
    this.stdin.off("end", this.#onEnd);
    this.stdin.setRawMode?.(false);
    this.stdin.pause();
  }
}

/** A pipe: one line per prompt or answer; SIGINT is Ctrl-C. */
export class LineInput implements ChatInput {
  readonly interactive = false;
  readonly #decoder = new StringDecoder("utf8");
  readonly #lines: string[] = [];
  #partial = "";
  #ended = false;
  #waiter: ((line: string | undefined) => void) | undefined;
  #interrupt: (() => void) | undefined;
  #promptInterrupt: (() => void) | undefined;
  readonly #onData = (chunk: Buffer | string) => {
    this.#partial += typeof chunk === "string" ? chunk : this.#decoder.write(chunk);
    const parts = this.#partial.split("\n");
    this.#partial = parts.pop() ?? "";
    for (const part of parts) this.#push(part.replace(/\r$/, ""));
  };
  readonly #onEnd = () => {
    if (this.#partial !== "") this.#push(this.#partial);
    this.#partial = "";
    this.#ended = true;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.(undefined);
  };
  readonly #onSigint = () => {
    if (this.#interrupt) this.#interrupt();
    else this.#promptInterrupt?.();
  };

  constructor(
    private readonly stdin: TtyStream,
    private readonly screen: Screen,
  ) {
    stdin.on("data", this.#onData);
    stdin.on("end", this.#onEnd);
    stdin.resume();
    process.on("SIGINT", this.#onSigint);
  }

  #push(line: string): void {
    if (this.#waiter) {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter(line);
    } else {
      this.#lines.push(line);
    }
  }

  #next(signal?: AbortSignal): Promise<string | undefined> {
    if (this.#lines.length > 0) return Promise.resolve(this.#lines.shift());
    if (this.#ended || signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const onAbort = () => {
        this.#waiter = undefined;
        resolve(undefined);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiter = (line) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(line);
      };
    });
  }

  onInterrupt(handler: (() => void) | undefined): void {
    this.#interrupt = handler;
  }

  async readPrompt(prompt: string): Promise<PromptResult> {
    const interrupted = new AbortController();
    this.#promptInterrupt = () => interrupted.abort();
    try {
      const line = await this.#next(interrupted.signal);
      if (interrupted.signal.aborted) return { kind: "interrupt" };
      if (line === undefined) return { kind: "eof" };
      // Nothing echoes a pipe: the transcript shows what was asked.
      this.screen.line(`${prompt}${line}`);
      return { kind: "text", text: line };
    } finally {
      this.#promptInterrupt = undefined;
    }
  }

  async readAnswer(signal: AbortSignal): Promise<string | undefined> {
    const line = await this.#next(signal);
    if (line === undefined) return undefined;
    this.screen.line(`> ${line}`);
    const answer = line.trim().toLowerCase();
    return answer === "" ? "enter" : answer;
  }

  async readLine(prompt: string): Promise<string | undefined> {
    const line = await this.#next();
    if (line !== undefined) this.screen.line(`${prompt}${line}`);
    return line;
  }

  close(): void {
    process.off("SIGINT", this.#onSigint);
    this.stdin.off("data", this.#onData);
    this.stdin.off("end", this.#onEnd);
    this.stdin.pause();
  }
}
