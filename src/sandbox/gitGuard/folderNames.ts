// Names in a watched tree (watch.ts) as the file system has them: Linux names are bytes, and one
// that is not UTF-8 reads back with U+FFFD in it, which names no file. Such folders are found by
// reading their parent as bytes, and moved aside by those bytes (quarantine.ts).
import { lstatSync, readdirSync } from "node:fs";

/** Whether `path` is a folder (not through a symlink). */
export const isFolder = (path: string) => {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
};
/** A name read with U+FFFD in it: it may not be the name on disk (bytes that are not UTF-8 read back as U+FFFD). */
export const isLossy = (name: string) => name.includes("\uFFFD");

const isUtf8 = (name: Buffer) => Buffer.from(name.toString("utf8")).equals(name);

/** The names (as bytes) of the folders in `dir` whose name is not UTF-8 (not through a symlink). */
export function unnamedIn(dir: string): Buffer[] {
  try {
    // (Bun's readdirSync gives no Dirents with encoding "buffer": each is looked at with lstat.)
    return readdirSync(dir, { encoding: "buffer" }).filter(
      (name) => !isUtf8(name) && lstatSync(Buffer.concat([Buffer.from(`${dir}/`), name])).isDirectory(),
    );
  } catch {
    return [];
  }
}

/** Whether `dir` holds a folder whose name is not UTF-8 (its name read as bytes). */
export const holdsUnnamed = (dir: string) => unnamedIn(dir).length > 0;

/** The folders known to hold a folder whose name is not UTF-8 (watch.ts); `found` is called each time one is noted. */
export function createUnnamedSet(found: () => void) {
  const dirs = new Set<string>();
  return {
    /** A folder named `name` (as read: lossy) in `dir`, which may be one whose name is not UTF-8. */
    note(dir: string, name: string): void {
      if (!isLossy(name) || !holdsUnnamed(dir)) return;
      dirs.add(dir);
      found();
    },
    /** Those that hold one still. */
    now(): string[] {
      for (const dir of dirs) if (!holdsUnnamed(dir)) dirs.delete(dir);
      return [...dirs];
    },
    clear: () => dirs.clear(),
  };
}

/** A name that is not UTF-8 in printable ASCII, each other byte as \xNN (as bash's $'…' would write it). */
export const shownName = (name: Buffer) =>
  [...name]
    .map((byte) =>
      byte >= 0x20 && byte < 0x7f && byte !== 0x5c
        ? String.fromCharCode(byte)
        : `\\x${byte.toString(16).padStart(2, "0")}`,
    )
    .join("");
