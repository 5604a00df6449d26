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
import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";
import { isInside } from "./fsView.ts";
import { QUARANTINE_DIR } from "./gitQuarantine.ts";
import type { Inotify, InotifyEvent } from "./inotify.ts";
import { IN_CREATE, IN_DELETE, IN_IGNORED, IN_ISDIR, IN_MOVED_FROM, IN_MOVED_TO, IN_Q_OVERFLOW } from "./inotify.ts";

/** What a folder is to git: project folder, git folder, or a part of one. */
export type Role = "tree" | "git" | "hooks" | "modules" | "module" | "worktrees" | "worktree";

/** Entry names that make a project folder a repository (or change which one). */
const MARKER_NAMES = new Set([".git", "HEAD", "objects", "refs", "commondir", "config"]);
/** Inside a submodule's git folder: what is never watched. */
const GIT_DATA = new Set(["objects", "refs", "logs", "info", "lfs", "rr-cache", "rebase-merge", "rebase-apply", "sequencer", "branches", "description"]);

export interface WatchChange {
  /** Project folders whose marker may have appeared, changed or gone. */
  candidates: Set<string>;
  /** Git folders (or parts of one) in which something changed. */
  touched: Set<string>;
  /** The kernel dropped events: everything must be looked at again. */
  overflow: boolean;
}

export interface TreeWatch {
  /** Walks and watches the tree; the project folders with a marker. */
  start(): string[];
  /** Events of this watch's folders, turned into what the guard must look at. */
  handle(events: InotifyEvent[]): WatchChange;
  owns(wd: number): boolean;
  /** Walks it all again (after an overflow); the project folders with a marker. */
  rescan(): string[];
  /** Walks the subtrees left unwatched; the project folders with a marker there. */
  scanUnwatched(): string[];
  readonly unwatched: number;
  readonly watched: number;
  close(): void;
}

export interface TreeWatchOptions {
  root: string;
  /** Git folders outside the root that commands may write (a linked worktree's). */
  extraGitDirs: string[];
  inotify: Inotify | undefined;
  /** How many more watches may be added now (shared by every tree of one inotify instance). */
  budget: () => number;
}

/** The role of a child folder, or undefined when it is not watched. */
function childRole(parent: Role, name: string): Role | undefined {
  switch (parent) {
    case "tree":
      return name === ".git" ? "git" : "tree";
    case "git":
    case "module":
      if (name === "hooks") return "hooks";
      if (name === "modules") return "modules";
      if (name === "worktrees") return "worktrees";
      return parent === "module" && !GIT_DATA.has(name) ? "module" : undefined;
    case "modules":
      return "module";
    case "worktrees":
      return "worktree";
    default:
      return undefined;
  }
}

interface Entry {
  wd: number | undefined;
  role: Role;
  children: Set<string>;
}

export function createTreeWatch(options: TreeWatchOptions): TreeWatch {
  const { root, inotify } = options;
  const quarantine = join(root, QUARANTINE_DIR);
  const dirs = new Map<string, Entry>();
  const byWd = new Map<number, string>();
  /** Subtrees not watched: their top folder and role. */
  const unwatched = new Map<string, Role>();

  const excluded = (path: string) => isInside(path, quarantine);

  function list(dir: string): Dirent[] {
    try {
      return readdirSync(dir, { withFileTypes: true });
    } catch {
      return [];
    }
  }

  /** Watches one folder; false when it must stay unwatched (budget, kernel limit). */
  function watchOne(dir: string, role: Role, parent: string | undefined): boolean {
    const known = dirs.get(dir);
    if (known?.wd !== undefined) return true;
    if (!inotify || options.budget() <= 0) return false;
    const result = inotify.watch(dir);
    if ("error" in result) return result.error === "gone"; // gone: nothing to watch or scan
    const stale = byWd.get(result.wd);
    if (stale !== undefined && stale !== dir) forget(stale, false);
    byWd.set(result.wd, dir);
    dirs.set(dir, { wd: result.wd, role, children: known?.children ?? new Set() });
    if (parent) dirs.get(parent)?.children.add(dir);
    return true;
  }

  /**
   * Walks `top` (role `role`) breadth first and returns the project folders with a marker. With
   * `watch`, each folder is watched first (so nothing made meanwhile is missed); one that cannot
   * be is recorded as unwatched, and its subtree is still walked, without watches.
   */
  function walk(top: string, role: Role, parent: string | undefined, watch: boolean): string[] {
    const markers: string[] = [];
    const queue: Array<[string, Role, string | undefined, boolean]> = [[top, role, parent, watch]];
    for (let at = 0; at < queue.length; at++) {
      const next = queue[at] as [string, Role, string | undefined, boolean];
      const [dir, dirRole, up] = next;
      let watching = next[3];
      if (excluded(dir)) continue;
      if (watching && !watchOne(dir, dirRole, up)) {
        unwatched.set(dir, dirRole); // scanned instead (scanUnwatched)
        watching = false;
      }
      const entries = list(dir);
      let effective = dirRole;
      if (dirRole === "tree" && entries.some((e) => MARKER_NAMES.has(e.name))) {
        markers.push(dir);
        // A bare repository in the tree: watched as a git folder from here on.
        if (entries.some((e) => e.name === "HEAD") && entries.some((e) => e.name === "objects") && entries.some((e) => e.name === "refs")) effective = "git";
      }
      for (const entry of entries) {
        if (!entry.isDirectory()) continue;
        const childRoleNow = childRole(effective, entry.name);
        if (childRoleNow) queue.push([join(dir, entry.name), childRoleNow, watching ? dir : undefined, watching]);
      }
    }
    return markers;
  }

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
  }

  function starts(): string[] {
    const markers = walk(root, "tree", undefined, true);
    for (const gitDir of options.extraGitDirs) walk(gitDir, "git", undefined, true);
    return markers;
  }

  return {
    start: starts,
    owns: (wd) => byWd.has(wd),
    handle(events) {
      const change: WatchChange = { candidates: new Set(), touched: new Set(), overflow: false };
      for (const event of events) {
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
        const path = join(dir, event.name);
        const isDir = (event.mask & IN_ISDIR) !== 0;
        if (isDir && event.mask & (IN_MOVED_FROM | IN_DELETE)) {
          entry.children.delete(path);
          forget(path);
          dropUnwatchedBelow(path);
        }
        if (isDir && event.mask & (IN_CREATE | IN_MOVED_TO)) {
          const role = childRole(entry.role, event.name);
          if (role) for (const found of walk(path, role, dir, true)) change.candidates.add(found);
        }
        if (entry.role === "tree") {
          if (MARKER_NAMES.has(event.name)) change.candidates.add(dir);
          // A hook in a folder that became a bare repository after it was first walked.
          if (dir.endsWith("/hooks")) change.candidates.add(dir.slice(0, -"/hooks".length));
        } else change.touched.add(dir);
      }
      return change;
    },
    rescan() {
      unwatched.clear();
      return starts();
    },
    scanUnwatched() {
      const markers: string[] = [];
      for (const [top, role] of unwatched) markers.push(...walk(top, role, undefined, false));
      return markers;
    },
    get unwatched() {
      return unwatched.size;
    },
    get watched() {
      return byWd.size;
    },
    close() {
      for (const wd of byWd.keys()) inotify?.unwatch(wd);
      byWd.clear();
      dirs.clear();
      unwatched.clear();
    },
  };
}
