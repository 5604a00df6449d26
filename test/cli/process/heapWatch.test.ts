// The heap watch (src/cli/process/heapWatch.ts, issue 35.4): while turns run, a full collection
// when the heap has grown by more than the allowance since the last one, and none otherwise; the
// memory trim runs it only while a turn runs.
import { expect, test } from "bun:test";
import { heapSize } from "bun:jsc";
import { HeapWatch } from "../../../src/cli/process/heapWatch.ts";
import { MemoryTrim } from "../../../src/cli/process/memoryTrim.ts";
import { eventually } from "../../support/sandboxSupport.ts";

const MiB = 2 ** 20;

test("collects once the heap has grown by more than the allowance since the last collection", () => {
  let size = 100 * MiB;
  let collections = 0;
  const watch = new HeapWatch({
    growthBytes: 48 * MiB,
    size: () => size,
    collect: () => {
      collections++;
      size = 110 * MiB; // what was live
    },
  });
  size = 140 * MiB; // grown by 40 MiB: within the allowance
  watch.check();
  expect(collections).toBe(0);
  size = 150 * MiB;
  watch.check();
  expect(collections).toBe(1);
  // The allowance counts from what the collection left (110 MiB), not from the first size.
  size = 155 * MiB;
  watch.check();
  expect(collections).toBe(1);
  size = 159 * MiB;
  watch.check();
  expect(collections).toBe(2);
});

test("with the real heap: a search's worth of garbage is collected, and the heap shrinks", () => {
  let collections = 0;
  const watch = new HeapWatch({
    growthBytes: 16 * MiB,
    collect: () => {
      collections++;
      Bun.gc(true);
    },
  });
  // What a search holds until its call ends, then drops: ~20 MiB of lines.
  let held: { line: number; text: string }[][] = [];
  for (let file = 0; file < 20; file++)
    held.push(Array.from({ length: 20_000 }, (_, line) => ({ line, text: `line ${line} of file ${file}` })));
  expect(held.length).toBe(20);
  held = [];
  const before = heapSize();
  watch.check();
  expect(collections).toBe(1);
  expect(heapSize()).toBeLessThan(before);
  watch.check(); // nothing new since: no second collection
  expect(collections).toBe(1);
});

test("the memory trim watches while a turn runs, in any session, and stops with the last", async () => {
  const calls: string[] = [];
  const trim = new MemoryTrim({
    trim: () => {},
    watch: { start: () => calls.push("start"), stop: () => calls.push("stop") },
  });
  trim.turnStarted();
  trim.turnStarted(); // another session's turn
  trim.turnEnded();
  expect(calls).toEqual(["start", "start"]);
  trim.turnEnded();
  expect(calls).toEqual(["start", "start", "stop"]);
  trim.stop();
  expect(calls.at(-1)).toBe("stop");
});

test("a running watch checks on its own, and stop() ends it", async () => {
  let checks = 0;
  const watch = new HeapWatch({
    everyMs: 5,
    size: () => {
      checks++;
      return 0;
    },
  });
  watch.start();
  await eventually(() => checks >= 3);
  watch.stop();
  const stopped = checks;
  await Bun.sleep(50);
  expect(checks).toBe(stopped);
});
