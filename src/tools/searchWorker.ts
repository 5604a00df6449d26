// A search in a worker thread, seen from the session: files go in as real paths (in batches, with
// at most a few batches in flight so the walk does not run far ahead), outcomes come back in the
// same order. The search ends when every file is answered, when the signal aborts (the worker is
// terminated at once; the session does not wait for it), when its budget of work is spent
// (searchBudget.ts: the worker's CPU time against what it has read), or when the worker fails.
// A pattern that backtracks for seconds per line therefore costs this search its budget and
// nothing else: other sessions, cancel and the event loop go on meanwhile.
import type { FileOutcome, SearchSpec } from "./grepSearch.ts";
import type { FromWorker, ToWorker } from "./grepWorker.ts";
import { allowedMs, type ClockFactory, type SearchBudget, type SpentClock, threadClock } from "./searchBudget.ts";

/** What a search had done when it ended: files answered and bytes read. */
export interface SearchWork {
  files: number;
  bytes: number;
}

export type SearchEnd =
  | { kind: "done" }
  | { kind: "cancelled" }
  /** `spentMs` of the clock's kind (CPU time of the worker, or wall time where there is none). */
  | { kind: "over_budget"; spentMs: number; clock: SpentClock["kind"]; work: SearchWork; budget: SearchBudget }
  | { kind: "failed"; message: string };

/**
 * Bun's Worker, which can be ref'd and unref'd. Spelt out because a dependency's types
 * (highlight.js) bring in the DOM lib, whose global Worker has neither.
 */
type BunWorker = Worker & { ref(): void; unref(): void };

export interface SearchWorkerOptions {
  spec: SearchSpec;
  signal: AbortSignal;
  /** The work the whole search may do. */
  budget: SearchBudget;
  /** How the worker's spending is measured (default: its CPU time; tests slow or speed it). */
  clock?: ClockFactory;
  /** Where the thread comes from and goes back to (one per session's file tools). */
  pool: SearchThreads;
}

/** How often the worker's spending is looked at. */
const CHECK_MS = 100;
const BATCH_FILES = 256;
const MAX_BATCHES_IN_FLIGHT = 4;

/**
 * Inside a compiled binary modules live under this URL (Bun's $bunfs); scripts/buildTargets.ts builds with --root src.
 */
const COMPILED_ROOT = "file:///$bunfs/root/";

/** The worker's module: beside this file when run from source, at its place under src/ in a compiled binary. */
export function searchWorkerUrl(here = import.meta.url): string {
  // Never a relative path: a compiled binary would look for a missing one in the working directory (the project).
  return here.startsWith(COMPILED_ROOT) ? `${COMPILED_ROOT}tools/grepWorker.ts` : new URL("./grepWorker.ts", here).href;
}

/** How long a finished search's thread is kept for the next search (starting one costs tens of ms). */
const IDLE_MS = 30_000;

/**
 * The worker threads of one session's searches: a thread whose search finished normally is kept
 * for the next (one at most, ended after IDLE_MS, never keeping the process alive); a thread whose
 * search was cancelled, ran out of time or failed is terminated, since it may still be busy.
 */
export class SearchThreads {
  #idle: { worker: BunWorker; timer: ReturnType<typeof setTimeout> } | undefined;

  take(): BunWorker {
    const idle = this.#idle;
    if (idle) {
      this.#idle = undefined;
      clearTimeout(idle.timer);
      idle.worker.ref();
      return idle.worker;
    }
    return new Worker(searchWorkerUrl()) as BunWorker;
  }

  giveBack(worker: BunWorker): void {
    worker.onmessage = null;
    worker.onerror = null;
    if (this.#idle) return worker.terminate();
    worker.unref();
    const timer = setTimeout(() => {
      if (this.#idle?.worker === worker) this.#idle = undefined;
      worker.terminate();
    }, IDLE_MS);
    timer.unref();
    this.#idle = { worker, timer };
  }
}

type Deliver = (outcome: FileOutcome) => void;

export class SearchWorker {
  readonly #worker: BunWorker;
  #queued: { paths: string[]; deliver: Deliver[] } = { paths: [], deliver: [] };
  readonly #inFlight = new Map<number, Deliver[]>();
  #nextId = 0;
  #end: SearchEnd | undefined;
  #wake: Array<() => void> = [];
  readonly #checker: ReturnType<typeof setInterval>;
  readonly #budget: SearchBudget;
  readonly #clockFactory: ClockFactory;
  /** Set once the worker has said which thread it is. */
  #clock: SpentClock | undefined;
  readonly #work: SearchWork = { files: 0, bytes: 0 };
  readonly #onAbort: () => void;
  readonly #signal: AbortSignal;
  readonly #pool: SearchThreads;

  constructor(options: SearchWorkerOptions) {
    this.#signal = options.signal;
    this.#pool = options.pool;
    this.#worker = options.pool.take();
    this.#worker.onmessage = (event: MessageEvent<FromWorker>) => this.#receive(event.data);
    this.#worker.onerror = (event: ErrorEvent) =>
      this.#stop({ kind: "failed", message: event.message || "the search worker stopped" });
    this.#onAbort = () => this.#stop({ kind: "cancelled" });
    this.#signal.addEventListener("abort", this.#onAbort, { once: true });
    this.#budget = options.budget;
    this.#clockFactory = options.clock ?? threadClock;
    this.#checker = setInterval(() => this.#checkBudget(), CHECK_MS);
    this.#post({ type: "start", spec: options.spec });
    if (this.#signal.aborted) this.#stop({ kind: "cancelled" });
  }

  /** How the search ended, once it has. */
  get ended(): SearchEnd | undefined {
    return this.#end;
  }

  /**
   * Queues one file; `deliver` gets its outcome, in the order files were added. A promise (to
   * wait for) only while the worker is behind, so the walk does not wait per file. False once the
   * search has ended: stop adding.
   */
  add(realPath: string, deliver: Deliver): boolean | Promise<boolean> {
    if (this.#end) return false;
    this.#queued.paths.push(realPath);
    this.#queued.deliver.push(deliver);
    if (this.#queued.paths.length >= BATCH_FILES) this.#flush();
    return this.#inFlight.size >= MAX_BATCHES_IN_FLIGHT ? this.#catchUp() : true;
  }

  async #catchUp(): Promise<boolean> {
    while (!this.#end && this.#inFlight.size >= MAX_BATCHES_IN_FLIGHT) await this.#waitForChange();
    return this.#end === undefined;
  }

  /** Sends what is queued and waits until every file is answered or the search ends otherwise. */
  async finish(): Promise<SearchEnd> {
    this.#flush();
    while (!this.#end && this.#inFlight.size > 0) await this.#waitForChange();
    this.#stop({ kind: "done" });
    return this.#end as SearchEnd;
  }

  #post(message: ToWorker): void {
    this.#worker.postMessage(message);
  }

  #flush(): void {
    if (this.#end || this.#queued.paths.length === 0) return;
    const id = this.#nextId++;
    this.#inFlight.set(id, this.#queued.deliver);
    this.#post({ type: "files", id, paths: this.#queued.paths });
    this.#queued = { paths: [], deliver: [] };
  }

  #checkBudget(): void {
    if (!this.#clock || this.#end) return;
    const spentMs = this.#clock.spentMs();
    if (spentMs <= allowedMs(this.#budget, this.#work.bytes)) return;
    this.#stop({
      kind: "over_budget",
      spentMs,
      clock: this.#clock.kind,
      work: { ...this.#work },
      budget: this.#budget,
    });
  }

  #receive(message: FromWorker): void {
    if (this.#end) return;
    if (message.type === "failed") return this.#stop({ kind: "failed", message: message.message });
    if (message.type === "started") {
      this.#clock = this.#clockFactory(message.task);
      return;
    }
    this.#work.files += message.outcomes.length;
    this.#work.bytes += message.bytes;
    const deliver = this.#inFlight.get(message.id);
    this.#inFlight.delete(message.id);
    message.outcomes.forEach((outcome, i) => deliver?.[i]?.(outcome));
    this.#notify();
  }

  #waitForChange(): Promise<void> {
    return new Promise((resolve) => this.#wake.push(resolve));
  }

  #notify(): void {
    const waiting = this.#wake;
    this.#wake = [];
    for (const resolve of waiting) resolve();
  }

  #stop(end: SearchEnd): void {
    if (this.#end) return;
    this.#end = end;
    clearInterval(this.#checker);
    this.#signal.removeEventListener("abort", this.#onAbort);
    // Only an idle thread is kept: one that was stopped mid-search may still be running a pattern.
    if (end.kind === "done" && this.#inFlight.size === 0) this.#pool.giveBack(this.#worker);
    else this.#worker.terminate();
    this.#notify();
  }
}
