// A long walk's way of sharing the event loop: it works in slices of a few milliseconds and
// gives the loop back between them (a macrotask, so timers, sockets and other sessions' turns
// run), instead of walking 80,000 files in one go while every session of the process waits.

/** Work this long, then give the loop back: well under the 50 ms a user notices as a stall. */
export const SLICE_MS = 8;

export interface Slices {
  /** Whether this slice's time is used up. */
  due(): boolean;
  /** Gives the event loop back, then starts the next slice. */
  next(): Promise<void>;
}

export function createSlices(sliceMs = SLICE_MS): Slices {
  let started = performance.now();
  return {
    due: () => performance.now() - started >= sliceMs,
    async next() {
      await new Promise<void>((resolve) => setImmediate(resolve));
      started = performance.now();
    },
  };
}
