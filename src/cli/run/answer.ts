// `garuda run`'s answer: stdout in text mode, the result line's `text` in JSON mode. A model
// response that breaks off mid-stream is asked again, and the text it streamed is void
// (model_retry with partial: true). Stdout cannot take text back, so the answer is held until its
// response is complete (the response's first tool call, or its step's end) and only then written:
// stdout holds the final answer alone, one response at a time. What the model is doing still
// streams to stderr (thinking, calls), and --format json streams every delta as it comes.
import type { AgentEvent } from "../../core-types/events.ts";
import { safeText } from "../../text/visible.ts";
import type { Screen } from "../chat/screen.ts";

/** A run of text between two other things (a call, thinking, a notice). */
interface Block {
  text: string;
  /** Something else came before it: it starts a line of its own. */
  newLine: boolean;
}

export class Answer {
  #kept = "";
  /** The text of the response being streamed: void if it breaks off and is asked again. */
  #pending: Block[] = [];
  /** Something other than text came since the last text. */
  #broken = false;

  /** `out`: stdout in text mode; undefined in JSON mode (the deltas are JSON lines). */
  constructor(private readonly out: Screen | undefined) {}

  /** The answer so far: the text of every complete response, none of a void one. */
  get text(): string {
    return this.#kept;
  }

  event(event: AgentEvent): void {
    switch (event.type) {
      case "text_delta":
        this.#add(event.text);
        return;
      case "model_retry":
        if (event.partial) this.#void();
        return;
      case "step_end":
        this.#keep();
        return;
      case "title":
        // The session's name, not part of the answer or the log around it.
        return;
      case "tool_call":
        // Calls run after their response is complete: its text stands.
        this.#keep();
        this.#break();
        return;
      default:
        this.#break();
    }
  }

  /** The turn ended (done, stopped, failed): what it streamed last stands. */
  end(): void {
    this.#keep();
    this.out?.endLine();
  }

  #add(text: string): void {
    if (text === "") return;
    const last = this.#pending.at(-1);
    if (last && !this.#broken) last.text += text;
    else this.#pending.push({ text, newLine: this.#broken });
    this.#broken = false;
  }

  #void(): void {
    // The retry starts where the void text started: after a call, on a line of its own.
    this.#broken ||= this.#pending[0]?.newLine ?? false;
    this.#pending = [];
  }

  /** Another line (a call, thinking, a notice) goes to stderr; in a shared log it starts a line of its own. */
  #break(): void {
    this.#broken = true;
    this.out?.endLine();
  }

  #keep(): void {
    for (const block of this.#pending) {
      const separate = block.newLine && this.#kept !== "" && !this.#kept.endsWith("\n");
      this.#kept += `${separate ? "\n" : ""}${block.text}`;
      if (!this.out) continue;
      // The separating line end is already on stdout when a call's line came between.
      if (separate) this.out.endLine();
      this.out.write(safeText(block.text));
    }
    this.#pending = [];
  }
}
