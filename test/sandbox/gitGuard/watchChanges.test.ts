// What the tree watch tells the change log (watch.ts → changeLog.ts), with real inotify: each
// event's path; "covered" only once the first walk has ended with every folder watched; a loss
// (the kernel's overflow, the guard's inbox full) uncovers the tree until a rescan has walked it
// again; a folder made is logged again once its watches are added.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTreeWatch } from "../../../src/sandbox/gitGuard/watch.ts";
import type { TreeWatch } from "../../../src/sandbox/gitGuard/watchTypes.ts";
import {
  IN_Q_OVERFLOW,
  type Inotify,
  type InotifyEvent,
  loadInotify,
  openInotify,
} from "../../../src/sandbox/inotify.ts";
import { tempDir } from "../../support/tempDir.ts";

async function watched(root: string, budget = Number.POSITIVE_INFINITY) {
  const lib = await loadInotify();
  if (!lib) throw new Error("no inotify on this Linux");
  const inotify = openInotify(lib) as Inotify;
  const queue: InotifyEvent[] = [];
  inotify.listen((events) => queue.push(...events));
  const watch: TreeWatch = createTreeWatch({
    root,
    extraGitDirs: [],
    inotify,
    budget: () => budget - watch.watched,
    maxFolders: 100_000,
  });
  /** Reads what the kernel queued (a write is queued before the call that made it returns) into the watch. */
  const drain = async (): Promise<InotifyEvent[]> => {
    await Bun.sleep(30);
    const events = queue.splice(0);
    watch.record(events);
    return events;
  };
  return { watch, inotify, drain };
}

const paths = (watch: TreeWatch, token: string) => {
  const answer = watch.changes.answer(token, watch.covered);
  return answer.paths === "all" ? "all" : [...answer.paths].sort();
};

describe.skipIf(process.platform !== "linux")("git guard: the tree watch's change log", () => {
  test("paths of events once the first walk has ended; a folder made is logged again once watched", async () => {
    using scratch = tempDir("garuda-watchlog-", { real: true });
    const root = scratch.path;
    mkdirSync(join(root, "src/deep"), { recursive: true });
    const { watch, inotify, drain } = await watched(root);
    expect(watch.covered).toBe(false); // not walked yet
    await watch.start();
    expect(watch.covered).toBe(true);
    const token = watch.changes.answer(undefined, watch.covered).token;
    writeFileSync(join(root, "src/deep/a.c"), "int a;\n");
    mkdirSync(join(root, "gen"));
    const events = await drain();
    expect(paths(watch, token)).toEqual([join(root, "gen"), join(root, "src/deep/a.c")]);
    const afterFirst = watch.changes.answer(token, true).token;
    await watch.handle(events); // walks gen/ and watches it: logged again
    expect(paths(watch, afterFirst)).toEqual([join(root, "gen")]);
    watch.close();
    await inotify.close();
  });

  test("a loss uncovers the tree until a rescan has walked it (overflow event, inbox full)", async () => {
    using scratch = tempDir("garuda-watchlog-", { real: true });
    const { watch, inotify } = await watched(scratch.path);
    await watch.start();
    const token = watch.changes.answer(undefined, true).token;
    watch.record([{ wd: -1, mask: IN_Q_OVERFLOW, cookie: 0, name: "" }]);
    expect(watch.covered).toBe(false);
    expect(paths(watch, token)).toBe("all");
    await watch.rescan();
    expect(watch.covered).toBe(true);
    expect(paths(watch, token)).toBe("all"); // a token from before the loss never vouches again
    const fresh = watch.changes.answer(undefined, true).token;
    watch.lost();
    expect(watch.covered).toBe(false);
    await watch.rescan();
    expect(paths(watch, fresh)).toBe("all");
    watch.close();
    await inotify.close();
  });

  test("past its share of watches the tree is not covered", async () => {
    using scratch = tempDir("garuda-watchlog-", { real: true });
    for (const dir of ["a", "b", "c"]) mkdirSync(join(scratch.path, dir));
    const { watch, inotify } = await watched(scratch.path, 2);
    await watch.start();
    expect(watch.unwatched).toBeGreaterThan(0);
    expect(watch.covered).toBe(false);
    watch.close();
    await inotify.close();
  });
});
