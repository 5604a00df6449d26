// One attempt's own abort controller, tied to the caller's signal, with a watchdog that aborts it
// when the response goes silent for `idleTimeoutMs`. Both model clients stream each attempt
// through one, so a stalled response is closed (and retried) without aborting the caller.

export class IdleWatchdog {
  readonly #request = new AbortController();
  readonly #caller: AbortSignal;
  readonly #idleTimeoutMs: number;
  readonly #forwardAbort: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stalled = false;

  constructor(caller: AbortSignal, idleTimeoutMs: number) {
    this.#caller = caller;
    this.#idleTimeoutMs = idleTimeoutMs;
    this.#forwardAbort = () => this.#request.abort(caller.reason);
    caller.addEventListener("abort", this.#forwardAbort, { once: true });
  }

  /** The signal to give the request: aborted by the caller, or by the watchdog. */
  get signal(): AbortSignal {
    return this.#request.signal;
  }

  /** Whether the watchdog ended the request (the response was silent too long). */
  get stalled(): boolean {
    return this.#stalled;
  }

  /** Something arrived (or the request starts): the silence is counted from now. */
  readonly rearm = (): void => {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#stalled = true;
      this.#request.abort();
    }, this.#idleTimeoutMs);
  };

  /** Ends the watchdog and unties the request from the caller; `close` also aborts the request (its connection). */
  dispose({ close = false } = {}): void {
    clearTimeout(this.#timer);
    this.#caller.removeEventListener("abort", this.#forwardAbort);
    if (close) this.#request.abort();
  }
}
