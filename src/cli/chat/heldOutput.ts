// The chat's stdout, which can be held: while the transcript view covers the screen during a turn
// (turnTranscript.ts), what the turn writes is kept and written when the view closes, in order, so
// the chat's screen is as if it had been written all along. The view itself writes directly.
import type { WriteTarget } from "./screen.ts";

export class HeldOutput implements WriteTarget {
  #held: string[] | undefined;

  constructor(private readonly stream: WriteTarget) {}

  get columns(): number | undefined {
    return this.stream.columns;
  }

  get rows(): number | undefined {
    return this.stream.rows;
  }

  write(text: string): void {
    if (this.#held) this.#held.push(text);
    else this.stream.write(text);
  }

  /** Past any hold (the view's own drawing). */
  direct(text: string): void {
    this.stream.write(text);
  }

  hold(): void {
    this.#held ??= [];
  }

  /** Writes what was held, and from now on writes as it comes. */
  release(): void {
    const held = this.#held;
    this.#held = undefined;
    if (held && held.length > 0) this.stream.write(held.join(""));
  }
}
