// What the chat's input received and nobody has read yet: the lines of a pipe, the keys of a
// terminal. A reader waits for the next item, the end of the input, or its own signal.

/** A reader waiting for the next item. */
export type InboxReader<T> = (item: T | undefined) => void;

export class Inbox<T> {
  /** Items not read yet, oldest first (the terminal sets type-ahead aside here during a question). */
  readonly queued: T[] = [];
  #ended = false;
  #waiter: InboxReader<T> | undefined;

  /** `limit`: how many unread items are kept; more are dropped (a key held down, a runaway paste). */
  constructor(private readonly limit = Number.POSITIVE_INFINITY) {}

  /** Hands `item` to a waiting reader, or keeps it for the next one. */
  push(item: T): void {
    if (this.#waiter) this.#deliver(item);
    else if (this.queued.length < this.limit) this.queued.push(item);
  }

  /** The input ended: once what is queued is read, every reader gets undefined. */
  end(): void {
    this.#ended = true;
    this.#deliver(undefined);
  }

  /** The next item; undefined when the input ended or `signal` aborted first. */
  next(signal?: AbortSignal): Promise<T | undefined> {
    if (this.queued.length > 0) return Promise.resolve(this.queued.shift());
    if (this.#ended || signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const onAbort = () => {
        this.#waiter = undefined;
        resolve(undefined);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiter = (item) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(item);
      };
    });
  }

  /**
   * Takes the waiting reader off, for a while: the terminal asks a question aside a prompt being
   * edited, and the keys go to the question meanwhile. attach() gives it back.
   */
  detach(): InboxReader<T> | undefined {
    const reader = this.#waiter;
    this.#waiter = undefined;
    return reader;
  }

  /** Gives a detached reader back: it gets the oldest item kept meanwhile at once, or the end. */
  attach(reader: InboxReader<T>): void {
    this.#waiter = reader;
    if (this.queued.length > 0) this.#deliver(this.queued.shift());
    else if (this.#ended) this.#deliver(undefined);
  }

  #deliver(item: T | undefined): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.(item);
  }
}
