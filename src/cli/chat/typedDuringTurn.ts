// What the user types while a turn runs, as the chat keeps it between turns: the prompts queued
// with Enter (run after the turn, in order, at most MAX_QUEUED_PROMPTS), the steering sent with
// Tab (Runtime.steer), and the draft a turn left unsent (the next prompt's draft). Apart from the
// Chat so the prompt loop reads as a loop; TurnDraft (turnTyping.ts) is the draft's keys.
import { MAX_QUEUED_PROMPTS } from "../../runtime/promptQueue.ts";
import type { Runtime } from "../../runtime/runtime.ts";
import { oneLine } from "../../text/visible.ts";
import type { ChatInput } from "./input.ts";
import type { Style } from "./style.ts";
import type { Transcript } from "./transcript.ts";
import { TurnDraft } from "./turnTyping.ts";

export interface TypedDuringTurnDeps {
  input: ChatInput;
  transcript: Transcript;
  style: Style;
  runtime: () => Runtime;
  /** The draft changed: the spinner draws it again. */
  changed: () => void;
  /** Ctrl-O: the transcript view over the running turn. */
  openTranscript: () => void;
}

export class TypedDuringTurn {
  /** What the user types while a turn runs (a terminal only). */
  #typed: TurnDraft | undefined;
  /** Prompts typed during a turn (Enter), to run after it, in order. */
  readonly #queued: string[] = [];
  /** What was typed during the last turn and not sent: the next prompt's draft. */
  #leftover = "";

  constructor(private readonly deps: TypedDuringTurnDeps) {}

  /** The draft's row under the spinner, while a turn runs. */
  row(): string | undefined {
    return this.#typed?.row();
  }

  /** The draft of the running turn, for the transcript view. */
  get draft(): TurnDraft | undefined {
    return this.#typed;
  }

  /** The next queued prompt, to run now. */
  nextQueued(): string | undefined {
    return this.#queued.shift();
  }

  editNext(text: string): void {
    this.#leftover = text;
  }

  takeLeftover(): string {
    const text = this.#leftover;
    this.#leftover = "";
    return text;
  }

  /** While the turn runs, what is typed is a draft: Enter queues it, Tab steers with it (turnTyping.ts). */
  begin(): void {
    this.#typed = this.#typeDuringTurn();
  }

  /** The turn ended: what is left in the draft becomes the next prompt's. */
  end(): void {
    this.deps.input.typeDuringTurn?.(undefined);
    this.#leftover = this.#typed?.text ?? "";
    this.#typed = undefined;
  }

  /** A stop drops what was queued behind the turn, and says so. */
  dropAfterStop(): void {
    if (this.#queued.length === 0) return;
    const count = this.#queued.splice(0).length;
    this.deps.transcript.notice(
      count === 1
        ? "the prompt queued behind this turn was dropped; it did not run."
        : `the ${count} prompts queued behind this turn were dropped; none of them ran.`,
      "warning",
    );
  }

  #typeDuringTurn(): TurnDraft | undefined {
    const { input, transcript, style } = this.deps;
    if (!input.typeDuringTurn) return undefined;
    const queue = (text: string) => {
      if (this.#queued.length >= MAX_QUEUED_PROMPTS) {
        transcript.notice(
          `${MAX_QUEUED_PROMPTS} prompts already wait for this turn; this one stays in your draft.`,
          "warning",
        );
        return false;
      }
      this.#queued.push(text);
      transcript.note(style.dim(`⧗ Queued, runs after this turn: ${oneLine(text, 200)}`));
      return true;
    };
    const typed = new TurnDraft(
      {
        queue,
        steer: (text) => {
          const put = this.deps.runtime().steer(text);
          if ("refused" in put) {
            transcript.notice(put.refused, "warning");
            return false;
          }
          // The turn is ending: the message runs after it instead.
          if ("idle" in put) return queue(text);
          transcript.note(style.dim(`↪ Steering, for the model's next step: ${oneLine(text, 200)}`));
          return true;
        },
        changed: this.deps.changed,
        transcript: this.deps.openTranscript,
      },
      this.takeLeftover(),
    );
    input.typeDuringTurn(typed);
    return typed;
  }
}
