// Keeps a busy agent's garbage bounded (issue 35.4). JSC collects when the heap has grown by a
// share of what it held after its last full collection, and that share counts memory outside the
// JS heap; objects that lived through a few young collections in a multi-second search wait for a
// full one. On the Linux tree the agent let 100 MB and more of its searches' garbage (walk entries,
// file texts; and tree-sitter's ~65 MB of wasm memory counted as live while it parsed in this
// thread) pile up: bench/toolMemory.ts, RSS 1.5 × over 100 tool calls. While turns run, this looks
// at the heap's size twice a second (a read of a counter) and, when it has grown by more than
// GROWTH_BYTES since the last collection, runs a full one (a few ms to tens of ms: its cost is the
// live objects, not the garbage). The idle trim (memoryTrim.ts) gives the freed pages back later.
import { heapSize } from "bun:jsc";

export interface HeapWatchOptions {
  /** How often the heap's size is read while watching (default 500 ms). */
  everyMs?: number;
  /** Growth over the size after the last collection that triggers one (default 48 MiB). */
  growthBytes?: number;
  /** The heap's size now; tests give their own. */
  size?: () => number;
  /** A full collection; tests count it. */
  collect?: () => void;
}

const EVERY_MS = 500;
/** About what one search of a big tree allocates in a second; small sessions never reach it. */
const GROWTH_BYTES = 48 * 2 ** 20;

export class HeapWatch {
  #timer: ReturnType<typeof setInterval> | undefined;
  /** The heap's size after the last collection (what was live then). */
  #settled: number;
  readonly #everyMs: number;
  readonly #growth: number;
  readonly #size: () => number;
  readonly #collect: () => void;

  constructor(options: HeapWatchOptions = {}) {
    this.#everyMs = options.everyMs ?? EVERY_MS;
    this.#growth = options.growthBytes ?? GROWTH_BYTES;
    this.#size = options.size ?? heapSize;
    this.#collect = options.collect ?? (() => Bun.gc(true));
    this.#settled = this.#size();
  }

  /** Turns are running: watch (again) until stop(). */
  start(): void {
    if (this.#timer) return;
    // unref: the watch never keeps the process alive.
    this.#timer = setInterval(() => this.check(), this.#everyMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Collects when the heap has grown by more than the allowance since the last collection. */
  check(): void {
    if (this.#size() - this.#settled <= this.#growth) return;
    this.#collect();
    this.#settled = this.#size();
  }
}
