// How much work the events of one project's tree cause, so that a subtree a command changes in a
// loop (renames as fast as a CPU allows) cannot keep the git guard — and with it the event loop
// every session of the process shares — busy for as long as the loop runs. Each event counts,
// and each folder a moved-in folder makes the guard walk and watch counts more (a readdir and an
// inotify_add_watch cost about ten times the handling of one event). Past the bound in one
// window, the subtree that caused most of it is named: the deepest watched folder below which at
// least half of the window's work happened. The guard then stops watching it and scans it
// instead (watch.ts), as it scans what its share of watches does not cover.

import { dirname } from "node:path";

/** The window work is counted over. */
export const STORM_WINDOW_MS = 1_000;
/** Most work one tree's events may cause in a window (about 50 ms of CPU: a tenth of a core at worst, in bursts). */
export const STORM_UNITS = 20_000;
/** What walking and watching one folder counts, against one event's 1. */
export const FOLDER_UNITS = 10;

export interface Storm {
  /** The subtree's top folder. */
  top: string;
  /** The events counted in the window (of the whole tree). */
  events: number;
}

export interface StormMeter {
  /** Counts `events` events in folder `dir`, and the `folders` they made the guard walk. */
  add(dir: string, events: number, folders?: number): void;
  /**
   * Past the bound: the subtree that caused most of this window's work (its folder is one that
   * `watched` says yes to), and a new window starts. Undefined while under the bound.
   */
  storm(watched: (dir: string) => boolean): Storm | undefined;
}

export interface StormMeterOptions {
  units?: number;
  windowMs?: number;
  now?: () => number;
}

export function createStormMeter(options: StormMeterOptions = {}): StormMeter {
  const limit = options.units ?? STORM_UNITS;
  const windowMs = options.windowMs ?? STORM_WINDOW_MS;
  const now = options.now ?? (() => performance.now());
  let started = now();
  let total = 0;
  let events = 0;
  const byDir = new Map<string, number>();

  const fresh = () => {
    started = now();
    total = 0;
    events = 0;
    byDir.clear();
  };

  return {
    add(dir, count, folders = 0) {
      if (now() - started >= windowMs) fresh();
      const units = count + folders * FOLDER_UNITS;
      total += units;
      events += count;
      byDir.set(dir, (byDir.get(dir) ?? 0) + units);
    },
    storm(watched) {
      if (total < limit) return undefined;
      // Each folder's work is added to it and to its watched ancestors: the subtree sums.
      const sums = new Map<string, number>();
      for (const [dir, units] of byDir) {
        for (let at = dir; watched(at); ) {
          sums.set(at, (sums.get(at) ?? 0) + units);
          const up = dirname(at);
          if (up === at) break;
          at = up;
        }
      }
      let top: string | undefined;
      for (const [dir, sum] of sums) {
        if (sum * 2 < total) continue;
        // Such folders lie on one chain (but for two disjoint halves): the deepest is the longest.
        if (top === undefined || dir.length > top.length) top = dir;
      }
      const counted = events;
      fresh();
      return top === undefined ? undefined : { top, events: counted };
    },
  };
}
