// The file walk behind glob, grep and find_definition: depth first in name order, never into
// .git, into node_modules only when asked, skipping .gitignore'd and hidden (policy-denied or
// sensitive) paths, never following a symlinked folder. It works synchronously in slices of a
// few milliseconds and lets the event loop run between them, so a 100k-file tree stays fast
// without freezing the session (cancel, other events).
//
// The walk reads only what its check approved: it starts from the folder the permission check
// named (its real path, opened and checked) and takes every step from an open folder, never from
// a path string (pinnedFolder.ts). A folder swapped for a symlink, or moved, while the walk runs
// is skipped and counted; so the walk never leaves the tree it started in. A symlinked file is
// reported with its target, and flagged when that target lies outside the walk's root (the
// project, or the base itself when the base is outside the project). Pipes, sockets and devices
// are never opened; they are listed in the stats so a tool can say why they were not searched.
import type { Dirent } from "node:fs";
import { realpathSync, statSync } from "node:fs";
import { insideRoot } from "../permission/pathMatch.ts";
import {
  ancestorLayers,
  type IgnoreLayer,
  isIgnored,
  layerOf,
  MAX_IGNORE_BYTES,
  repositoryIgnoresCase,
} from "./ignoreRules.ts";
import {
  childPath,
  closePinned,
  entryOf,
  listPinned,
  openChild,
  openPinned,
  type PinnedFolder,
  readSmallText,
} from "./pinnedFolder.ts";

export interface WalkFile {
  /** Absolute, as the walk reached it (its real folder and the entry's name). */
  abs: string;
  /** Relative to the walk's base, with `/`. */
  rel: string;
  /** What a reader opens and checks (checkedFile.ts): `abs`, or a symlink's target. */
  realPath: string;
  /** A symlink (its target is a regular file). */
  link: boolean;
  /** A symlink whose target is outside the walk's root. */
  outside: boolean;
}

export interface WalkOptions {
  /** The project root (for .gitignore files above the base and for symlink checks). */
  root: string;
  /** The folder to walk: the real path the permission check named. */
  base: string;
  signal: AbortSignal;
  /** Paths that must never show (team policy denials, sensitive files). */
  withheld: (absPath: string) => boolean;
  /** Respect .gitignore files (default true). */
  gitignore?: boolean;
  includeNodeModules?: boolean;
  /** Return false to stop the walk; a promise is awaited (a consumer that is busy). */
  onFile(file: WalkFile): boolean | void | Promise<boolean | void>;
}

export interface WalkStats {
  files: number;
  stopped: boolean;
  aborted: boolean;
  /** The base itself is no longer the folder that was checked; nothing was walked. */
  baseChanged?: { now?: string };
  /** Folders or links that changed while the walk ran (swapped for a link, moved): skipped. */
  changed: string[];
  /** Pipes, sockets, devices (or links to them): never opened. Relative paths. */
  special: string[];
}

/** Deeper than this is a loop of bind mounts or a trap, not a project. */
const MAX_DEPTH = 128;
const SLICE_MS = 8;

/** Lets the event loop run every few milliseconds of synchronous work. */
export class Slicer {
  #last = performance.now();
  constructor(private readonly signal: AbortSignal) {}
  /** Resolves at once most of the time; false when the signal has aborted. */
  async pause(): Promise<boolean> {
    if (performance.now() - this.#last >= SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.#last = performance.now();
    }
    return !this.signal.aborted;
  }
}

const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** What a symlink entry leads to: a regular file's real path, "special", or undefined (a folder, dangling). */
function linkTarget(folder: PinnedFolder, name: string): { realPath: string } | "special" | undefined {
  try {
    // Resolved through the open folder: the link that was listed, wherever the folder's path leads now.
    const realPath = realpathSync(entryOf(folder, name));
    const stat = statSync(realPath);
    if (stat.isFile()) return { realPath };
    return stat.isDirectory() ? undefined : "special";
  } catch {
    return undefined;
  }
}

export async function walkFiles(options: WalkOptions): Promise<WalkStats> {
  const useIgnore = options.gitignore !== false;
  const stats: WalkStats = { files: 0, stopped: false, aborted: false, changed: [], special: [] };
  const slicer = new Slicer(options.signal);
  const ignoreCase = useIgnore && repositoryIgnoresCase(options.root);
  let layers: IgnoreLayer[] = useIgnore ? ancestorLayers(options.root, options.base, ignoreCase) : [];
  // A folder the model named on purpose is searched even when an upper .gitignore excludes it.
  if (layers.length > 0 && isIgnored(layers, options.base, true)) layers = [];
  // The walk never leaves its root: the project, or the base when the base is outside it.
  const walkRoot = insideRoot(options.base, options.root) !== undefined ? options.root : options.base;

  const visit = async (folder: PinnedFolder, rel: string, inherited: IgnoreLayer[], depth: number): Promise<void> => {
    const entries = listPinned(folder);
    if (!entries) return;
    entries.sort(byName);
    let here = inherited;
    if (useIgnore && entries.some((entry) => entry.name === ".gitignore" && entry.isFile())) {
      const text = readSmallText(folder, ".gitignore", MAX_IGNORE_BYTES);
      if (text !== undefined) here = [...inherited, layerOf(folder.real, text, ignoreCase)];
    }
    for (const entry of entries) {
      if (stats.stopped) return;
      if (!(await slicer.pause())) {
        stats.aborted = stats.stopped = true;
        return;
      }
      const name = entry.name;
      if (name === ".git") continue;
      const abs = childPath(folder.real, name);
      const childRel = rel === "" ? name : `${rel}/${name}`;
      if (entry.isDirectory()) {
        if (name === "node_modules" && !options.includeNodeModules) continue;
        if (options.withheld(abs) || (useIgnore && isIgnored(here, abs, true))) continue;
        if (depth >= MAX_DEPTH) continue;
        const child = openChild(folder, name);
        if ("kind" in child) {
          if (child.kind === "changed") stats.changed.push(childRel);
          continue;
        }
        try {
          await visit(child, childRel, here, depth + 1);
        } finally {
          closePinned(child);
        }
        continue;
      }
      let file: WalkFile;
      if (entry.isSymbolicLink()) {
        const target = linkTarget(folder, name);
        if (target === undefined) continue;
        if (options.withheld(abs) || (useIgnore && isIgnored(here, abs, false))) continue;
        if (target === "special") {
          stats.special.push(childRel);
          continue;
        }
        if (options.withheld(target.realPath)) continue;
        file = {
          abs,
          rel: childRel,
          realPath: target.realPath,
          link: true,
          outside: insideRoot(target.realPath, walkRoot) === undefined,
        };
      } else if (entry.isFile()) {
        if (options.withheld(abs) || (useIgnore && isIgnored(here, abs, false))) continue;
        file = { abs, rel: childRel, realPath: abs, link: false, outside: false };
      } else {
        // A pipe, socket or device: opening one can wait forever (a FIFO) or act (a device).
        if (!options.withheld(abs) && !(useIgnore && isIgnored(here, abs, false))) stats.special.push(childRel);
        continue;
      }
      stats.files++;
      let verdict = options.onFile(file);
      if (verdict instanceof Promise) verdict = await verdict;
      if (verdict === false) {
        stats.stopped = true;
        return;
      }
    }
  };

  const base = openPinned(options.base);
  if ("kind" in base) {
    if (base.kind === "changed") stats.baseChanged = base.now === undefined ? {} : { now: base.now };
    return stats;
  }
  try {
    await visit(base, "", layers, 0);
  } finally {
    closePinned(base);
  }
  return stats;
}
