// The usage meter's fixed part (system prompt and tool specs) may be given as a function: read at
// the first estimate, once, so a session's tool specs are not made while session/new waits.
import { expect, test } from "bun:test";
import { UsageMeter } from "../../src/runtime/meter.ts";

test("a fixed part given as a function is read at the first estimate, and only then", () => {
  let reads = 0;
  const meter = new UsageMeter(() => {
    reads++;
    return 4_000;
  });
  expect(reads).toBe(0);
  expect(meter.estimate(400)).toBe(1_100);
  expect(meter.fixedChars).toBe(4_000);
  expect(meter.estimate(0)).toBe(1_000);
  expect(reads).toBe(1);
});

test("a number is used as it is", () => {
  expect(new UsageMeter(4_000).estimate(400)).toBe(1_100);
});
