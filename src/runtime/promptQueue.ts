// The prompts a user sends while a turn runs, in order: each waits for the turns before it, then
// runs. Both front ends hold one per session (it outlives a runtime prepared again, so it is not
// the Runtime's): the editor's session/prompt requests and the chat's lines typed while the agent
// works. A stop drops every waiting prompt at once; a full queue refuses one more.
/** The most prompts that wait behind a running turn; one more is refused. */
export const MAX_QUEUED_PROMPTS = 8;

export class QueueFullError extends Error {
  constructor() {
    super(
      `${MAX_QUEUED_PROMPTS} prompts already wait for the running turn, the most ` +
        `Garuda keeps. Wait for one to run, or stop the turn (which drops them).`,
    );
  }
}

export class PromptQueue {
  /** A turn holds the session (a waiting prompt is handed it directly, so none can cut in). */
  #running = false;
  /** Each waiting prompt's wake-up: true to run, false when it was dropped. */
  readonly #waiting: Array<(run: boolean) => void> = [];

  /** How many prompts wait. */
  get waiting(): number {
    return this.#waiting.length;
  }

  get running(): boolean {
    return this.#running;
  }

  /** One more prompt would be refused. */
  get full(): boolean {
    return this.#running && this.#waiting.length >= MAX_QUEUED_PROMPTS;
  }

  /**
   * Resolves true once this prompt may run (at once when nothing runs), false when it was
   * dropped or `signal` aborted while it waited. Throws QueueFullError when the queue is full.
   * A true answer must be followed by leave() when the prompt's turn ends.
   */
  enter(signal?: AbortSignal): Promise<boolean> {
    if (!this.#running) {
      this.#running = true;
      return Promise.resolve(true);
    }
    if (signal?.aborted) return Promise.resolve(false);
    if (this.#waiting.length >= MAX_QUEUED_PROMPTS) return Promise.reject(new QueueFullError());
    return new Promise((resolve) => {
      const wake = (run: boolean) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(run);
      };
      const onAbort = () => {
        const at = this.#waiting.indexOf(wake);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(false);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(wake);
    });
  }

  /** The running prompt's turn ended: the next waiting prompt runs, or the session is free. */
  leave(): void {
    const next = this.#waiting.shift();
    if (next) next(true);
    else this.#running = false;
  }

  /** Drops every waiting prompt (each resolves false); how many there were. */
  drop(): number {
    const dropped = this.#waiting.splice(0);
    for (const wake of dropped) wake(false);
    return dropped.length;
  }
}
