// Gives memory back while no turn runs (issue 19.4). A long-running `garuda acp` keeps what its
// busiest moment grew into: JSC keeps the heap's pages and every function's compiled code, and
// Bun.gc(true) frees objects but not those pages (bench/soak.ts: the live heap flat over 100
// sessions, RSS still +20 %). Bun.shrink() (JSC's shrinkFootprintWhenIdle: compiled code dropped,
// a full collection, free pages handed back) brings it back to about its size after the first
// session. That costs a fraction of a second of CPU and the next turn starts colder, so it runs
// only when no turn is running: soon after a session closes (a few times in an editor's day), and
// once after a quiet spell that follows a turn (an editor with one thread open all day). The front
// end then gives back the pages of its binary the agent mapped (afterTrim). The ACP server tells it
// when turns begin and end and sessions close (acp/sessions.ts SessionActivity).
//
// Before that, soon after the last running turn ends, one full collection (no shrink: compiled
// code stays, so the next turn is not colder): a turn leaves its request and response bodies,
// tool output and subprocess buffers behind, and JSC's eden collections during the turn promote
// whatever was still in flight, which then waits for the next full collection (the next turn's,
// or the trim's 30 s later). Collected at once, an agent waiting for the user's next prompt holds
// what its sessions keep, not the last turn's garbage (src/cli/process/README.md has the figures).
// While turns run, the heap watch (heapWatch.ts) keeps their garbage from piling up.
import { HeapWatch } from "./heapWatch.ts";

export interface MemoryTrimOptions {
  /** How long after a turn ends, with no other turn running, the trim runs (default 30 s). */
  idleMs?: number;
  /** How long after a session closes (the editor may open the next one at once; default 0). */
  closedMs?: number;
  /** The trim itself; tests count it. */
  trim?: () => void;
  /** How long after the last running turn ends its garbage is collected (default 200 ms). */
  settleMs?: number;
  /** That collection; tests count it. */
  collect?: () => void;
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
/** After the last running turn ends: its session file, rewind point and undo snapshot are written by then. */
const SETTLE_MS = 200;

export class MemoryTrim {
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The collection after the last running turn, pending. */
  #collectTimer: ReturnType<typeof setTimeout> | undefined;
  /** Whether anything ran since the last trim: a quiet agent is not trimmed again and again. */
  #used = false;
  /** Turns running now, in every session: no trim while there is one. */
  #running = 0;
  readonly #trim: () => void;
  readonly #collect: () => void;
  readonly #idleMs: number;
  readonly #closedMs: number;
  readonly #settleMs: number;
  readonly #watch: Pick<HeapWatch, "start" | "stop">;

  constructor(private readonly options: MemoryTrimOptions = {}) {
    this.#watch = options.watch ?? new HeapWatch();
    this.#trim = options.trim ?? shrinkHeap;
    this.#collect = options.collect ?? (() => Bun.gc(true));
    this.#idleMs = options.idleMs ?? IDLE_MS;
    this.#closedMs = options.closedMs ?? 0;
    this.#settleMs = options.settleMs ?? SETTLE_MS;
  }

  /** A turn began: no trim or collection while it runs. */
  turnStarted(): void {
    this.#running++;
    this.#used = true;
    this.#cancel();
    this.#cancelCollect();
    this.#watch.start();
  }

  /**
   * A turn ended: its garbage collected soon if no other turn runs; the trim once the agent has been quiet for idleMs.
   */
  turnEnded(): void {
    this.#running = Math.max(0, this.#running - 1);
    if (this.#running === 0) {
      this.#watch.stop();
      this.#cancelCollect();
      this.#collectTimer = setTimeout(() => {
        this.#collectTimer = undefined;
        if (this.#running === 0) this.#collect();
      }, this.#settleMs);
      this.#collectTimer.unref();
    }
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
    this.#cancelCollect();
    this.#watch.stop();
    this.#used = false;
  }

  #cancelCollect(): void {
    clearTimeout(this.#collectTimer);
    this.#collectTimer = undefined;
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
