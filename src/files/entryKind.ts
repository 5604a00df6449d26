// What is at a path, asked without throwing: a missing or unreadable path is "missing" (false).

import { lstatSync, statSync } from "node:fs";

export type EntryKind = "file" | "dir" | "symlink" | "other" | "missing";

/** What a path is, without following a final symlink. */
export function entryKind(path: string): EntryKind {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return "symlink";
    if (stat.isDirectory()) return "dir";
    return stat.isFile() ? "file" : "other";
  } catch {
    return "missing";
  }
}

/** A folder, following links (as git's access() does, and as a path the user named is meant). */
export function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
