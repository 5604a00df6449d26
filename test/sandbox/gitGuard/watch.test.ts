// The git guard's walk of a big tree shares the event loop (watch.ts, slices.ts): while it walks
// and watches thousands of folders, a timer on the loop keeps firing (the other sessions of the
// process go on). Negative control: the same walk without giving the loop back stalls it for
// longer than a user notices (the tree is big enough for the check to mean something). Past its
// share of watches, what it cannot watch is counted, said why, and scanned.
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createTreeWatch } from "../../../src/sandbox/gitGuard/watch.ts";
import { loadInotify, openInotify } from "../../../src/sandbox/inotify.ts";
import type { Slices } from "../../../src/sandbox/gitGuard/slices.ts";
import { longestStall } from "../../support/eventLoop.ts";
import { tempDir } from "../../support/tempDir.ts";

const FOLDERS = 8_000;
const STALL_MS = 50;

/** A walk that never gives the loop back: the negative control. */
const never = (): Slices => ({ due: () => false, next: async () => {} });

describe.skipIf(process.platform !== "linux")("git guard: the tree watch", () => {
  test(`walking and watching ${FOLDERS} folders never holds the loop for ${STALL_MS} ` +
    `ms of CPU (negative control: without slices it does)`, async () => {
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
      // The CPU spent between two ticks: on a loaded machine the gaps also hold the time this
      // process waited for a core, which says nothing about the walk.
      const { busyMs } = await longestStall(() => watch.start(), 1);
      const watched = watch.watched;
      watch.close();
      await inotify.close();
      return { stall: busyMs, watched };
    };
    const shared = await walk();
    const blocking = await walk(never);
    // Every folder was walked and watched both ways; only the stall differs.
    expect(shared.watched).toBeGreaterThan(FOLDERS);
    expect(blocking.watched).toBe(shared.watched);
    expect(shared.stall).toBeLessThan(STALL_MS);
    expect(blocking.stall).toBeGreaterThan(STALL_MS);
  }, 60_000);

  test(
    "past its share of watches a subtree is scanned instead: it says why and how " +
      "many folders, and a scan finds a plant there",
    async () => {
      using scratch = tempDir("garuda-guardshare-", { real: true });
      for (let i = 0; i < 40; i++) mkdirSync(join(scratch.path, "deps", `p${i}`, "lib"), { recursive: true });
      const lib = await loadInotify();
      const inotify = lib && openInotify(lib);
      if (!inotify) throw new Error("no inotify instance left");
      const open = (share: number, maxFolders = 100_000) => {
        const watch = createTreeWatch({
          root: scratch.path,
          extraGitDirs: [],
          inotify,
          budget: () => share - watch.watched,
          maxFolders,
        });
        return watch;
      };
      try {
        // 82 folders: the root, deps, 40 packages and their lib folders.
        const all = open(1_000);
        expect(await all.start()).toEqual([]);
        expect([all.watched, all.unwatched, all.unwatchedFolders, all.shortOf]).toEqual([82, 0, 0, undefined]);
        all.close();

        const short = open(20);
        await short.start();
        expect(short.watched).toBe(20);
        expect(short.shortOf).toBe("share");
        expect(short.unwatchedFolders).toBe(62);
        mkdirSync(join(scratch.path, "deps/p39/lib/.git"));
        expect(await short.scanUnwatched()).toEqual([join(scratch.path, "deps/p39/lib")]);
        short.close();

        // A walk cut at maxFolders says so (the guard tells the first command).
        const cut = open(1_000, 10);
        await cut.start();
        expect([cut.truncated, cut.watched]).toEqual([true, 10]);
        cut.close();
      } finally {
        await inotify.close();
      }
    },
  );
});
