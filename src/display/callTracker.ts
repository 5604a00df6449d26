// The tool calls a front end has shown and which are still running, so a stop can name what it
// ended, wait a moment for their results (the settle window), and close the rest. The terminal
// and the ACP front end keep the same rules: a call the stop ended is cancelled even when its
// command still returned.

export interface TrackedCall {
  id: string;
  title: string;
  /** Run by the provider inside the model's answer: after a stop no result can come. */
  server?: boolean;
  open: boolean;
}

export class CallTracker<Call extends TrackedCall = TrackedCall> {
  readonly #calls = new Map<string, Call>();
  /** Calls open at the stop or started after it: the calls the stop ended. */
  #ended: Map<string, Call> | undefined;
  /** Those of them with no result yet. */
  readonly #waiting = new Set<string>();
  #onSettle: (() => void) | undefined;

  add(call: Omit<Call, "open">): Call {
    const tracked = { ...call, open: true } as Call;
    this.#calls.set(call.id, tracked);
    if (this.#ended) {
      this.#ended.set(call.id, tracked);
      this.#waiting.add(call.id);
    }
    return tracked;
  }

  /** The call while it runs. */
  open(id: string): Call | undefined {
    const call = this.#calls.get(id);
    return call?.open ? call : undefined;
  }

  /** Marks it finished; undefined when it was not running (unknown, or closed by a stop). */
  finish(id: string): Call | undefined {
    const call = this.open(id);
    if (!call) return undefined;
    call.open = false;
    if (this.#waiting.delete(id) && this.#waiting.size === 0) this.#onSettle?.();
    return call;
  }

  /** The turn was stopped: every call running now, or started later, ends because of it. */
  stop(): void {
    if (this.#ended) return;
    this.#ended = new Map([...this.#calls].filter(([, call]) => call.open));
    for (const id of this.#ended.keys()) this.#waiting.add(id);
  }

  get stopped(): boolean {
    return this.#ended !== undefined;
  }

  /** Whether the stop ended this call (it was running, or started after the stop). */
  endedByStop(id: string): boolean {
    return this.#ended?.has(id) ?? false;
  }

  /** The calls the stop ended, in the order they started. */
  ended(): Call[] {
    return [...(this.#ended?.values() ?? [])];
  }

  /** Resolves when every call the stop ended has its result, or after `ms`. */
  settle(ms: number): Promise<void> {
    if (this.#waiting.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#onSettle = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#onSettle = done;
    });
  }

  /** Closes every call still running and returns them (the caller tells the user). */
  closeAll(): Call[] {
    const open = [...this.#calls.values()].filter((call) => call.open);
    for (const call of open) this.finish(call.id);
    return open;
  }

  /** A new turn: the last one's stop no longer applies, and finished calls are forgotten. */
  beginTurn(): void {
    this.#ended = undefined;
    this.#waiting.clear();
    this.#onSettle = undefined;
    for (const [id, call] of this.#calls) if (!call.open) this.#calls.delete(id);
  }
}
