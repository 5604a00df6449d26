// The storm meter (storm.ts): under the bound it names nothing; past it, the deepest watched
// folder below which at least half of the window's work happened, so a storm spread over many
// folders is still caught (at their common ancestor) and a busy folder elsewhere is not taken for
// it; a folder walk counts ten events; a new window starts after each verdict and after its time.
// And the guard's inbox (guard.ts): overflows that come while the tree is walked again after one
// make one more walk, not one each (negative control, checked once by hand: one guard step per
// batch, as before, walks the tree once per overflow).
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { gitConfigParser } from "../../../src/sandbox/gitGuard/configKeys.ts";
import { createGitGuard } from "../../../src/sandbox/gitGuard/guard.ts";
import { openGuardRecord } from "../../../src/sandbox/gitGuard/record.ts";
import { createSlices } from "../../../src/sandbox/gitGuard/slices.ts";
import { createStormMeter } from "../../../src/sandbox/gitGuard/storm.ts";
import { createTreeWatch } from "../../../src/sandbox/gitGuard/watch.ts";
import type { TreeWatch } from "../../../src/sandbox/gitGuard/watchTypes.ts";
import { IN_Q_OVERFLOW, type InotifyEvent, loadInotify, openInotify } from "../../../src/sandbox/inotify.ts";
import { tempDir } from "../../support/tempDir.ts";

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

describe.skipIf(process.platform !== "linux")("git guard: overflows", () => {
  test("overflows that come during the walk they caused make one more walk, not one each", async () => {
    using scratch = tempDir("garuda-guardoverflow-", { real: true });
    const root = join(scratch.path, "project");
    for (let i = 0; i < 300; i++) mkdirSync(join(root, `d${i % 30}`, `e${i}`), { recursive: true });
    const lib = await loadInotify();
    const inotify = lib && openInotify(lib);
    if (!inotify) throw new Error("no inotify instance left");
    // Its walks give the loop back after every folder: a walk surely spans many turns of the loop.
    const slices = () => createSlices(0);
    const watch = createTreeWatch({
      root,
      extraGitDirs: [],
      inotify,
      budget: () => 100_000,
      maxFolders: 100_000,
      slices,
    });
    let walks = 0;
    let walking = false;
    const counted = new Proxy(watch, {
      get(target, key) {
        if (key !== "rescan") return Reflect.get(target, key);
        return async () => {
          walks++;
          walking = true;
          try {
            return await target.rescan();
          } finally {
            walking = false;
          }
        };
      },
    }) as TreeWatch;
    const guard = createGitGuard({
      root,
      watch: counted,
      record: openGuardRecord(join(scratch.path, "state"), root),
      configKeys: gitConfigParser(Bun.which("git") ?? undefined),
      extraGitDirs: [],
    });
    try {
      await guard.ready;
      const overflow: InotifyEvent[] = [{ wd: -1, mask: IN_Q_OVERFLOW, cookie: 0, name: "" }];
      const handled = [guard.events(overflow), guard.events(overflow)];
      while (!walking) await new Promise((resolve) => setImmediate(resolve));
      // An overflow comes in each pause of the walk.
      let during = 0;
      while (walking && walks === 1) {
        handled.push(guard.events(overflow));
        during++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await Promise.all(handled);
      expect(during).toBeGreaterThan(1);
      expect(walks).toBe(2);
    } finally {
      guard.close();
      await inotify.close();
    }
  });
});
