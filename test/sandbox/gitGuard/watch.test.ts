// The git guard's walk of a big tree shares the event loop (watch.ts, slices.ts): while it walks
// and watches thousands of folders, a timer on the loop keeps firing (the other sessions of the
// process go on). Negative control: the same walk without giving the loop back stalls it for
// longer than a user notices (the tree is big enough for the check to mean something).
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createTreeWatch } from "../../../src/sandbox/gitGuard/watch.ts";
import { loadInotify, openInotify } from "../../../src/sandbox/inotify.ts";
import type { Slices } from "../../../src/sandbox/gitGuard/slices.ts";
import { longestStall } from "../../support/eventLoop.ts";
import { tempDir } from "../../support/tempDir.ts";

const FOLDERS = 6_000;
const STALL_MS = 50;

/** A walk that never gives the loop back: the negative control. */
const never = (): Slices => ({ due: () => false, next: async () => {} });

describe.skipIf(process.platform !== "linux")("git guard: the walk shares the event loop", () => {
  test(`walking and watching ${FOLDERS} folders never stalls the loop ${STALL_MS} ms (negative control: without slices it does)`, async () => {
    using scratch = tempDir("garuda-guardwalk-", { real: true });
    for (let i = 0; i < FOLDERS; i++)
      mkdirSync(join(scratch.path, "node_modules", `p${i % 60}`, `d${i % 7}`, `e${i}`), { recursive: true });
    const lib = await loadInotify();
    if (!lib) throw new Error("no inotify on this Linux");
    const walk = async (slices?: () => Slices) => {
      const inotify = openInotify(lib);
      if (!inotify) throw new Error("no inotify instance left");
      const watch = createTreeWatch({
        root: scratch.path,
        extraGitDirs: [],
        inotify,
        budget: () => Number.POSITIVE_INFINITY,
        maxFolders: 100_000,
        ...(slices && { slices }),
      });
      const { stallMs } = await longestStall(() => watch.start(), 1);
      const watched = watch.watched;
      watch.close();
      await inotify.close();
      return { stall: stallMs, watched };
    };
    const shared = await walk();
    const blocking = await walk(never);
    // Every folder was walked and watched both ways; only the stall differs.
    expect(shared.watched).toBeGreaterThan(FOLDERS);
    expect(blocking.watched).toBe(shared.watched);
    expect(shared.stall).toBeLessThan(STALL_MS);
    expect(blocking.stall).toBeGreaterThan(STALL_MS);
  }, 60_000);
});
