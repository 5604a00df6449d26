// The file walk behind glob, grep and find_definition: depth first in name order, never into
// .git, into node_modules only when asked, skipping .gitignore'd and hidden (policy-denied or
// sensitive) paths, never following a symlinked folder. It works synchronously in slices of a
// few milliseconds and lets the event loop run between them, so a 100k-file tree stays fast
// without freezing the session (cancel, other events).
import { type Dirent, readdirSync, realpathSync, statSync } from "node:fs";
import { ancestorLayers, folderLayer, isIgnored, type IgnoreLayer } from "./ignoreRules.ts";
import { insideRoot } from "../permission/pathMatch.ts";

export interface WalkFile {
  abs: string;
  /** Relative to the walk's base, with `/`. */
  rel: string;
  /** Set for a symlink: where it leads. */
  realPath?: string;
  /** A symlink whose target is outside the project root. */
  outside: boolean;
}

export interface WalkOptions {
  /** The project root (for .gitignore files above the base and for symlink checks). */
  root: string;
  /** The folder to walk, absolute. */
  base: string;
  signal: AbortSignal;
  /** Paths that must never show (team policy denials, sensitive files). */
  hidden: (absPath: string) => boolean;
  /** Respect .gitignore files (default true). */
  gitignore?: boolean;
  includeNodeModules?: boolean;
  /** Return false to stop the walk. */
  onFile(file: WalkFile): boolean | void;
}

export interface WalkStats {
  files: number;
  stopped: boolean;
  aborted: boolean;
}

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

export async function walkFiles(options: WalkOptions): Promise<WalkStats> {
  const useIgnore = options.gitignore !== false;
  const stats: WalkStats = { files: 0, stopped: false, aborted: false };
  const slicer = new Slicer(options.signal);
  let layers: IgnoreLayer[] = useIgnore ? ancestorLayers(options.root, options.base) : [];
  // A folder the model named on purpose is searched even when an upper .gitignore excludes it.
  if (layers.length > 0 && isIgnored(layers, options.base, true)) layers = [];
  const baseInRoot = insideRoot(options.base, options.root) !== undefined;

  const visit = async (dir: string, rel: string, inherited: IgnoreLayer[]): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort(byName);
    let here = inherited;
    if (useIgnore && entries.some((entry) => entry.name === ".gitignore" && !entry.isDirectory())) {
      const layer = folderLayer(dir);
      if (layer) here = [...inherited, layer];
    }
    for (const entry of entries) {
      if (stats.stopped) return;
      if (!(await slicer.pause())) {
        stats.aborted = stats.stopped = true;
        return;
      }
      const name = entry.name;
      if (name === ".git") continue;
      const abs = `${dir === "/" ? "" : dir}/${name}`;
      const childRel = rel === "" ? name : `${rel}/${name}`;
      if (entry.isDirectory()) {
        if (name === "node_modules" && !options.includeNodeModules) continue;
        if (options.hidden(abs) || (useIgnore && isIgnored(here, abs, true))) continue;
        await visit(abs, childRel, here);
        continue;
      }
      let file: WalkFile;
      if (entry.isSymbolicLink()) {
        let realPath: string;
        try {
          realPath = realpathSync(abs);
          if (!statSync(realPath).isFile()) continue;
        } catch {
          continue;
        }
        if (options.hidden(realPath)) continue;
        file = { abs, rel: childRel, realPath, outside: baseInRoot && insideRoot(realPath, options.root) === undefined };
      } else if (entry.isFile()) {
        file = { abs, rel: childRel, outside: false };
      } else {
        continue;
      }
      if (options.hidden(abs) || (useIgnore && isIgnored(here, abs, false))) continue;
      stats.files++;
      if (options.onFile(file) === false) {
        stats.stopped = true;
        return;
      }
    }
  };
  await visit(options.base, "", layers);
  return stats;
}
