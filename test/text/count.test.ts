// groupedCount: what toLocaleString("en-US") writes, without loading ICU's number formatting.
import { expect, test } from "bun:test";
import { groupedCount } from "../../src/text/count.ts";

test("whole numbers are grouped by thousands as toLocaleString('en-US') groups them", () => {
  const samples = [
    0, 7, 42, 999, 1_000, 4_000, 10_000, 24_000, 999_999, 1_000_000, 1_234_567, 9_007_199_254_740_991, -1, -1_000,
    -1_234_567,
  ];
  for (const n of samples) expect(groupedCount(n)).toBe(n.toLocaleString("en-US"));
});

test("anything but a safe integer goes to toLocaleString itself", () => {
  for (const n of [1.5, 1234.5678, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60])
    expect(groupedCount(n)).toBe(n.toLocaleString("en-US"));
});
