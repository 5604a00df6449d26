// The terminal's Asker: the model's question (core-types/question.ts) as a menu — the question
// (hidden characters visible), one numbered line per choice, [t] for an answer in the user's own
// words where free text is allowed, [n] to decline. One choice: its number answers. Several: each
// number picks or unpicks, Enter sends the picks (in a pipe, one line of numbers: "1 3"). Every
// answer goes through checkAnswer like an editor's. It shares the approver's queue, so a question
// and a permission question are never on the screen together; a stopped turn ends it at once.
import {
  type Asker,
  checkAnswer,
  MAX_ANSWER_CHARS,
  type UserAnswer,
  type UserQuestion,
} from "../../core-types/question.ts";
import { oneLine, visible } from "../../text/visible.ts";
import type { ChatInput, QuestionShown } from "./input.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";

export interface TerminalAskerOptions {
  input: ChatInput;
  screen: Screen;
  style: Style;
  /** The approver's queue: one question on the screen at a time (TerminalApprover.oneAtATime). */
  oneAtATime<T>(ask: () => Promise<T>): Promise<T>;
  /** Called before a question is shown (the transcript then names the call again in its result). */
  beforeQuestion?: () => void;
}

const CANCELLED: UserAnswer = { outcome: "cancelled" };

/** The choice numbers in an answer line ("1 3", "2,4"), or undefined when it is not one. */
function numbersIn(answer: string): string[] | undefined {
  if (!/^\d+([\s,]+\d+)*$/.test(answer)) return undefined;
  return answer.split(/[\s,]+/);
}

export class TerminalAsker implements Asker {
  constructor(private readonly options: TerminalAskerOptions) {}

  ask(question: UserQuestion, signal: AbortSignal): Promise<UserAnswer> {
    return this.options.oneAtATime(() => this.#ask(question, signal));
  }

  async #ask(question: UserQuestion, signal: AbortSignal): Promise<UserAnswer> {
    if (signal.aborted) return CANCELLED;
    const { screen, style } = this.options;
    this.options.beforeQuestion?.();
    const menu = this.#show(question);
    const answer = await this.#read(question, signal, menu);
    if (signal.aborted) {
      screen.line(style.red("  → Stopped; not answered."));
      return CANCELLED;
    }
    this.#say(question, answer);
    return answer;
  }

  #show(question: UserQuestion): string {
    const { screen, style, input } = this.options;
    screen.status(undefined);
    screen.endLine();
    const text = visible(question.text).split("\n").join("\n  ");
    screen.line(style.yellow(style.bold(`? ${text}`)));
    for (const [n, choice] of question.choices.entries()) {
      const about = choice.description !== undefined ? style.dim(` — ${oneLine(choice.description, 300)}`) : "";
      screen.line(`  ${style.cyan(`[${n + 1}]`)} ${oneLine(choice.label)}${about}`);
    }
    const keys: string[] = [];
    if (question.freeText) keys.push(question.choices.length > 0 ? "[t] answer in your own words" : "[t] answer");
    keys.push("[n] decline to answer");
    if (question.multiple)
      keys.push(input.interactive ? "numbers pick or unpick, Enter sends" : "(the numbers on one line, then Enter)");
    else if (!input.interactive) keys.push("(type the number or letter, then Enter)");
    const menu = `  ${style.cyan(keys.join("   "))}`;
    screen.line(menu);
    return menu;
  }

  /** Keys (or lines) until an answer; cancelled when the input ends or the turn stops. */
  async #read(question: UserQuestion, signal: AbortSignal, menu: string): Promise<UserAnswer> {
    const { input, screen, style } = this.options;
    const picked = new Set<string>();
    // Keys typed as the menu appeared are the prompt's (TerminalInput's grace window, from the draw on).
    let told = false;
    const shown: QuestionShown = {
      at: performance.now(),
      keyByKey: question.multiple,
      kept: () => {
        if (!told) screen.line(style.dim("  (keys typed as it appeared went to your prompt, not to the question)"));
        told = true;
      },
    };
    for (;;) {
      const key = await input.readAnswer(signal, shown);
      if (key === undefined || signal.aborted) return CANCELLED;
      if (key === "n" || key === "escape") return { outcome: "declined" };
      if (key === "t" && question.freeText) {
        const text = await this.#readText(signal);
        if (text === undefined) return CANCELLED;
        if (text.trim() === "") {
          screen.line(menu);
          continue;
        }
        if (text.length > MAX_ANSWER_CHARS) {
          screen.line(style.red(`  (At most ${MAX_ANSWER_CHARS} characters; that was ${text.length}.)`));
          screen.line(menu);
          continue;
        }
        return checkAnswer(question, [...picked], text);
      }
      const numbers = numbersIn(key);
      if (numbers && question.multiple && numbers.length === 1 && input.interactive) {
        const [value] = numbers as [string];
        if (!question.choices.some((choice) => choice.value === value)) continue;
        if (picked.has(value)) picked.delete(value);
        else picked.add(value);
        screen.line(style.dim(`  picked: ${this.#labels(question, [...picked]) || "none"}`));
        continue;
      }
      if (key === "enter" && question.multiple && picked.size > 0) return checkAnswer(question, [...picked], undefined);
      if (numbers) {
        const answer = checkAnswer(question, numbers, undefined);
        if (answer.outcome === "answered") return answer;
      }
      // Anything else is no answer: a pipe gets the menu again, a terminal waits for a key that is one.
      if (!input.interactive) screen.line(menu);
    }
  }

  /** The user's own words: a line of text; undefined when the turn stops or the input ends. */
  #readText(signal: AbortSignal): Promise<string | undefined> {
    const { input } = this.options;
    return input.readText ? input.readText("  Your answer: ", signal) : input.readLine("  Your answer: ");
  }

  #labels(question: UserQuestion, values: string[]): string {
    return question.choices
      .filter((choice) => values.includes(choice.value))
      .map((choice) => oneLine(choice.label))
      .join(", ");
  }

  #say(question: UserQuestion, answer: UserAnswer): void {
    const { screen, style } = this.options;
    if (answer.outcome !== "answered") {
      screen.line(style.red(answer.outcome === "declined" ? "  → Declined." : "  → No answer."));
      return;
    }
    const parts: string[] = [];
    if (answer.values.length > 0) parts.push(this.#labels(question, answer.values));
    if (answer.text !== undefined) parts.push(`“${oneLine(answer.text, 80)}”`);
    screen.line(style.green(`  → ${parts.join(" — ")}`));
  }
}
