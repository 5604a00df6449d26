// Names in a watched tree (watch.ts) as the file system has them: Linux names are bytes, and one
// that is not UTF-8 reads back with U+FFFD in it, which names no file.
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

/** Whether `dir` holds a folder whose name is not UTF-8 (its name read as bytes). */
export function holdsUnnamed(dir: string): boolean {
  try {
    return readdirSync(dir, { encoding: "buffer" }).some(
      (name) =>
        !Buffer.from(name.toString("utf8")).equals(name) &&
        lstatSync(Buffer.concat([Buffer.from(`${dir}/`), name])).isDirectory(),
    );
  } catch {
    return false;
  }
}
