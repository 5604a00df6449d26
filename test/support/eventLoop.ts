// How long the event loop was held while some work ran: the longest gap between ticks of a
// timer. Tests of work that must share the loop (a search, the git guard's walk) assert on it.

/** The longest gap between ticks of a `tickMs` timer while `work` runs, its result and how long it took. */
export async function longestStall<T>(
  work: () => Promise<T>,
  tickMs = 10,
): Promise<{ result: T; stallMs: number; ms: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, tickMs);
  const started = performance.now();
  try {
    const result = await work();
    return { result, stallMs: Math.max(stallMs, performance.now() - last), ms: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}
