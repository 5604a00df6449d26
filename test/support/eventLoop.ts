// How long the event loop was held while some work ran: the longest gap between ticks of a
// timer. Tests of work that must share the loop (a search, the git guard's walk) assert on it.
// On a loaded machine a gap also holds the time the process waited for a core; `busyMs`, the
// most CPU the process used between two ticks, leaves that out.

const cpuMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

/**
 * The longest gap between ticks of a `tickMs` timer while `work` runs (`stallMs`), the most CPU
 * the process used between two ticks (`busyMs`), the work's result and how long it took.
 */
export async function longestStall<T>(
  work: () => Promise<T>,
  tickMs = 10,
): Promise<{ result: T; stallMs: number; busyMs: number; ms: number }> {
  let last = performance.now();
  let lastCpu = cpuMs();
  let stallMs = 0;
  let busyMs = 0;
  const tick = () => {
    const now = performance.now();
    const cpu = cpuMs();
    stallMs = Math.max(stallMs, now - last);
    busyMs = Math.max(busyMs, cpu - lastCpu);
    last = now;
    lastCpu = cpu;
  };
  const timer = setInterval(tick, tickMs);
  const started = performance.now();
  try {
    const result = await work();
    tick();
    return { result, stallMs, busyMs, ms: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}
