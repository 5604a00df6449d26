// The few questions the launchers ask of the file system, behind an interface so the argv
// builders stay pure functions of (spec, fs) and tests can pin them with a fake tree.
import { lstatSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { readRegularFile } from "../files/regularFile.ts";

export type PathKind = "dir" | "file" | "symlink" | "missing";

export interface FsView {
  /** What is at `path`, without following a final symlink (sockets and devices count as files). */
  kind(path: string): PathKind;
  /** The path with every symlink resolved; the path itself when it cannot be resolved. */
  realpath(path: string): string;
  /** A small text file's content, or undefined (used for `.git` files: `gitdir: …`). */
  readText(path: string): string | undefined;
}

export const realFs: FsView = {
  kind(path) {
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) return "symlink";
      return stat.isDirectory() ? "dir" : "file";
    } catch {
      return "missing";
    }
  },
  realpath(path) {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  },
  readText(path) {
    // A regular file only: a FIFO where a `.git` file is would block a plain read (and session/new) for good.
    const read = readRegularFile(path, { maxBytes: 64 * 1024 });
    return "bytes" in read ? read.bytes.toString("utf8").slice(0, 4096) : undefined;
  },
};

/** An FsView that can also read a link's target and list a folder; realFs gets node's (FsView has neither). */
export type LinkFsView = FsView & { readlink?(path: string): string | undefined; list?(path: string): string[] };

export function listDir(path: string, fs: LinkFsView): string[] {
  if (fs.list) return fs.list(path);
  if (fs !== realFs) return [];
  try {
    return readdirSync(path).sort();
  } catch {
    return [];
  }
}

export function readLink(path: string, fs: LinkFsView): string | undefined {
  if (fs.readlink) return fs.readlink(path);
  if (fs !== realFs) return undefined;
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** Number of components: "/" → 0, "/a/b" → 2. Used to order mounts parents-first. */
function depth(path: string): number {
  return path === "/" ? 0 : path.split("/").length - 1;
}

/** Parents first, then by name: the order bind mounts must be made in. */
export function byDepth(a: string, b: string): number {
  return depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0);
}
