// A search's budget counts the work of its worker thread (CPU time against bytes read), not the
// wall clock: a slow machine makes a small search slower, never cut.
import { describe, expect, test } from "bun:test";
import { readlinkSync } from "node:fs";
import { join } from "node:path";
import type { SearchSpec } from "../../src/tools/grepSearch.ts";
import { allowedMs, type ClockFactory, threadCpuMs, wallClock } from "../../src/tools/searchBudget.ts";
import { searchNotes } from "../../src/tools/searchNotes.ts";
import { type SearchEnd, SearchThreads, SearchWorker } from "../../src/tools/searchWorker.ts";
import { tempRoot, writeFiles } from "../support/toolFixtures.ts";

const spec: SearchSpec = {
  pattern: "needle",
  ignoreCase: false,
  mode: "files",
  context: 0,
  maxShown: 1,
  maxBytes: 1024 * 1024,
  allowLinks: false,
  secretKeys: [],
};

/**
 * Searches 20 files, handing them to the worker one every 60 ms: a walk on a machine so busy that
 * the search takes over a second of wall time while its worker does a few ms of work.
 */
async function slowSearch(root: string, clock?: ClockFactory): Promise<{ end: SearchEnd; hits: number }> {
  const files = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}.txt`, `needle ${i}\n`]));
  writeFiles(root, files);
  const search = new SearchWorker({
    spec,
    signal: new AbortController().signal,
    budget: { cpuMs: 300, cpuMsPerMB: 0 },
    pool: new SearchThreads(),
    clock,
  });
  let hits = 0;
  for (const name of Object.keys(files)) {
    await Bun.sleep(60);
    if (!(await search.add(join(root, name), (outcome) => outcome.kind === "hits" && hits++))) break;
  }
  return { end: await search.finish(), hits };
}

describe("the search budget counts work", () => {
  test.skipIf(process.platform !== "linux")("a thread's CPU time is read from /proc and grows with work", () => {
    const task = readlinkSync("/proc/thread-self");
    const before = threadCpuMs(task) as number;
    expect(before).toBeGreaterThanOrEqual(0);
    const until = performance.now() + 120;
    while (performance.now() < until) {}
    expect(threadCpuMs(task) as number).toBeGreaterThan(before);
    expect(threadCpuMs("0/task/0")).toBeUndefined();
  });

  test.skipIf(process.platform !== "linux")(
    "a small search on a slowed machine is not cut (negative control: a wall-clock budget cuts it)",
    async () => {
      using root = tempRoot();
      const slow = await slowSearch(root.path);
      expect(slow).toEqual({ end: { kind: "done" }, hits: 20 });

      using again = tempRoot();
      const walled = await slowSearch(again.path, wallClock);
      expect(walled.end.kind).toBe("over_budget");
      expect(walled.hits).toBeLessThan(20);
    },
    20_000,
  );

  test("the allowance grows with what was read", () => {
    expect(allowedMs({ cpuMs: 10_000, cpuMsPerMB: 40 }, 0)).toBe(10_000);
    expect(allowedMs({ cpuMs: 10_000, cpuMsPerMB: 40 }, 1_000_000_000)).toBe(50_000);
  });

  test("the note says what the search did and what to do", () => {
    const end: SearchEnd = {
      kind: "over_budget",
      spentMs: 12_340,
      clock: "cpu",
      work: { files: 4_210, bytes: 52_428_800 },
      budget: { cpuMs: 10_000, cpuMsPerMB: 40 },
    };
    const tally = { files: 0, lines: 0, tooBig: [], special: [], linked: [], secret: [], changed: [] };
    expect(searchNotes(tally, end, "find_definition")).toEqual([
      "[The search stopped after 12.3 s of CPU time, having read 4,210 files (50.0 " +
        "MB): more than its budget (10 s plus 40 ms per MB read). What was found until " +
        "then is above. Narrow the search with path.]",
    ]);
    expect(searchNotes(tally, { ...end, clock: "wall" }, "grep")[0]).toStartWith(
      "[The search stopped after 12.3 s (wall-clock time: this system does not report " +
        "a thread's CPU time), having read 4,210 files (50.0 MB)",
    );
  });
});
