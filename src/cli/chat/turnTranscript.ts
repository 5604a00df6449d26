// Ctrl-O while a turn runs: the transcript view (pager.ts) over the running turn. The turn goes
// on: what it writes meanwhile is held (heldOutput.ts) and written when the view closes; the keys
// go to the view (Ctrl-C still stops the turn). A question closes the view, so it is seen and
// answered; a turn that ends leaves the view open until the user leaves it.
import type { Key } from "../keys.ts";
import type { HeldOutput } from "./heldOutput.ts";
import { Inbox } from "./inbox.ts";
import type { ChatInput, TurnTyping } from "./input.ts";
import { showPager } from "./pager.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";

export interface TurnTranscriptDeps {
  input: ChatInput;
  output: HeldOutput;
  screen: Screen;
  style: Style;
  lines: () => readonly string[];
  /** Who takes the keys again when the view closes: the turn's draft, if the turn still runs. */
  typing: () => TurnTyping | undefined;
}

export class TurnTranscript {
  #open: { closed: Promise<void>; stop: AbortController } | undefined;

  constructor(private readonly deps: TurnTranscriptDeps) {}

  /** Opens the view, unless it is open. */
  open(): void {
    const { input, output, screen, style } = this.deps;
    if (this.#open || !input.typeDuringTurn) return;
    const keys = new Inbox<Key>();
    const stop = new AbortController();
    input.typeDuringTurn({ key: (key) => (keys.push(key), true) });
    output.hold();
    const closed = showPager(this.deps.lines(), {
      screen,
      style,
      title: "Transcript (the turn goes on)",
      write: (text) => output.direct(text),
      nextKey: () => keys.next(stop.signal),
    })
      .catch(() => {})
      .then(() => {
        this.#open = undefined;
        output.release();
        input.typeDuringTurn?.(this.deps.typing());
      });
    this.#open = { closed, stop };
  }

  /** Closes the view now (a question is asked, the chat closes); resolves once the screen is back. */
  close(): Promise<void> {
    this.#open?.stop.abort();
    return this.closed();
  }

  /** Resolves when the view is closed (at once when it is not open). */
  closed(): Promise<void> {
    return this.#open?.closed ?? Promise.resolve();
  }
}
