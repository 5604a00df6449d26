import { describe, expect, test } from "bun:test";
import { interleave, quantile, ratio, summarize } from "../../bench/interleave.ts";

describe("bench helper", () => {
  test("quantiles interpolate between sorted samples", () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([10], 0.9)).toBe(10);
    expect(summarize([5, 1, 4, 2, 3])).toEqual({ median: 3, p10: 1.4, p90: 4.6, min: 1, max: 5, n: 5 });
  });

  test("interleave rotates the starting task each round and drops warm-up rounds", async () => {
    const order: string[] = [];
    const task = (name: string, value: number) => ({
      name,
      run: async () => {
        order.push(name);
        return { ms: value };
      },
    });
    const results = await interleave([task("a", 1), task("b", 3)], { rounds: 3, warmup: 1 });
    expect(order).toEqual(["b", "a", "a", "b", "b", "a", "a", "b"]);
    expect(results.map((r) => [r.name, r.stats.ms?.n, r.stats.ms?.median])).toEqual([
      ["a", 3, 1],
      ["b", 3, 3],
    ]);
    expect(ratio(results[1], results[0], "ms")).toBe(3);
  });
});
