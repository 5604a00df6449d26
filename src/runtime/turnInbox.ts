// A running turn's inbox: the messages the user sends while the turn runs (steering). A front end
// puts a message in; the loop takes every waiting message between two steps — after the running
// tool calls end, never by stopping them — and the model reads them in its next request. The
// inbox is open only while a turn runs: what the loop did not take when the turn ends (a stop, a
// limit) comes back out, for the Runtime to tell the user it was not given to the model.
import type { PromptBlock } from "../core-types/promptBlock.ts";

/** The most messages that wait for one step; one more is refused (a runaway client). */
export const MAX_WAITING_MESSAGES = 16;

export interface SteeringMessage {
  /** Given when the message was put in, so a front end knows it again when the loop takes it. */
  id: number;
  /** What the model reads. */
  text: string;
  /** As the user sent it (an editor's blocks), for the session file and a replay. */
  shown?: readonly PromptBlock[];
}

export type PutResult = { id: number } | { idle: true } | { refused: string };

export class TurnInbox {
  #open = false;
  #waiting: SteeringMessage[] = [];
  #nextId = 1;

  /** A turn began: messages are taken from now on. */
  open(): void {
    this.#open = true;
  }

  /** The turn ended: the messages the loop did not take, which no step will take now. */
  close(): SteeringMessage[] {
    this.#open = false;
    return this.#waiting.splice(0);
  }

  /** A turn runs and takes messages. */
  get isOpen(): boolean {
    return this.#open;
  }

  /** The characters of the messages waiting for the next step. */
  get waitingChars(): number {
    return this.#waiting.reduce((sum, message) => sum + message.text.length, 0);
  }

  /** Puts a message in for the running turn's next step; idle when no turn runs. */
  put(text: string, shown?: readonly PromptBlock[]): PutResult {
    if (!this.#open) return { idle: true };
    if (this.#waiting.length >= MAX_WAITING_MESSAGES)
      return {
        refused:
          `${MAX_WAITING_MESSAGES} messages already wait for the model's next step; wait ` +
          `for it, or stop the turn.`,
      };
    const id = this.#nextId++;
    this.#waiting.push({ id, text, ...(shown && { shown }) });
    return { id };
  }

  /** Every waiting message, oldest first; the inbox is empty after. */
  take(): SteeringMessage[] {
    return this.#waiting.splice(0);
  }
}
