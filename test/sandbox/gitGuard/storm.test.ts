// The storm meter (storm.ts): under the bound it names nothing; past it, the deepest watched
// folder below which at least half of the window's work happened, so a storm spread over many
// folders is still caught (at their common ancestor) and a busy folder elsewhere is not taken for
// it; a folder walk counts ten events; a new window starts after each verdict and after its time.
import { describe, expect, test } from "bun:test";
import { createStormMeter } from "../../../src/sandbox/gitGuard/storm.ts";

const WATCHED = new Set(["/p", "/p/a", "/p/a/b", "/p/a/b/c", "/p/a/b/d", "/p/src"]);
const watched = (dir: string) => WATCHED.has(dir);

describe("git guard: the storm meter", () => {
  test("one folder past the bound is named; under it nothing is", () => {
    let now = 0;
    const meter = createStormMeter({ units: 100, windowMs: 1_000, now: () => now });
    meter.add("/p/a/b/c", 99);
    expect(meter.storm(watched)).toBeUndefined();
    meter.add("/p/src", 1);
    expect(meter.storm(watched)).toEqual({ top: "/p/a/b/c", events: 100 });
    // A new window: the count starts again.
    meter.add("/p/a/b/c", 50);
    expect(meter.storm(watched)).toBeUndefined();
    now = 1_000;
    meter.add("/p/a/b/c", 60);
    expect(meter.storm(watched)).toBeUndefined();
  });

  test("a storm spread over sibling folders is named at their common folder, not at the root", () => {
    const meter = createStormMeter({ units: 100, now: () => 0 });
    meter.add("/p/a/b/c", 45);
    meter.add("/p/a/b/d", 45);
    meter.add("/p/src", 10);
    expect(meter.storm(watched)?.top).toBe("/p/a/b");
  });

  test("folders walked count ten events each", () => {
    const meter = createStormMeter({ units: 100, now: () => 0 });
    meter.add("/p/a", 0, 9);
    expect(meter.storm(watched)).toBeUndefined();
    meter.add("/p/a", 0, 1);
    expect(meter.storm(watched)).toEqual({ top: "/p/a", events: 0 });
  });
});
