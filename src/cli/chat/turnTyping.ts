// What the user types while a turn runs, on a terminal: a draft line under the spinner. Enter
// queues it (it runs as the next prompt when the turn ends, as Claude Code queues a message);
// Tab steers with it (the running turn's model reads it at its next step, after the running tools
// end: Runtime.steer) — the key Codex users press to send the other way while a task runs. What
// is left in the draft when the turn ends becomes the next prompt's draft. Keys that answer a
// question never reach it (terminalInput.ts routes them).
import type { Key } from "../keys.ts";
import { oneLine } from "../../text/visible.ts";

export interface TurnTypingActions {
  /** Enter: run `text` after the turn; false when it cannot wait (the draft keeps it). */
  queue(text: string): boolean;
  /** Tab: give `text` to the running turn; false when it was refused (the draft keeps it). */
  steer(text: string): boolean;
  /** The draft changed: draw it again. */
  changed(): void;
  /** Ctrl-O: the transcript view over the running turn. */
  transcript?(): void;
}

/** The most a draft holds; more typed or pasted is dropped (a prompt has its own bound later). */
const MAX_DRAFT_CHARS = 1_000_000;

export class TurnDraft {
  #text: string;

  /** `text`: what the last turn left unsent, when a queued prompt runs right after it. */
  constructor(
    private readonly actions: TurnTypingActions,
    text = "",
  ) {
    this.#text = text;
  }

  get text(): string {
    return this.#text;
  }

  /** Takes a key typed during the turn; false for one that is not for the draft (it waits for the next prompt). */
  key(key: Key): boolean {
    switch (key.name) {
      case "char":
        this.#add(key.char);
        return true;
      case "paste":
        this.#add(key.text);
        return true;
      case "newline":
        this.#add("\n");
        return true;
      case "backspace":
        this.#text = [...this.#text].slice(0, -1).join("");
        this.actions.changed();
        return true;
      case "kill-start":
      case "escape":
        this.#text = "";
        this.actions.changed();
        return true;
      case "enter":
        this.#send((text) => this.actions.queue(text));
        return true;
      case "tab":
        this.#send((text) => this.actions.steer(text));
        return true;
      case "transcript":
        this.actions.transcript?.();
        return true;
      case "eof":
      case "shift-tab":
        return false;
      default:
        // Moving the cursor has no meaning in a one-line draft.
        return true;
    }
  }

  /** The row under the spinner: the draft and what its keys do; undefined while nothing is typed. */
  row(): string | undefined {
    if (this.#text === "") return undefined;
    return `› ${oneLine(this.#text, 200)}▏  (Enter: after this turn · Tab: now, at the next step)`;
  }

  #add(text: string): void {
    if (this.#text.length + text.length > MAX_DRAFT_CHARS) return;
    this.#text += text;
    this.actions.changed();
  }

  #send(action: (text: string) => boolean): void {
    if (this.#text.trim() === "") return;
    if (action(this.#text)) this.#text = "";
    this.actions.changed();
  }
}
