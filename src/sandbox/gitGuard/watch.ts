// The git guard's view of a project tree: which folders hold a repository marker, watched with
// inotify so that one a sandboxed command plants is seen within milliseconds. Every project
// folder is watched (a planted `.git` or bare repository can be anywhere, node_modules too);
// inside git folders only what can make git run something: the folder itself (config,
// commondir, config.worktree, HEAD), hooks/, and the git folders of submodules and linked
// worktrees, never objects/, refs/ or logs/. The quarantine is left out.
//
// Watches are limited (the kernel's max_user_watches is shared by every program of the user):
// past the budget, or when the kernel refuses one, a subtree stays unwatched and is scanned
// instead (scanUnwatched: when a command ends, and now and then while one runs). Without
// inotify (macOS) the whole tree is such a subtree.
//
// A subtree whose events cause more work than the guard may spend (storm.ts: a command renaming
// in a loop) is left unwatched the same way, and scanned, until the guard is next idle and a
// command begins (calm()). A folder whose name is not UTF-8 cannot be watched or walked (no path
// string names it): walks and events note the folders that hold one, and the guard moves it aside.
//
// Every walk (the first, a rescan after an overflow, a scan, a folder moved in) gives the event
// loop back every few milliseconds (slices.ts): a tree of 80,000 files must not stop the other
// sessions of the process while it is walked. The guard calls one method at a time (its queue).
import { type Dirent, chmodSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { codeOf } from "../../errors/caught.ts";
import { isInside } from "../../files/isInside.ts";
import { QUARANTINE_DIR } from "./quarantine.ts";
import { createSlices } from "./slices.ts";
import { type Storm, createStormMeter } from "./storm.ts";
import { createChangeLog } from "./changeLog.ts";
import { createUnnamedSet, isFolder, isLossy } from "./folderNames.ts";
import type { ShortOf, TreeWatch, TreeWatchOptions, WatchChange } from "./watchTypes.ts";
import { type Role, childRole, isMarkerName } from "./roles.ts";
import { IN_CREATE, IN_DELETE, IN_IGNORED, IN_ISDIR, IN_MOVED_FROM, IN_MOVED_TO, IN_Q_OVERFLOW } from "../inotify.ts";

interface Entry {
  wd: number | undefined;
  role: Role;
  children: Set<string>;
}

export function createTreeWatch(options: TreeWatchOptions): TreeWatch {
  const { root } = options;
  let inotify = options.inotify;
  const quarantine = join(root, QUARANTINE_DIR);
  const dirs = new Map<string, Entry>();
  const byWd = new Map<number, string>();
  /** Subtrees not watched: their top folder and role. */
  const unwatched = new Map<string, Role>();
  /** Those of them left because of a storm: not watched again until calm(). */
  const stormed = new Map<string, Storm>();
  const meter = options.meter ?? createStormMeter();
  let unwatchedFolders = 0;
  let closed = false;
  let shortOf: ShortOf | undefined;
  const slices = options.slices ?? (() => createSlices());
  const changes = options.changes ?? createChangeLog();
  /** The last full walk (the first, a rescan) has ended, and no event was lost since: every folder is watched. */
  let walked = false;
  /**
   * Folders that hold a folder whose name is not UTF-8: no path string names it (it reads back with U+FFFD), so it is
   * neither watched nor scanned (the guard moves it aside while commands run), and the change log cannot vouch for the
   * tree while one is there, nor for what was changed through it (a hard link in it) once it is gone.
   */
  const unnamed = createUnnamedSet(() => changes.lose());
  /** Losses so far (lost()): one during a walk leaves `walked` false, for the rescan it leads to. */
  let losses = 0;

  const excluded = (path: string) => isInside(path, quarantine);

  function list(dir: string): Dirent[] {
    try {
      return readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      // A folder a command made unlistable (chmod 300) can still hold a .git that git finds:
      // it is the user's own folder, so it is made readable to them again and read.
      if (codeOf(error) === "EACCES") {
        try {
          chmodSync(dir, (statSync(dir).mode & 0o7777) | 0o500);
          return readdirSync(dir, { withFileTypes: true });
        } catch {
          return [];
        }
      }
      return [];
    }
  }

  /** Watches one folder; false when it must stay unwatched (budget, kernel limit). */
  function watchOne(dir: string, role: Role, parent: string | undefined): boolean {
    const known = dirs.get(dir);
    if (known?.wd !== undefined) return true;
    if (closed) return false;
    if (!inotify) {
      if (process.platform === "linux") shortOf = "instance";
      return false;
    }
    if (options.budget() <= 0) {
      shortOf = "share";
      return false;
    }
    let result = inotify.watch(dir);
    if ("error" in result && result.error === "denied") {
      try {
        chmodSync(dir, (statSync(dir).mode & 0o7777) | 0o500); // as in list(): the user's own folder
        result = inotify.watch(dir);
      } catch {
        // left unwatched: scanned instead
      }
    }
    if ("error" in result) {
      if (result.error === "limit") shortOf = "kernel";
      return result.error === "gone"; // gone: nothing to watch or scan
    }
    const stale = byWd.get(result.wd);
    if (stale !== undefined && stale !== dir) forget(stale, false);
    byWd.set(result.wd, dir);
    dirs.set(dir, { wd: result.wd, role, children: known?.children ?? new Set() });
    if (parent) dirs.get(parent)?.children.add(dir);
    return true;
  }

  type Step = [dir: string, role: Role, parent: string | undefined, watch: boolean];
  interface Walk {
    queue: Step[];
    at: number;
    markers: string[];
  }
  let truncated = false;

  /**
   * Walks breadth first from the queue's folders to the end, giving the event loop back between
   * slices; the folders it walked without a watch. With `watch`, each folder is watched first (so
   * nothing made meanwhile is missed); one that cannot be is recorded as unwatched, and its
   * subtree is still walked, without watches.
   */
  async function advance(walk: Walk): Promise<number> {
    const { queue, markers } = walk;
    const slice = slices();
    let bare = 0;
    for (; walk.at < queue.length && walk.at < options.maxFolders; walk.at++) {
      if (slice.due()) await slice.next();
      if (closed) break; // the guard went while this walk waited: its watches are gone, add none
      const [dir, dirRole, up, watch] = queue[walk.at] as Step;
      let watching = watch;
      if (excluded(dir)) continue;
      if (watching && (stormed.has(dir) || !watchOne(dir, dirRole, up))) {
        unwatched.set(dir, dirRole); // scanned instead (scanUnwatched)
        changes.lose();
        watching = false;
      }
      if (!watching) bare++;
      const entries = list(dir);
      let effective = dirRole;
      if (dirRole === "tree" && entries.some((e) => isMarkerName(e.name))) {
        markers.push(dir);
        // A bare repository in the tree: watched as a git folder from here on.
        if (
          entries.some((e) => e.name === "HEAD") &&
          entries.some((e) => e.name === "objects") &&
          entries.some((e) => e.name === "refs")
        )
          effective = "git";
      }
      for (const entry of entries) {
        if (!entry.isDirectory()) continue;
        unnamed.note(dir, entry.name);
        const role = childRole(effective, entry.name);
        if (role) queue.push([join(dir, entry.name), role, watching ? dir : undefined, watching]);
      }
    }
    if (walk.at < queue.length && !closed) {
      truncated = true;
      changes.lose();
    }
    queue.length = 0; // done: let the paths go
    return bare;
  }

  /** Walks `top` (role `role`) to the end: the project folders with a marker, the folders walked without a watch. */
  async function walk(
    top: string,
    role: Role,
    parent: string | undefined,
    watch: boolean,
  ): Promise<{ markers: string[]; bare: number; walked: number }> {
    const one: Walk = { queue: [[top, role, parent, watch]], at: 0, markers: [] };
    const bare = await advance(one);
    return { markers: one.markers, bare, walked: one.at };
  }

  /** The first walk, once. */
  let first: Promise<string[]> | undefined;
  const firstWalk = (): Walk => ({
    queue: [[root, "tree", undefined, true], ...options.extraGitDirs.map((dir): Step => [dir, "git", undefined, true])],
    at: 0,
    markers: [],
  });

  /** Stops watching `dir` and every watched folder below it. */
  function forget(dir: string, unwatch = true): void {
    const entry = dirs.get(dir);
    if (!entry) return;
    dirs.delete(dir);
    for (const child of entry.children) forget(child, unwatch);
    if (entry.wd !== undefined) {
      byWd.delete(entry.wd);
      if (unwatch) inotify?.unwatch(entry.wd);
    }
  }

  function dropUnwatchedBelow(dir: string): void {
    for (const top of [...unwatched.keys()]) if (isInside(top, dir)) unwatched.delete(top);
    for (const top of [...stormed.keys()]) if (isInside(top, dir)) stormed.delete(top);
  }

  /** Stops watching the storm's subtree (its events cost too much): it is scanned instead. */
  function quiet(storm: Storm, change: WatchChange): void {
    const entry = dirs.get(storm.top);
    if (!entry) return;
    forget(storm.top);
    dropUnwatchedBelow(storm.top);
    unwatched.set(storm.top, entry.role);
    stormed.set(storm.top, storm);
    changes.lose();
    change.stormed.push(storm);
  }

  /** Events were lost: a folder made meanwhile is not watched until the rescan this leads to has walked it. */
  function lost(): void {
    losses++;
    walked = false;
    changes.lose();
  }

  /** Walks the tree from the top (the first walk, a rescan); the project folders with a marker. */
  async function walkAll(): Promise<string[]> {
    const all = firstWalk();
    const lossesBefore = losses;
    unwatchedFolders = await advance(all);
    walked = losses === lossesBefore;
    return all.markers;
  }

  return {
    start: () => {
      first ??= walkAll();
      return first;
    },
    owns: (wd) => byWd.has(wd),
    async handle(events) {
      const change: WatchChange = { candidates: new Set(), touched: new Set(), overflow: false, stormed: [] };
      const slice = slices();
      const before = meter.storm((at) => dirs.has(at)); // from events tallied while the inbox was full
      if (before) quiet(before, change);
      for (const event of events) {
        if (slice.due()) await slice.next(); // thousands of events at once: the loop is shared meanwhile
        if (event.mask & IN_Q_OVERFLOW) {
          change.overflow = true;
          continue;
        }
        const dir = byWd.get(event.wd);
        if (dir === undefined) continue;
        if (event.mask & IN_IGNORED) {
          forget(dir, false);
          continue;
        }
        if (event.name === "") continue; // about the folder itself: its parent reports it too
        const entry = dirs.get(dir);
        if (!entry) continue;
        meter.add(dir, 1);
        const storm = meter.storm((at) => dirs.has(at));
        if (storm) {
          quiet(storm, change);
          if (!dirs.has(dir)) continue; // this event's folder was in it
        }
        const path = join(dir, event.name);
        const isDir = (event.mask & IN_ISDIR) !== 0;
        // What was watched there has left: moved, removed, or replaced by a folder moved in (over an empty one, or
        // renameat2's exchange, whose other half is reported moved out after this one in: then walked as it is now).
        if (isDir && event.mask & (IN_MOVED_FROM | IN_DELETE | IN_MOVED_TO)) {
          entry.children.delete(path);
          forget(path);
          dropUnwatchedBelow(path);
        }
        if (isDir && (event.mask & (IN_CREATE | IN_MOVED_TO) || (event.mask & IN_MOVED_FROM && isFolder(path)))) {
          unnamed.note(dir, event.name);
          const role = childRole(entry.role, event.name);
          if (role) {
            const moved = await walk(path, role, dir, true);
            // What was made in it before its watches were added: read again by the next snapshot.
            changes.record(path);
            for (const found of moved.markers) change.candidates.add(found);
            unwatchedFolders += moved.bare;
            meter.add(dir, 0, moved.walked);
          }
        }
        if (entry.role === "tree") {
          if (isMarkerName(event.name)) change.candidates.add(dir);
          // A hook in a folder that became a bare repository after it was first walked.
          if (dir.endsWith("/hooks")) change.candidates.add(dir.slice(0, -"/hooks".length));
        } else change.touched.add(dir);
      }
      return change;
    },
    lost,
    tally(events) {
      for (const event of events) {
        const dir = byWd.get(event.wd);
        if (dir !== undefined) meter.add(dir, 1);
      }
    },
    rescan() {
      changes.lose();
      walked = false;
      unwatched.clear();
      return walkAll();
    },
    async scanUnwatched() {
      const markers: string[] = [];
      let folders = 0;
      for (const [top, role] of [...unwatched]) {
        const scanned = await walk(top, role, undefined, false);
        markers.push(...scanned.markers);
        folders += scanned.bare;
      }
      unwatchedFolders = folders;
      return markers;
    },
    async calm() {
      const markers: string[] = [];
      for (const top of [...stormed.keys()]) {
        const role = unwatched.get(top);
        stormed.delete(top);
        unwatched.delete(top);
        if (role === undefined || closed) continue;
        const parent = dirname(top);
        const watched = await walk(top, role, dirs.has(parent) ? parent : undefined, true);
        markers.push(...watched.markers);
        changes.lose(); // what changed there while it was walked is not in the log
      }
      return markers;
    },
    get stormed() {
      return [...stormed.values()];
    },
    attach(next) {
      changes.lose();
      inotify = next;
      shortOf = undefined;
    },
    get unwatched() {
      return unwatched.size;
    },
    get unwatchedFolders() {
      return unwatched.size === 0 ? 0 : unwatchedFolders;
    },
    get shortOf() {
      return shortOf;
    },
    get truncated() {
      return truncated;
    },
    maxFolders: options.maxFolders,
    get watched() {
      return byWd.size;
    },
    changes,
    record(events) {
      for (const event of events) {
        if (event.mask & IN_Q_OVERFLOW) lost();
        const dir = byWd.get(event.wd);
        if (dir === undefined || event.name === "") continue;
        // A name that is not UTF-8 cannot be given back as it is: its folder stands for it.
        const path = isLossy(event.name) ? dir : join(dir, event.name);
        if (!excluded(path)) changes.record(path);
      }
    },
    get unnamed() {
      return unnamed.now();
    },
    get covered() {
      const whole = unnamed.now().length === 0;
      return walked && !closed && inotify !== undefined && unwatched.size === 0 && !truncated && whole;
    },
    close() {
      changes.lose();
      closed = true;
      for (const wd of byWd.keys()) inotify?.unwatch(wd);
      byWd.clear();
      dirs.clear();
      unwatched.clear();
      stormed.clear();
      unnamed.clear();
    },
  };
}
