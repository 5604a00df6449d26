// Folders of a walk, held open so that each step is taken from the folder that was checked and
// not from a path that a process in the project may have re-pointed meanwhile. On Linux a child is
// opened through its parent's descriptor (/proc/self/fd/N/name) with O_NOFOLLOW, so it is that
// open folder's own entry, and a folder swapped for a symlink is refused rather than followed; by
// induction every folder of the walk is inside the checked one. (A folder moved away meanwhile is
// still walked where it is now: a sandboxed command cannot move one across its mounts, so that is
// still the project's own content; the files in it are opened by path and checked one by one.)
// Elsewhere (macOS) the child's path is opened and checked as checkedFile.ts checks a file: same
// device and inode, real path unchanged.
import { closeSync, constants, type Dirent, openSync, readdirSync } from "node:fs";
import { codeOf } from "../errors/caught.ts";
import { readRegularFile } from "../files/regularFile.ts";
import { type Changed, entry, type Opened, openChecked } from "./checkedFile.ts";

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

export interface PinnedFolder extends Opened {
  /** The folder's real path, as checked. */
  real: string;
}

export const childPath = (parent: string, name: string) => `${parent === "/" ? "" : parent}/${name}`;

/** Opens the folder at `realPath` (a real path, as checked). */
export function openPinned(realPath: string): PinnedFolder | Changed | { kind: "missing" } {
  const opened = openChecked(realPath, O_RDONLY, true);
  return "kind" in opened ? opened : { ...opened, real: realPath };
}

/** Opens the folder `name` inside `parent`; "changed" when it is a link now, or not where it should be. */
export function openChild(parent: PinnedFolder, name: string): PinnedFolder | Changed | { kind: "missing" } {
  const real = childPath(parent.real, name);
  if (!parent.proc) return openPinned(real);
  try {
    return {
      fd: openSync(entry(parent, parent.real, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK),
      proc: true,
      real,
    };
  } catch (error) {
    const code = codeOf(error);
    // ELOOP: a symlink now; ENOTDIR: something else took the folder's place.
    if (code === "ELOOP" || code === "ENOTDIR") return { kind: "changed" };
    return { kind: "missing" };
  }
}

/** The folder's entries, read from the open folder itself (Linux); undefined when it cannot be listed. */
export function listPinned(folder: PinnedFolder): Dirent[] | undefined {
  try {
    return readdirSync(folder.proc ? `/proc/self/fd/${folder.fd}` : folder.real, { withFileTypes: true });
  } catch {
    return undefined;
  }
}

export function closePinned(folder: PinnedFolder): void {
  try {
    closeSync(folder.fd);
  } catch {
    // Already closed.
  }
}

/** A path for `name` in the folder: through its descriptor on Linux, so it names that folder's entry. */
export function entryOf(folder: PinnedFolder, name: string): string {
  return entry(folder, folder.real, name);
}

/**
 * A small regular file `name` of the folder as text (a .gitignore), read from that folder's own
 * entry without following a link or waiting on a pipe; undefined for anything else.
 */
export function readSmallText(folder: PinnedFolder, name: string, maxBytes: number): string | undefined {
  const read = readRegularFile(entryOf(folder, name), { maxBytes, noFollow: true });
  return "bytes" in read ? read.bytes.toString("utf8") : undefined;
}
