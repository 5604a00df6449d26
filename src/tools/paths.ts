// The path check every file tool goes through: a path the model gave, made absolute against the
// root, with symlinks resolved (of the file, or of its nearest existing parent for a new file).
// Tools never refuse a path for being outside the root: they report both paths in the permission
// target and the engine asks. What they do refuse is writing through a symlink inside the root
// whose target lies outside it, and reading or writing a path that no longer leads to the file its
// permission check named (CheckedState; checkedFile.ts opens exactly that file).
import { lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { insideRoot } from "../permission/pathMatch.ts";
import type { PermissionTarget } from "../permission/types.ts";

export interface ResolvedPath {
  /** Absolute, symlinks not resolved. */
  path: string;
  /** Absolute with every symlink resolved, also for a file that does not exist yet. */
  realPath: string;
  /** The path relative to the root ("" for the root itself), undefined when outside. */
  relative: string | undefined;
  /** The resolved path relative to the root, undefined when outside. */
  realRelative: string | undefined;
  /** Something exists at the path (a dangling symlink does not count). */
  exists: boolean;
  /**
   * How many names (hard links) the file has; 1 for a folder or a missing file. A file with more
   * may be a secret under another name, which its name here cannot show.
   */
  links: number;
  /** How titles and messages name it: relative inside the root, absolute outside. */
  display: string;
}

const MAX_LINKS = 40;

/** The real path of `abs`; for a missing file, the real path of its nearest existing parent plus the rest. */
export function realPathOf(abs: string, hops = 0): string {
  try {
    return realpathSync(abs);
  } catch {
    // Missing, or a dangling symlink: follow the link by hand, else resolve the parent.
  }
  if (hops < MAX_LINKS) {
    try {
      if (lstatSync(abs).isSymbolicLink()) return realPathOf(resolve(dirname(abs), readlinkSync(abs)), hops + 1);
    } catch {
      // Nothing at this path.
    }
  }
  const parent = dirname(abs);
  if (parent === abs) return abs;
  return join(realPathOf(parent, hops + 1), basename(abs));
}

/** Expands `~/` and makes the path absolute against the root. */
function absoluteToolPath(input: string, root: string, home?: string): string {
  const trimmed = input.trim();
  if (home && (trimmed === "~" || trimmed.startsWith("~/"))) return resolve(home, trimmed.slice(2));
  return resolve(root, trimmed);
}

export function displayPath(abs: string, root: string): string {
  const rel = insideRoot(abs, root);
  return rel === undefined ? abs : rel === "" ? "." : rel;
}

export function resolveToolPath(input: string, root: string, home?: string): ResolvedPath {
  const path = absoluteToolPath(input, root, home);
  const realPath = realPathOf(path);
  let exists = false;
  let links = 1;
  try {
    realpathSync(path);
    exists = true;
    const stat = statSync(realPath);
    if (stat.isFile()) links = stat.nlink;
  } catch {
    // Missing, or gone between the two looks.
  }
  return {
    path,
    realPath,
    relative: insideRoot(path, root),
    realRelative: insideRoot(realPath, root),
    exists,
    links,
    display: displayPath(path, root),
  };
}

/** The permission target of a tool call on this path. */
export function pathTarget(resolved: ResolvedPath, access: "read" | "write"): PermissionTarget {
  return {
    kind: "path",
    path: resolved.path,
    access,
    ...(resolved.realPath !== resolved.path && { realPath: resolved.realPath }),
    ...(resolved.links > 1 && { links: resolved.links }),
  };
}

/** A preview line naming the path, and where it really leads when a symlink is involved. */
export function pathPreview(resolved: ResolvedPath): string {
  return resolved.realPath === resolved.path ? resolved.path : `${resolved.path}\n→ ${resolved.realPath} (symlink)`;
}

/**
 * A write through a symlink inside the root to a file outside it: refused, so the project's own
 * files can never be used to change something elsewhere without the model naming that place.
 */
export function symlinkEscape(resolved: ResolvedPath, extraRoots: readonly string[] = []): string | undefined {
  // The session's other project folders count as the project: a link from one to another is fine.
  const inExtra = (path: string) => extraRoots.some((extra) => insideRoot(path, extra) !== undefined);
  if (resolved.relative === undefined && !inExtra(resolved.path)) return undefined;
  if (resolved.realRelative !== undefined || inExtra(resolved.realPath)) return undefined;
  return (
    `${resolved.display} is a symlink to ${resolved.realPath}, which is outside the ` +
    `project. Garuda does not write through it. If that file is really meant, name ` +
    `its own path (the user is then asked).`
  );
}

/** A folder named in a message: "the project" for the root itself. */
export function placeName(resolved: ResolvedPath): string {
  return resolved.display === "." ? "the project" : resolved.display;
}

/**
 * A plan's state for a tool on one path: the path as its permission check saw it (the engine
 * decided on it), so run() reads or writes that real path and no other: a path can be re-pointed
 * while the call waits for an approval or an undo snapshot. `links`: how many names the file had
 * then (more than one made the engine ask, so a reader may accept that many).
 */
export interface CheckedState {
  checked: ResolvedPath;
}

/**
 * How a call's title names the path: a `~/` path as `~/…` while it stays in the home (the model's
 * spelling, normalized), else relative inside the root and absolute outside. Always the file the
 * call targets: `~/../src/a.js` leaves the home, and titled from the root it would read as the
 * project's `src/a.js` (a question naming one file for a read or write of another).
 */
export function titlePath(input: string, root: string, home?: string): string {
  const abs = absoluteToolPath(input, root, home);
  const trimmed = input.trim();
  if (home && (trimmed === "~" || trimmed.startsWith("~/"))) {
    const inHome = insideRoot(abs, home);
    if (inHome !== undefined) return inHome === "" ? "~" : `~/${inHome}`;
  }
  return displayPath(abs, root);
}

/**
 * The error for a path that no longer leads to the file that was checked (a command replaced the
 * file or a folder on the way with a symlink, say). `now`: where the open really went, when known.
 */
export function changedWhileWaiting(
  resolved: ResolvedPath,
  checked: string,
  root: string,
  withheld: (path: string) => boolean,
  nothing: "written" | "read",
  now?: string,
): string {
  const fresh = realPathOf(resolved.path);
  const where = fresh !== checked ? fresh : now !== checked ? now : undefined;
  let link = false;
  try {
    link = lstatSync(resolved.path).isSymbolicLink();
  } catch {
    // Gone: no link.
  }
  const shown =
    where === undefined ? undefined : withheld(where) ? "a file the file tools do not show" : displayPath(where, root);
  const what =
    shown === undefined
      ? "it is no longer the file that was checked"
      : link
        ? `it is now a link to ${shown}`
        : `it now leads to ${shown}`;
  return (
    `${resolved.display} changed while this call waited (${what}); nothing was ` + `${nothing}. Check it and try again.`
  );
}
