// The chat's input on a terminal: raw mode for the whole chat (keys one by one, no echo, Ctrl-C
// a key, bracketed paste), the line editor for prompts (promptEditor.ts: history, Ctrl-R, Tab,
// collapsed pastes), single keys for questions. While a turn
// runs, Ctrl-C or Esc goes to the turn's interrupt handler (Esc alone: a byte after it within
// ESCAPE_WAIT_MS makes it the start of a key's sequence instead). Keys typed during a turn wait for the next
// prompt (type-ahead), also across a question; so do keys that come as a question appears (the
// grace window), which no one can have meant as its answer; the rest of an answer typed as a word
// ("yes" + Enter) is dropped (AnswerTail). While a turn runs and no question is asked, what is
// typed goes to the turn's draft instead (turnTyping.ts: Enter queues it, Tab steers with it). A question that comes
// while a prompt is being edited
// takes the prompt off the screen and gives it back as it was (aside). Ctrl-Z suspends the chat
// like any terminal program.
import { readFileSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { statFields } from "../../sandbox/procStat.ts";
import { AnswerTail } from "./answerTail.ts";
import type { ChatInput, EditingSources, PromptResult, QuestionShown, TtyStream, TurnTyping } from "./input.ts";
import type { Key } from "../keys.ts";
import { parseKeys } from "../keys.ts";
import type { HistoryEntry } from "../../store/promptHistory.ts";
import type { CompletionSource } from "./completionSource.ts";
import { MemoryHistory, type PromptHistory } from "./history.ts";
import { Inbox } from "./inbox.ts";
import { EditBuffer } from "./lineEditor.ts";
import { editPrompt } from "./promptEditor.ts";
import { PromptView } from "./promptView.ts";
import type { Screen } from "./screen.ts";

/** How long the rest of an answer may take to come, key after key (people type "yes" well within it). */
export const ANSWER_TAIL_MS = 1_000;
const MAX_QUEUED = 4096;
/**
 * How long a lone ESC waits for the rest of a sequence (an arrow is ESC [ A) before it is the Esc
 * key. A terminal sends a key's sequence in one write; over ssh its bytes may come apart, rarely
 * by more than this.
 */
export const ESCAPE_WAIT_MS = 30;
/**
 * How long after a question is drawn a key is still typing for the prompt, not an answer: no one
 * reads a question and answers it sooner, and a key typed on at this pace (a stream of typing)
 * extends the window, so the question takes keys only after a pause of this length.
 */
export const QUESTION_GRACE_MS = 350;

const PASTE_ON = "\x1b[?2004h";
const PASTE_OFF = "\x1b[?2004l";

/** What a key answers: a letter or digit, Enter, Escape, or a word pasted on its own. */
function keyAnswer(key: Key): string | undefined {
  if (key.name === "char") return key.char.toLowerCase();
  if (key.name === "enter" || key.name === "escape") return key.name;
  if (key.name === "paste") {
    const word = key.text.trim().toLowerCase();
    return word !== "" && !/\s/.test(word) ? word : undefined;
  }
  return undefined;
}

/**
 * Whether a shell's job control can stop this process and continue it (Linux: from /proc; else
 * undefined, unknown). It can when the process is in its terminal's foreground job and that job
 * is not the session leader's own group: a shell with job control runs each job in a group of its
 * own. A chat started in a terminal without a shell (it leads the session) would stay stopped.
 */
export function jobControl(stat = readStat): boolean | undefined {
  try {
    const [, , group, session, terminal, foreground] = stat();
    return terminal !== "0" && foreground === group && group !== session;
  } catch {
    return undefined;
  }
}

/** The fields of /proc/self/stat after the command name: state, ppid, pgrp, session, tty_nr, tpgid … */
function readStat(): string[] {
  return statFields(readFileSync("/proc/self/stat", "utf8"));
}

export interface TerminalInputOptions {
  /** Whether a shell can stop and continue this process (default: jobControl()). */
  canStop?: () => boolean;
  /** Stops the process (default: SIGTSTP to its process group, as the terminal's Ctrl-Z would). */
  stop?: () => void;
  /** The idle window of an answer's tail (default ANSWER_TAIL_MS). */
  tailMs?: number;
  /** The status line drawn under the prompt (statusLine.ts). */
  footer?: () => string | undefined;
  /** The grace window after a question is drawn (default QUESTION_GRACE_MS). */
  graceMs?: number;
  /** Styles the selected row of the menu that opens as you type (a colour). */
  mark?: (line: string) => string;
}

export class TerminalInput implements ChatInput {
  readonly interactive = true;
  readonly #decoder = new StringDecoder("utf8");
  readonly #keys = new Inbox<Key>(MAX_QUEUED);
  #pending = "";
  /** The Esc key, unless the rest of a sequence comes before it fires. */
  #escapeTimer: ReturnType<typeof setTimeout> | undefined;
  #interrupt: (() => void) | undefined;
  #tail: { filter: AnswerTail; timer: ReturnType<typeof setTimeout> } | undefined;
  #editing: PromptView | undefined;
  /** While a question is asked aside a prompt, the prompt editor's keys wait for it to end. */
  #asking: Promise<unknown> | undefined;
  #history: PromptHistory = new MemoryHistory();
  #completion: CompletionSource | undefined;
  #transcript: EditingSources["transcript"];
  /** The draft a mode switch took, with its pastes, to give back to the next prompt. */
  #draft: HistoryEntry | undefined;
  /** While a turn runs: what the user types for it (queue or steer), unless a question is asked. */
  #typing: TurnTyping | undefined;
  /** A question waits for its answer key: keys go to it, not to the turn's typing. */
  #answering = false;
  readonly #onData = (chunk: Buffer | string) =>
    this.#receive(typeof chunk === "string" ? chunk : this.#decoder.write(chunk));
  readonly #onEnd = () => this.#keys.end();
  /** A SIGINT from outside (kill -INT) counts as Ctrl-C; in raw mode the key sends none. */
  readonly #onSigint = () => this.#receive("\x03");

  readonly #canStop: () => boolean;
  readonly #stop: () => void;
  readonly #tailMs: number;
  readonly #footer: (() => string | undefined) | undefined;
  readonly #graceMs: number;
  readonly #mark: ((line: string) => string) | undefined;

  constructor(
    private readonly stdin: TtyStream,
    private readonly screen: Screen,
    options: TerminalInputOptions = {},
  ) {
    this.#canStop = options.canStop ?? (() => jobControl() !== false);
    this.#stop = options.stop ?? (() => process.kill(0, "SIGTSTP"));
    this.#tailMs = options.tailMs ?? ANSWER_TAIL_MS;
    this.#footer = options.footer;
    this.#graceMs = options.graceMs ?? QUESTION_GRACE_MS;
    this.#mark = options.mark;
    stdin.setRawMode?.(true);
    stdin.on("data", this.#onData);
    stdin.on("end", this.#onEnd);
    stdin.resume();
    process.on("SIGINT", this.#onSigint);
    // Bracketed paste: a pasted newline is text, not Enter.
    screen.raw(PASTE_ON);
  }

  onInterrupt(handler: (() => void) | undefined): void {
    this.#interrupt = handler;
  }

  /**
   * The project's prompt history (Up/Down, Ctrl-R), Tab's candidates and Ctrl-O's transcript, once the session is
   * known.
   */
  useEditing(editing: EditingSources): void {
    if (editing.history) this.#history = editing.history;
    if (editing.completion) this.#completion = editing.completion;
    if (editing.transcript) this.#transcript = editing.transcript;
  }

  remember(text: string): void {
    this.#history.add({ text });
  }

  #receive(text: string, holdCutEscape = true): void {
    if (this.#escapeTimer) clearTimeout(this.#escapeTimer);
    this.#escapeTimer = undefined;
    const { keys, rest } = parseKeys(this.#pending + text, { holdCutEscape });
    this.#pending = rest;
    if (rest.startsWith("\x1b") && !rest.startsWith("\x1b[200~")) {
      this.#escapeTimer = setTimeout(() => this.#receive("", false), ESCAPE_WAIT_MS);
      this.#escapeTimer.unref?.();
    }
    for (const key of keys) {
      // Esc stops a turn as Ctrl-C does, unless a question waits for it (there it answers deny).
      if ((key.name === "interrupt" || (key.name === "escape" && !this.#answering)) && this.#interrupt)
        this.#interrupt();
      else if (key.name === "suspend") this.#suspend();
      else this.#route(key);
    }
  }

  /** A key after an answer passes its tail first; then it goes to whoever waits, or the queue. */
  #route(key: Key): void {
    const tail = this.#tail;
    if (!tail) {
      this.#enqueue(key);
      return;
    }
    const step = tail.filter.take(key);
    if (step.kind === "hold") {
      tail.timer.refresh();
      return;
    }
    this.#endTail();
    if (step.kind === "release") for (const released of step.keys) this.#enqueue(released);
  }

  #enqueue(key: Key): void {
    if (this.#typing && !this.#answering && this.#typing.key(key)) return;
    this.#keys.push(key);
  }

  typeDuringTurn(typing: TurnTyping | undefined): void {
    this.#typing = typing;
  }

  /** After a one-key answer: what the user goes on typing may be the rest of the word. */
  #startTail(answer: string): void {
    this.#endTail();
    // Keys that stop coming end the tail: what was held is dropped as a half-typed answer.
    const timer = setTimeout(() => this.#endTail(), this.#tailMs);
    timer.unref?.();
    this.#tail = { filter: new AnswerTail(answer), timer };
  }

  #endTail(): void {
    if (this.#tail) clearTimeout(this.#tail.timer);
    this.#tail = undefined;
  }

  /**
   * A question's answer in words (ask_user): the line editor with a history of its own (an answer
   * is not a prompt to recall), its keys ended by the turn's stop as at eof.
   */
  async readText(prompt: string, signal: AbortSignal): Promise<string | undefined> {
    // The key that led here (a question's "t": deny and say why) has no rest to drop: an Enter
    // now ends this line.
    this.#endTail();
    const history = new MemoryHistory();
    const view = new PromptView(this.screen, prompt, "  ", new EditBuffer(history.entries), this.#footer);
    this.screen.endLine();
    view.draw();
    // The answer's keys are its own, not the draft typed under a running turn (typeDuringTurn).
    const answering = this.#answering;
    this.#answering = true;
    try {
      const result = await editPrompt({ view, screen: this.screen, nextKey: () => this.#keys.next(signal), history });
      return result.kind === "text" && !signal.aborted ? result.text : undefined;
    } finally {
      this.#answering = answering;
    }
  }

  async readPrompt(prompt: string, continuation: string, draft = ""): Promise<PromptResult> {
    const view = new PromptView(this.screen, prompt, continuation, new EditBuffer(this.#history.entries), this.#footer);
    const kept = this.#draft;
    this.#draft = undefined;
    if (kept && kept.text === draft) view.buffer.load(kept);
    else view.buffer.set(draft);
    this.screen.endLine();
    view.draw();
    this.#editing = view;
    try {
      const { entry, ...result } = await editPrompt({
        view,
        screen: this.screen,
        nextKey: () => this.#promptKey(),
        history: this.#history,
        ...(this.#completion && { completion: this.#completion }),
        ...(this.#mark && { mark: this.#mark }),
        ...(this.#transcript && { transcript: this.#transcript }),
      });
      if (result.kind === "toggle-mode") this.#draft = entry;
      return result;
    } finally {
      this.#editing = undefined;
    }
  }

  /** The prompt editor's next key: after the question asked aside it, if one is. */
  async #promptKey(): Promise<Key | undefined> {
    while (this.#asking) await this.#asking.catch(() => {});
    return this.#keys.next();
  }

  async aside<T>(question: () => Promise<T>): Promise<T> {
    const editing = this.#editing;
    if (!editing || this.#asking) return question();
    // The editor's pending key goes to it after the question, with the keys kept for it.
    const editor = this.#keys.detach();
    editing.erase();
    this.#editing = undefined;
    const asked = question();
    this.#asking = asked;
    try {
      return await asked;
    } finally {
      this.#asking = undefined;
      this.#editing = editing;
      // A blank row parts the prompt from the answer, as it does every prompt from what came before.
      this.screen.line();
      editing.redraw();
      if (editor) this.#keys.attach(editor);
    }
  }

  async readAnswer(signal: AbortSignal, shown: QuestionShown = { at: performance.now() }): Promise<string | undefined> {
    // Keys typed before the question was shown must not answer it: they are type-ahead for the
    // next prompt, set aside and given back after the answer.
    const ahead = this.#keys.queued.splice(0);
    let answered: string | undefined;
    this.#answering = true;
    try {
      answered = await this.#answerKey(signal, shown, ahead);
      return answered;
    } finally {
      this.#answering = false;
      const after = this.#keys.queued.splice(0);
      // In a turn, the keys of the grace window go on with what was typed for it.
      for (const key of ahead) if (!this.#typing?.key(key)) this.#keys.queued.push(key);
      if (answered !== undefined && !shown.keyByKey && /^[\p{L}\p{N}]$/u.test(answered)) this.#startTail(answered);
      // Keys that came with the answer key (a fast "yes⏎", a paste without brackets) pass its tail.
      for (const key of after) this.#route(key);
    }
  }

  /** The answer key; keys in the grace window go to `ahead`, for the prompt. */
  async #answerKey(signal: AbortSignal, shown: QuestionShown, ahead: Key[]): Promise<string | undefined> {
    let graceEnd = shown.at + this.#graceMs;
    let told = false;
    for (;;) {
      const key = await this.#keys.next(signal);
      // Ctrl-C or Ctrl-D outside a turn (a question at start-up) answers no, grace or not.
      if (!key || key.name === "eof" || key.name === "interrupt") return undefined;
      const now = performance.now();
      if (now < graceEnd) {
        graceEnd = now + this.#graceMs;
        // An Enter at that moment does not send the prompt later: the text waits for the user.
        if (key.name !== "enter") ahead.push(key);
        if (!told) shown.kept?.();
        told = true;
        continue;
      }
      const answer = keyAnswer(key);
      if (answer !== undefined) return answer;
    }
  }

  async readLine(prompt: string): Promise<string | undefined> {
    const result = await this.readPrompt(prompt, "  ");
    return result.kind === "text" ? result.text : undefined;
  }

  /**
   * Ctrl-Z: the terminal as the shell left it, the job stopped (stopJob), then, after `fg`, raw
   * mode again and the prompt redrawn. Where no shell could continue it, the chat says so instead.
   */
  #suspend(): void {
    if (!this.#canStop()) {
      this.#say("(Ctrl-Z: no shell's job control can continue Garuda here, so it does not suspend.)");
      return;
    }
    const editing = this.#editing;
    if (editing) editing.commit();
    else {
      this.screen.status(undefined);
      this.screen.endLine();
    }
    this.screen.raw(PASTE_OFF);
    this.stdin.setRawMode?.(false);
    // The stop takes effect before kill() returns, so what follows runs after `fg`.
    this.#stop();
    this.stdin.setRawMode?.(true);
    this.screen.raw(PASTE_ON);
    editing?.redraw();
  }

  /** A line of its own, above the prompt when one is being edited. */
  #say(text: string): void {
    const editing = this.#editing;
    editing?.erase();
    this.screen.line(text);
    editing?.redraw();
  }

  close(): void {
    this.#endTail();
    if (this.#escapeTimer) clearTimeout(this.#escapeTimer);
    process.off("SIGINT", this.#onSigint);
    this.screen.raw(PASTE_OFF);
    this.stdin.off("data", this.#onData);
    this.stdin.off("end", this.#onEnd);
    this.stdin.setRawMode?.(false);
    this.stdin.pause();
  }
}
