// What the undo store's next snapshot must read (undo.ts): with the git guard's change log
// (sandbox/gitGuard/changeLog.ts), only the paths changed since the last snapshot, so a turn's
// snapshot costs what changed, not the size of the tree; else every file's stat data, as git's
// `add -A` reads it.
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

/** Most changed paths a snapshot reads by name (past this, `add -A` costs less). */
const MAX_CHANGED = 1_000;

export interface ChangeScopeOptions {
  root: string;
  /** Paths (relative) no snapshot holds. */
  excluded: readonly string[];
  changesSince: Executor["changesSince"];
  /** Takes a snapshot of a scope (undoSnapshot.ts). */
  take(scope?: SnapshotScope): Promise<string | undefined>;
  /** A process a command started may still run (it may write through an mmap). */
  lasting(): boolean;
}

export interface ScopedSnapshots {
  /** A snapshot of the files a tool wrote (`scope`), or of what changed since the last one; its tree. */
  take(scope?: SnapshotScope): Promise<string | undefined>;
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
  /** The tree of the last snapshot: the index holds it. */
  let lastTree: string | undefined;

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

  return {
    async take(scope) {
      if (scope) {
        lastTree = await options.take(scope);
        return lastTree;
      }
      // Asked before the snapshot is taken: a change made while it is taken is in the next answer.
      const answer = options.lasting() ? undefined : await changesSince?.(root, token);
      const exclude = stamp();
      const changed =
        answer && token !== undefined && lastTree !== undefined ? changedPaths(answer.paths, exclude) : undefined;
      token = undefined;
      const tree =
        changed?.length === 0 ? lastTree : await options.take(changed === undefined ? undefined : { changed });
      if (tree !== undefined && answer && answer.token !== "") {
        token = answer.token;
        excludeSeen = exclude;
      }
      lastTree = tree;
      return tree;
    },
    forget() {
      token = undefined;
      lastTree = undefined;
    },
  };
}
