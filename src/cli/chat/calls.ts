// The tool calls the terminal has shown and which are still running, so that a stop (Ctrl-C)
// can name what it ended, wait a moment for their results, and close the rest: the same rules as
// the ACP front end (a call the stop ended is cancelled even when its command still returned).

export interface ShownCall {
  id: string;
  title: string;
  /** Run by the provider inside the model's answer: after a stop no result can come. */
  server?: boolean;
  open: boolean;
}

export class OpenCalls {
  readonly #calls = new Map<string, ShownCall>();
  #ended: Map<string, ShownCall> | undefined;
  readonly #waiting = new Set<string>();
  #onSettle: (() => void) | undefined;

  add(call: Omit<ShownCall, "open">): ShownCall {
    const shown: ShownCall = { ...call, open: true };
    this.#calls.set(call.id, shown);
    if (this.#ended) {
      this.#ended.set(call.id, shown);
      this.#waiting.add(call.id);
    }
    return shown;
  }

  /** The call while it runs. */
  open(id: string): ShownCall | undefined {
    const call = this.#calls.get(id);
    return call?.open ? call : undefined;
  }

  /** Marks it finished; undefined when it was not running (unknown, or closed by a stop). */
  finish(id: string): ShownCall | undefined {
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

  endedByStop(id: string): boolean {
    return this.#ended?.has(id) ?? false;
  }

  /** The calls the stop ended, in the order they started. */
  ended(): ShownCall[] {
    return [...(this.#ended?.values() ?? [])];
  }

  /** Resolves when every call the stop ended has reported, or after `ms`. */
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

  /** Closes every call still running and returns them. */
  closeAll(): ShownCall[] {
    const open = [...this.#calls.values()].filter((call) => call.open);
    for (const call of open) this.finish(call.id);
    return open;
  }

  /** A new turn: the last stop no longer applies; finished calls are forgotten. */
  beginTurn(): void {
    this.#ended = undefined;
    this.#waiting.clear();
    this.#onSettle = undefined;
    for (const [id, call] of this.#calls) if (!call.open) this.#calls.delete(id);
  }
}
