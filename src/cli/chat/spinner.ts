// While the model works: a spinner with what runs and the time the turn has taken ("⠹ Running
// $ npm test… 12s · Ctrl-C to stop", "Thinking…" only while the model thinks), the latest line of a running command
// above it, and the status line under it —
// the screen's status rows, drawn again on every tick. It stops for a question (which owns the
// bottom of the screen then) and at the end of the turn.
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";

/** What the spinner says while the model works and nothing else is named. */
export const WORKING = "Working…";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
export const SPINNER_TICK_MS = 100;

export interface SpinnerOptions {
  screen: Screen;
  style: Style;
  /** The status line under the spinner (StatusLine.text). */
  footer: () => string | undefined;
  /** Rows above the spinner while the turn runs: the plan's checklist (planView.ts). */
  above?: () => readonly string[];
  /** What the user types while the turn runs (turnTyping.ts), between the spinner and the status line. */
  typing?: () => string | undefined;
  now?: () => number;
}

export class Spinner {
  readonly #o: SpinnerOptions;
  #started: number | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #progress: string | undefined;
  #frame = 0;
  #label = WORKING;

  constructor(options: SpinnerOptions) {
    this.#o = options;
  }

  get running(): boolean {
    return this.#timer !== undefined;
  }

  /** Starts the turn's clock (kept when already running) and shows the spinner. */
  start(): void {
    this.#started ??= this.#now();
    if (!this.#timer) {
      this.#timer = setInterval(() => this.#draw(), SPINNER_TICK_MS);
      this.#timer.unref?.();
    }
    this.#draw();
  }

  /** A running command's latest line above the spinner; undefined takes it away. */
  progress(line: string | undefined): void {
    this.#progress = line;
    if (this.running) this.#draw();
  }

  /** What runs now ("Thinking…", "Running $ make…", a tool's title); undefined says the model works. */
  label(text: string | undefined): void {
    const next = text ?? WORKING;
    if (next === this.#label) return;
    this.#label = next;
    if (this.running) this.#draw();
  }

  /** Off the screen until the next start (a question); the turn's clock keeps its start. */
  pause(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#progress = undefined;
    this.#o.screen.status(undefined);
  }

  /** The turn ended: off the screen, and the clock starts afresh next turn. */
  stop(): void {
    this.pause();
    this.#started = undefined;
    this.#label = WORKING;
  }

  /** The rows the spinner shows now (for tests and the first draw). */
  text(): string {
    const { style, footer } = this.#o;
    const seconds = Math.floor((this.#now() - (this.#started ?? this.#now())) / 1000);
    const frame = FRAMES[this.#frame % FRAMES.length] as string;
    const rows = [`${style.cyan(frame)} ${style.dim(`${this.#label} ${seconds}s · Ctrl-C to stop`)}`];
    if (this.#progress !== undefined) rows.unshift(this.#progress);
    rows.unshift(...(this.#o.above?.() ?? []));
    const typed = this.#o.typing?.();
    if (typed !== undefined) rows.push(typed);
    const line = footer();
    if (line !== undefined) rows.push(line);
    return rows.join("\n");
  }

  /** Draws the rows again now (the typed draft changed), when the spinner shows. */
  redraw(): void {
    if (this.running) this.#o.screen.status(this.text());
  }

  #draw(): void {
    this.#frame++;
    this.#o.screen.status(this.text());
  }

  #now(): number {
    return (this.#o.now ?? Date.now)();
  }
}
