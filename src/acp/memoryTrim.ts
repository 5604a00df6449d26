// Gives memory back while no turn runs (issue 19.4). A long-running `garuda acp` keeps what its
// busiest moment grew into: JSC keeps the heap's pages and every function's compiled code, and
// Bun.gc(true) frees objects but not those pages (bench/soak.ts: the live heap flat over 100
// sessions, RSS still +20 %). Bun.shrink() (JSC's shrinkFootprintWhenIdle: compiled code dropped,
// a full collection, free pages handed back) brings it back to about its size after the first
// session. That costs a fraction of a second of CPU and the next turn starts colder, so it runs
// only when no turn is running: soon after a session closes (a few times in an editor's day), and
// once after a quiet spell that follows a turn (an editor with one thread open all day). The front
// end then gives back the pages of its binary the agent mapped (afterTrim).

export interface MemoryTrimOptions {
  /** Whether a turn is running in any session: then no trim. */
  busy: () => boolean;
  /** How long after a turn ends, with no other turn begun, the trim runs. */
  idleMs: number;
  /** How long after a session closes (the editor may open the next one at once). */
  closedMs: number;
  /** The trim itself; tests count it. */
  trim?: () => void;
  /**
   * What the front end gives back after the trim: `garuda acp` unmaps its binary's pages
   * (src/cli/binaryPages.ts), which src/acp/ does not load.
   */
  afterTrim?: () => void;
}

/**
 * Bun.shrink is marked deprecated in bun-types but is the one call that returns JSC's pages
 * (Bun.gc(true) alone left the RSS where it was); a Bun without it still gets the collection.
 */
const shrinkHeap = () => {
  Bun.gc(true);
  const { shrink } = Bun as unknown as { shrink?: () => void };
  if (typeof shrink === "function") shrink.call(Bun);
};

export class MemoryTrim {
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Whether anything ran since the last trim: a quiet agent is not trimmed again and again. */
  #used = false;
  readonly #trim: () => void;

  constructor(private readonly options: MemoryTrimOptions) {
    this.#trim = options.trim ?? shrinkHeap;
  }

  /** A turn began: no trim while it runs. */
  turnStarted(): void {
    this.#used = true;
    this.#cancel();
  }

  /** A turn ended: trim once the agent has been quiet for idleMs. */
  turnEnded(): void {
    this.#schedule(this.options.idleMs);
  }

  /** A session closed: what it held is garbage now. */
  sessionClosed(): void {
    this.#used = true;
    this.#schedule(this.options.closedMs);
  }

  /** Shutdown: nothing more to trim. */
  stop(): void {
    this.#cancel();
    this.#used = false;
  }

  #schedule(ms: number): void {
    this.#cancel();
    // unref: a pending trim never keeps the process alive.
    this.#timer = setTimeout(() => this.#run(), ms);
    this.#timer.unref();
  }

  #cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #run(): void {
    this.#timer = undefined;
    // A turn still running (in another session) reschedules at its end.
    if (!this.#used || this.options.busy()) return;
    this.#used = false;
    this.#trim();
    this.options.afterTrim?.();
  }
}
