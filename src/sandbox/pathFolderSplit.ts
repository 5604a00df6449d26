// PATH folders inside the folders a command may write besides the projects (package caches,
// writePaths). pnpm's home, ~/.local/share/pnpm, is a package cache and, after `pnpm setup`, first
// on PATH: a command that plants `git` there would run on the host at the user's next `git`. Such a
// writable folder is split around each PATH folder it holds, as aroundHome() splits one that holds
// the home: on the way down every other folder stays writable; the PATH folder and the folders on
// the way are read-only, so nothing new appears at their top (a program, or a link in place of a
// subfolder). The PATH folder's own subfolders stay read-only too, but for pnpm's store: the
// programs at its top are shims and links that run what is below (pnpm's global/, its nodejs/ and
// .tools/), so those must not change either. The projects' own folders on PATH are left as they are: a project whose
// bin
// is on PATH runs its own code there anyway, and holding node_modules/.bin would stop installs.
// Pure over (folders, PATH folders, look).
import { basename, join } from "node:path";
import { isInside } from "../files/isInside.ts";
import { type PathKind, byDepth } from "./fsView.ts";

export interface FolderLook {
  kind(path: string): PathKind;
  /** A folder's entry names ([] when it cannot be listed). */
  list(path: string): string[];
}

/** A PATH folder's subfolders that hold data only, which no program at its top runs: pnpm's store. */
const DATA_SUBFOLDERS = new Set(["store"]);

/** `dir`'s folders that stay writable around `target` (at or inside `dir`), as listed above. */
function around(dir: string, target: string, look: FolderLook): string[] {
  const folders: string[] = [];
  const subfolders = (folder: string, except?: string) =>
    look
      .list(folder)
      .filter((name) => name !== except && look.kind(join(folder, name)) === "dir")
      .map((name) => join(folder, name));
  for (let current = dir; current !== target; ) {
    const step = target.slice(current === "/" ? 1 : current.length + 1).split("/")[0] as string;
    folders.push(...subfolders(current, step));
    current = join(current, step);
  }
  folders.push(...subfolders(target).filter((folder) => DATA_SUBFOLDERS.has(basename(folder))));
  return folders;
}

/**
 * The writable folders `dirs` (real paths), each split around the PATH folders (absolute, real) it
 * holds; the others as they are. Outer PATH folders first, so one inside another is split again.
 */
export function splitAroundPathFolders(
  dirs: readonly string[],
  pathFolders: readonly string[],
  look: FolderLook,
): string[] {
  let folders = [...dirs];
  for (const target of [...new Set(pathFolders)].filter((dir) => dir !== "/").sort(byDepth)) {
    folders = folders.flatMap((dir) => (isInside(target, dir) ? around(dir, target, look) : [dir]));
  }
  return folders;
}
