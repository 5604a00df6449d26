// What the undo store's next snapshot must read (undo.ts): with the git guard's change log
// (sandbox/gitGuard/changeLog.ts), only the paths changed since the last snapshot, so a turn's
// snapshot costs what changed, not the size of the tree; else every file's stat data, as git's
// `add -A` reads it. A snapshot of named paths (those changed, or the files a tool wrote) is made
// from the last tree without the session's index (undoTreeEdit.ts: the index is 9 MB on Linux's
// tree, read and written by every git command that uses it); the index is then brought in line at
// those paths before the next thing that uses it (a snapshot of the whole tree, an undo, a rewind).
//
// The whole tree is read when the log cannot vouch for every change since the last snapshot (it
// says "all": no guard here, coverage lost, another process's token), when the last snapshot failed,
// after an undo or a rewind changed the index, when a process a command left running may still
// write (through an mmap, which no watch sees), when ignore rules changed (a `.gitignore`, the
// project's .git/info/exclude: files nobody touched may come in or go out), when a nested
// repository's git folder changed (its HEAD is recorded as a gitlink), when a changed file has
// another name (a hard link: a write through one name is an event in that name's folder only),
// and past MAX_CHANGED paths (a snapshot by path then costs more than one of the whole tree).
// Not seen: a write through a hard link made and removed again between two snapshots, to a file
// whose own name saw no event (the link made inside the project: a command cannot link across
// the sandbox's mounts), and a write through an mmap of a file some process keeps open.
import { lstatSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { isInside } from "../files/isInside.ts";
import type { Executor } from "../sandbox/types.ts";
import type { SnapshotScope } from "./undoSnapshot.ts";
import type { TreeEdit } from "./undoTreeEdit.ts";

/** Most changed paths a snapshot reads by name (past this, `add -A` costs less). */
const MAX_CHANGED = 1_000;

export interface ChangeScopeOptions {
  root: string;
  /** Paths (relative) no snapshot holds. */
  excluded: readonly string[];
  changesSince: Executor["changesSince"];
  /** Takes a snapshot through the session's index (undoSnapshot.ts): of the whole tree, or of files a tool wrote. */
  take(scope?: SnapshotScope): Promise<string | undefined>;
  /** The tree `base` becomes with what is at `paths` now (undoTreeEdit.ts), and the paths it read; or undefined. */
  edit(base: string, paths: readonly string[]): Promise<TreeEdit | undefined>;
  /** Brings the index in line with `tree` at `paths` (undoTreeEdit.ts alignIndex); false when git failed. */
  align(tree: string, paths: readonly string[]): Promise<boolean>;
  /** Switches undo off, saying why. */
  disable(reason: string): void;
  /** A process a command started may still run (it may write through an mmap). */
  lasting(): boolean;
}

export interface ScopedSnapshots {
  /** A snapshot of the files a tool wrote (`scope`), or of what changed since the last one; its tree. */
  take(scope?: SnapshotScope): Promise<string | undefined>;
  /** Before the index is used by anything else (an undo, a rewind): brings it in line; false when it could not. */
  inLine(): Promise<boolean>;
  /** The index was changed by something other than a snapshot (an undo, a rewind): the next one reads it all. */
  forget(): void;
}

export function scopedSnapshots(options: ChangeScopeOptions): ScopedSnapshots {
  const { root, excluded, changesSince } = options;
  const projectExclude = join(root, ".git", "info", "exclude");
  /** The change log's token of the last snapshot: what changed since is what the next one reads. */
  let token: string | undefined;
  /** The project's .git/info/exclude (its identity, size and times) when the token was got. */
  let excludeSeen: string | undefined;
  /** The tree of the last snapshot. */
  let lastTree: string | undefined;
  /** Paths where the index may differ from `alignTo` (trees made without it), until it is brought in line. */
  const unaligned = new Set<string>();
  /** The last tree made without the index. */
  let alignTo: string | undefined;

  const stamp = () => {
    try {
      const info = statSync(projectExclude);
      return `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
    } catch {
      return "none";
    }
  };

  /**
   * A file with another name: a write through that name raises an event in the other name's folder only (inotify
   * watches folders), so this file may have changed unseen.
   */
  const hardLinked = (path: string) => {
    try {
      const info = lstatSync(path);
      return info.isFile() && info.nlink > 1;
    } catch {
      return false;
    }
  };

  /** The answer's paths as a snapshot reads them (relative), or undefined when the whole tree must be read. */
  function changedPaths(paths: readonly string[] | "all", exclude: string): string[] | undefined {
    if (paths === "all" || paths.length > MAX_CHANGED || exclude !== excludeSeen) return undefined;
    const changed: string[] = [];
    for (const path of paths) {
      if (!isInside(path, root)) continue;
      // The root itself (for an entry there whose name is not UTF-8: gitGuard/watch.ts): the whole tree.
      if (path === root) return undefined;
      const relativePath = relative(root, path);
      const parts = relativePath.split(sep);
      // The project's own git folder is never in a snapshot.
      if (parts[0] === ".git") continue;
      if (parts.includes(".git") || parts.at(-1) === ".gitignore") return undefined;
      if (excluded.some((out) => isInside(relativePath, out))) continue;
      if (hardLinked(path)) return undefined;
      changed.push(relativePath);
    }
    return changed;
  }

  async function inLine(): Promise<boolean> {
    if (unaligned.size === 0) return true;
    const paths = [...unaligned];
    unaligned.clear();
    if (alignTo !== undefined && (await options.align(alignTo, paths))) return true;
    options.disable("the snapshot index could not be brought up to date (git failed).");
    return false;
  }

  /** A snapshot through the index (once it is in line). */
  async function throughIndex(scope?: SnapshotScope): Promise<string | undefined> {
    return (await inLine()) ? options.take(scope) : undefined;
  }

  /** The last tree with what is at `paths` now, without the index; undefined when that cannot be made exactly. */
  async function edited(paths: readonly string[]): Promise<string | undefined> {
    const edit = lastTree === undefined ? undefined : await options.edit(lastTree, paths);
    if (!edit) return undefined;
    for (const path of edit.paths) unaligned.add(path);
    alignTo = edit.tree;
    return edit.tree;
  }

  return {
    async take(scope) {
      if (scope) {
        lastTree = (await edited(scope.written)) ?? (await throughIndex(scope));
        return lastTree;
      }
      // Asked before the snapshot is taken: a change made while it is taken is in the next answer.
      const answer = options.lasting() ? undefined : await changesSince?.(root, token);
      const exclude = stamp();
      const changed =
        answer && token !== undefined && lastTree !== undefined ? changedPaths(answer.paths, exclude) : undefined;
      token = undefined;
      const tree = changed?.length === 0 ? lastTree : ((changed && (await edited(changed))) ?? (await throughIndex()));
      if (tree !== undefined && answer && answer.token !== "") {
        token = answer.token;
        excludeSeen = exclude;
      }
      lastTree = tree;
      return tree;
    },
    inLine,
    forget() {
      token = undefined;
      lastTree = undefined;
    },
  };
}
