// A question on the terminal takes one key, but people type words: "yes" + Enter answers with
// its "y", and without this the "es" and the Enter would reach the next prompt and be sent to the
// model. AnswerTail decides, key by key, whether what follows an answer key is the rest of the
// answer (dropped) or real type-ahead (given back, in order).
//
// The rule: after the answer key, letters that spell on towards an answer word ("es" of "yes",
// "llow" of "allow") are held; a space or a sign after a whole word of two letters or more ("yes
// please", "no, thanks") holds the rest of the line; Enter ends it all and is dropped with it. Any other key ends the
// tail and everything held is given back with it: "y" then "fix it", or "n" then "ow fix it",
// was type-ahead, not an answer. Keys that stop coming (the tail's idle window, see
// TerminalInput) leave the held ones dropped: a half-typed answer.
import type { Key } from "../keys.ts";

/** Words people type as answers; a question's keys are their first letters. */
const ANSWER_WORDS: readonly string[] = [
  "yes",
  "yeah",
  "yep",
  "yup",
  "no",
  "nope",
  "nah",
  "session",
  "sure",
  "allow",
  "always",
  "accept",
  "all",
  "deny",
  "decline",
  "hunks",
  "once",
  "ok",
  "okay",
];

export type TailStep =
  /** Part of the answer so far: keep it back. */
  | { kind: "hold" }
  /** The answer is over: the held keys and this one (Enter) are dropped. */
  | { kind: "drop" }
  /** The answer is over: these keys, in order, are type-ahead after all. */
  | { kind: "release"; keys: Key[] };

export class AnswerTail {
  #word: string;
  #line = false;
  readonly #held: Key[] = [];

  /** `answer`: the key that answered ("y", "2" …), lower case. */
  constructor(answer: string) {
    this.#word = answer;
  }

  take(key: Key): TailStep {
    if (key.name === "enter") return { kind: "drop" };
    if (this.#line) return this.#hold(key);
    if (key.name === "char") {
      const next = `${this.#word}${key.char.toLowerCase()}`;
      if (ANSWER_WORDS.some((word) => word.startsWith(next))) {
        this.#word = next;
        return this.#hold(key);
      }
      // "yes please", "no, thanks": the rest of the line goes with the answer word. Not after a
      // lone "y": "y" then "/diff" typed at the next prompt is a command.
      if (this.#word.length > 1 && ANSWER_WORDS.includes(this.#word) && !/[\p{L}\p{N}]/u.test(key.char)) {
        this.#line = true;
        return this.#hold(key);
      }
    }
    // Not an answer's rest ("ye" then "l", "no" then "w" of "now"): all of it was type-ahead.
    return { kind: "release", keys: [...this.#held, key] };
  }

  #hold(key: Key): TailStep {
    this.#held.push(key);
    return { kind: "hold" };
  }
}
