// Gives memory back while no turn runs (issue 19.4). A long-running `garuda acp` keeps what its
// busiest moment grew into: JSC keeps the heap's pages and every function's compiled code, and
// Bun.gc(true) frees objects but not those pages (bench/soak.ts: the live heap flat over 100
// sessions, RSS still +20 %). Bun.shrink() (JSC's shrinkFootprintWhenIdle: compiled code dropped,
// a full collection, free pages handed back) brings it back to about its size after the first
// session. That costs a fraction of a second of CPU and the next turn starts colder, so it runs
// only when no turn is running: soon after a session closes (a few times in an editor's day), and
// once after a quiet spell that follows a turn (an editor with one thread open all day). The front
// end then gives back the pages of its binary the agent mapped (afterTrim). The ACP server tells it
// when turns begin and end and sessions close (acp/sessions.ts SessionActivity). While turns run,
// the heap watch (heapWatch.ts) keeps their garbage from piling up.
import { HeapWatch } from "./heapWatch.ts";

export interface MemoryTrimOptions {
  /** How long after a turn ends, with no other turn running, the trim runs (default 30 s). */
  idleMs?: number;
  /** How long after a session closes (the editor may open the next one at once; default 0). */
  closedMs?: number;
  /** The trim itself; tests count it. */
  trim?: () => void;
  /** What the front end gives back after the trim: `garuda acp` unmaps its binary's pages (binaryPages.ts). */
  afterTrim?: () => void;
  /** What collects while turns run (default: a HeapWatch); tests give their own. */
  watch?: Pick<HeapWatch, "start" | "stop">;
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

/** After a turn, how long the agent must be quiet before its memory is trimmed. */
const IDLE_MS = 30_000;

export class MemoryTrim {
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Whether anything ran since the last trim: a quiet agent is not trimmed again and again. */
  #used = false;
  /** Turns running now, in every session: no trim while there is one. */
  #running = 0;
  readonly #trim: () => void;
  readonly #idleMs: number;
  readonly #closedMs: number;
  readonly #watch: Pick<HeapWatch, "start" | "stop">;

  constructor(private readonly options: MemoryTrimOptions = {}) {
    this.#watch = options.watch ?? new HeapWatch();
    this.#trim = options.trim ?? shrinkHeap;
    this.#idleMs = options.idleMs ?? IDLE_MS;
    this.#closedMs = options.closedMs ?? 0;
  }

  /** A turn began: no trim while it runs. */
  turnStarted(): void {
    this.#running++;
    this.#used = true;
    this.#cancel();
    this.#watch.start();
  }

  /** A turn ended: trim once the agent has been quiet for idleMs. */
  turnEnded(): void {
    this.#running = Math.max(0, this.#running - 1);
    if (this.#running === 0) this.#watch.stop();
    this.#schedule(this.#idleMs);
  }

  /** A session closed: what it held is garbage now. */
  sessionClosed(): void {
    this.#used = true;
    this.#schedule(this.#closedMs);
  }

  /** Shutdown: nothing more to trim. */
  stop(): void {
    this.#cancel();
    this.#watch.stop();
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
    if (!this.#used || this.#running > 0) return;
    this.#used = false;
    this.#trim();
    this.options.afterTrim?.();
  }
}
