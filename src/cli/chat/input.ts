// The chat's input. On a terminal: raw mode, the line editor and single keys (TerminalInput). In
// a pipe, or on a terminal that cannot take cursor control (TERM=dumb): one line per prompt or
// answer, SIGINT as Ctrl-C (LineInput). Either way, while a turn runs, Ctrl-C goes to the turn's
// interrupt handler.
import { StringDecoder } from "node:string_decoder";
import type { Key } from "../keys.ts";
import type { CompletionSource } from "./completionSource.ts";
import type { PromptHistory } from "./history.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";
import { Inbox } from "./inbox.ts";

export type PromptResult =
  | { kind: "text"; text: string }
  | { kind: "interrupt" }
  | { kind: "eof" }
  /** Shift-Tab: switch between build and plan; `draft` is the text typed so far. */
  | { kind: "toggle-mode"; draft: string }
  /** Esc Esc on an empty prompt: the rewind list (rewind.ts). */
  | { kind: "rewind" };

export interface ChatInput {
  /** A terminal (keys, line editing) rather than a pipe (lines). */
  readonly interactive: boolean;
  readPrompt(prompt: string, continuation: string, draft?: string): Promise<PromptResult>;
  /**
   * One answer to a question: on a terminal the next key ("y", "enter", "escape" …), in a pipe
   * the next line. Undefined when the input ended or `signal` aborted. On a terminal, keys that
   * come as the question appears (`shown`) are typing for the prompt, not an answer.
   */
  readAnswer(signal: AbortSignal, shown?: QuestionShown): Promise<string | undefined>;
  /**
   * Runs a question while a prompt may be being edited (a background command's network request
   * outside a turn): the prompt leaves the screen and keeps its keys, then comes back as it was.
   */
  aside?<T>(question: () => Promise<T>): Promise<T>;
  /** A line of text (a session number to pick); undefined at the end of input. */
  readLine(prompt: string): Promise<string | undefined>;
  /**
   * A line of text that answers a question (ask_user's own words); undefined at the end of input or when `signal`
   * aborts.
   */
  readText?(prompt: string, signal: AbortSignal): Promise<string | undefined>;
  /**
   * On a terminal: the prompt history (Up/Down, Ctrl-R), Tab's completion and Ctrl-O's transcript, once the session is
   * known.
   */
  useEditing?(editing: EditingSources): void;
  /** On a terminal: a prompt sent without the editor (`garuda "task"`), kept in the history for Up. */
  remember?(text: string): void;
  /** While set, Ctrl-C (or SIGINT) calls this instead of reaching a prompt. */
  onInterrupt(handler: (() => void) | undefined): void;
  /**
   * On a terminal, while a turn runs: keys that answer no question go to `typing` (turnTyping.ts);
   * the keys it does not take wait for the next prompt, as type-ahead. Undefined ends it.
   */
  typeDuringTurn?(typing: TurnTyping | undefined): void;
  close(): void;
}

/** Takes the keys typed while a turn runs; false for a key it leaves for the next prompt. */
/** What the prompt editor reads besides keys. */
export interface EditingSources {
  history?: PromptHistory;
  completion?: CompletionSource;
  /** Ctrl-O: the conversation's lines for the transcript view, and how to colour its own rows. */
  transcript?: { lines: () => readonly string[]; style: Style };
}

export interface TurnTyping {
  key(key: Key): boolean;
}

/** When a question was drawn (performance.now()), and who hears that keys typed as it appeared went to the prompt. */
export interface QuestionShown {
  at: number;
  kept?: () => void;
  /**
   * Each key is an answer of its own (a multi-pick menu: "1", "3", Enter): what follows one is the
   * next answer, not the rest of a typed word (no AnswerTail).
   */
  keyByKey?: boolean;
}

export interface TtyStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  on(event: "data", listener: (chunk: Buffer | string) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  off(event: "data", listener: (chunk: Buffer | string) => void): unknown;
  off(event: "end", listener: () => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/** A pipe, or a terminal in its own line mode: one line per prompt or answer; SIGINT is Ctrl-C. */
export class LineInput implements ChatInput {
  readonly interactive = false;
  readonly #decoder = new StringDecoder("utf8");
  readonly #lines = new Inbox<string>();
  #partial = "";
  #interrupt: (() => void) | undefined;
  #promptInterrupt: (() => void) | undefined;
  readonly #onData = (chunk: Buffer | string) => {
    this.#partial += typeof chunk === "string" ? chunk : this.#decoder.write(chunk);
    const parts = this.#partial.split("\n");
    this.#partial = parts.pop() ?? "";
    for (const part of parts) this.#lines.push(part.replace(/\r$/, ""));
  };
  readonly #onEnd = () => {
    if (this.#partial !== "") this.#lines.push(this.#partial);
    this.#partial = "";
    this.#lines.end();
  };
  readonly #onSigint = () => {
    if (this.#interrupt) this.#interrupt();
    else this.#promptInterrupt?.();
  };

  constructor(
    private readonly stdin: TtyStream,
    private readonly screen: Screen,
    /** A terminal in line mode shows what is typed itself: the prompt goes first, nothing is echoed. */
    private readonly echoed = false,
  ) {
    stdin.on("data", this.#onData);
    stdin.on("end", this.#onEnd);
    stdin.resume();
    process.on("SIGINT", this.#onSigint);
  }

  onInterrupt(handler: (() => void) | undefined): void {
    this.#interrupt = handler;
  }

  async readPrompt(prompt: string): Promise<PromptResult> {
    const interrupted = new AbortController();
    this.#promptInterrupt = () => interrupted.abort();
    try {
      const line = await this.#ask(prompt, interrupted.signal);
      if (interrupted.signal.aborted) return { kind: "interrupt" };
      if (line === undefined) return { kind: "eof" };
      return { kind: "text", text: line };
    } finally {
      this.#promptInterrupt = undefined;
    }
  }

  /** The next line after `prompt`: the terminal shows it as typed; a pipe's transcript gets it after. */
  async #ask(prompt: string, signal?: AbortSignal): Promise<string | undefined> {
    if (this.echoed) {
      this.screen.endLine();
      this.screen.write(prompt);
    }
    const line = await this.#lines.next(signal);
    if (line === undefined) return undefined;
    if (this.echoed) this.screen.markLineStart();
    else this.screen.line(`${prompt}${line}`);
    return line;
  }

  async readAnswer(signal: AbortSignal): Promise<string | undefined> {
    const line = await this.#ask("> ", signal);
    if (line === undefined) return undefined;
    const answer = line.trim().toLowerCase();
    return answer === "" ? "enter" : answer;
  }

  readLine(prompt: string): Promise<string | undefined> {
    return this.#ask(prompt);
  }

  readText(prompt: string, signal: AbortSignal): Promise<string | undefined> {
    return this.#ask(prompt, signal);
  }

  close(): void {
    process.off("SIGINT", this.#onSigint);
    this.stdin.off("data", this.#onData);
    this.stdin.off("end", this.#onEnd);
    this.stdin.pause();
  }
}
