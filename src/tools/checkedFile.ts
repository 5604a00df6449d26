// Reading and writing exactly the file a permission check named. Between the check and the read or
// write (an approval, an undo snapshot) a process in the project, such as a sandboxed background
// command, can swap the file or one of its folders for a symlink, so a path string checked earlier
// may lead somewhere else now. Here a file is opened by its checked real path with O_NOFOLLOW (a
// symlink as the last component fails), then the kernel is asked where the open file really is —
// readlink of /proc/self/fd/N on Linux; elsewhere the open file's device and inode against the
// path's, with the path's real path unchanged — and anything else is refused as "changed".
//
// A write opens the target's folder the same way (O_DIRECTORY | O_NOFOLLOW, checked), creates its
// temp file in that folder with O_EXCL | O_NOFOLLOW, flushes it and renames it over the target.
// On Linux both go through /proc/self/fd/<folder fd>/<name>, which names an entry of the folder
// that was opened and checked, whatever its path leads to by then; so the temp file and the rename
// cannot be steered elsewhere, and a symlink swapped in as the target at the last moment is
// replaced by the new file, never written through. Missing folders of a new file are made one at a
// time, each inside a folder opened and checked the same way.
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  type Dirent,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { writeAll } from "../files/writeAll.ts";
import { codeOf } from "../errors/caught.ts";
import { realPathOf } from "./paths.ts";
import { binaryKind, decodeText, invalidUtf8Bytes, type LoadedFile, MAX_TEXT_BYTES } from "./textFile.ts";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK, O_NOCTTY } = constants;
/** O_NONBLOCK: a FIFO opens at once (and is then refused as special) instead of hanging the tool. */
export const READ_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const NEW_FILE_MODE = 0o644;

/** The checked path no longer leads to the checked file; `now`: where it leads instead, when known. */
export interface Changed {
  kind: "changed";
  now?: string;
}

export interface Opened {
  fd: number;
  /** /proc/self/fd works: entries of this (folder) fd can be named as /proc/self/fd/N/name. */
  proc: boolean;
}

/** Where an open file really is (Linux), or undefined when /proc/self/fd cannot tell. */
function fdPath(fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/** Whether the open `fd` is the file at `realPath` (which has no symlink in it). */
export function verify(fd: number, realPath: string): { ok: true; proc: boolean } | { ok: false; now?: string } {
  const actual = fdPath(fd);
  if (actual !== undefined)
    return actual === realPath ? { ok: true, proc: true } : { ok: false, now: actual.replace(/ \(deleted\)$/, "") };
  // No /proc (macOS): the same device and inode as the path, and the path still has no symlink.
  try {
    const open = fstatSync(fd);
    const named = lstatSync(realPath);
    if (open.dev === named.dev && open.ino === named.ino && realpathSync(realPath) === realPath)
      return { ok: true, proc: false };
  } catch {
    // Gone or unreadable: not the same file.
  }
  return { ok: false };
}

/** The path's current meaning, for a message. */
function leadsNow(path: string): string | undefined {
  const now = realPathOf(path);
  return now === path ? undefined : now;
}

const changedTo = (path: string): Changed => {
  const now = leadsNow(path);
  return now === undefined ? { kind: "changed" } : { kind: "changed", now };
};

/**
 * What is at `path`, without following a symlink or opening it. Devices, FIFOs and sockets are
 * never opened (an open can have effects: a FIFO's writer wakes up, some devices act on it); the
 * open that follows a "file" still checks what it got, in case it was swapped in between.
 */
function lookAt(path: string): "missing" | "link" | "file" | "folder" | "special" {
  try {
    // Nothing there is the common case (a folder without a .gitignore): no error made for it.
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat === undefined) return "missing";
    return stat.isSymbolicLink() ? "link" : stat.isFile() ? "file" : stat.isDirectory() ? "folder" : "special";
  } catch {
    // What cannot be looked at counts as missing.
    return "missing";
  }
}

/**
 * Opens `realPath` (a real path: no symlinks in it) and checks that the open file is the one at
 * that path. "missing" when nothing is there; "changed" when a symlink or another file took its
 * place. Other errors (permissions) are thrown as they are.
 */
export function openChecked(realPath: string, flags: number, folder = false): Opened | Changed | { kind: "missing" } {
  let fd: number;
  try {
    fd = openSync(realPath, flags | O_NOFOLLOW | (folder ? O_DIRECTORY : 0));
  } catch (error) {
    const code = codeOf(error);
    if (code === "ENOENT") return { kind: "missing" };
    if (code === "ELOOP" || code === "EMLINK" || code === "ENOTDIR") {
      let link = false;
      try {
        link = lstatSync(realPath).isSymbolicLink();
      } catch {
        // Gone again.
      }
      if (link) return changedTo(realPath);
      // A file where a folder was (in the path, or the folder itself): nothing to open there.
      if (code === "ENOTDIR" && !folder) return { kind: "missing" };
    }
    throw error;
  }
  const verdict = verify(fd, realPath);
  if (verdict.ok) return { fd, proc: verdict.proc };
  closeSync(fd);
  return verdict.now === undefined ? { kind: "changed" } : { kind: "changed", now: verdict.now };
}

/** A path naming `name` inside the opened folder itself (Linux), else by the folder's path. */
export function entry(folder: Opened, folderPath: string, name: string): string {
  return folder.proc ? `/proc/self/fd/${folder.fd}/${name}` : join(folderPath, name);
}

/**
 * Opens the folder `dir` (a real path), checked; with `create`, makes it and missing parents first,
 * but never `floor` itself or a folder above it (a project folder that vanished stays gone).
 */
function openFolder(dir: string, create: boolean, floor?: string): Opened | Changed | { kind: "missing" } {
  const opened = openChecked(dir, O_RDONLY, true);
  if (!("kind" in opened) || opened.kind !== "missing" || !create) return opened;
  if (floor !== undefined && !dir.startsWith(`${floor}/`)) return opened;
  const parentPath = dirname(dir);
  if (parentPath === dir) return opened;
  const parent = openFolder(parentPath, true, floor);
  if ("kind" in parent) return parent;
  try {
    mkdirSync(entry(parent, parentPath, basename(dir)));
  } catch (error) {
    if (codeOf(error) !== "EEXIST") throw error;
  } finally {
    closeSync(parent.fd);
  }
  return openChecked(dir, O_RDONLY, true);
}

function readAll(fd: number): Uint8Array {
  return new Uint8Array(readFileSync(fd));
}

/** The file at `realPath` as checked, as a LoadedFile, or "changed". */
export function loadChecked(realPath: string, maxBytes = MAX_TEXT_BYTES): LoadedFile | Changed {
  const seen = lookAt(realPath);
  if (seen === "missing") return { kind: "missing" };
  if (seen === "link") return changedTo(realPath);
  if (seen === "special") return { kind: "special" };
  // A folder's entries are read (and checked) by listChecked().
  if (seen === "folder") return { kind: "folder" };
  const opened = openChecked(realPath, READ_FLAGS);
  if ("kind" in opened) return opened;
  try {
    const stat = fstatSync(opened.fd);
    if (stat.isDirectory()) return { kind: "folder" };
    if (!stat.isFile()) return { kind: "special" };
    if (stat.size > maxBytes) return { kind: "too_big", size: stat.size };
    const bytes = readAll(opened.fd);
    if (bytes.length > maxBytes) return { kind: "too_big", size: bytes.length };
    const what = binaryKind(bytes);
    if (what !== undefined) return { kind: "binary", what, size: bytes.length, bytes };
    return {
      kind: "text",
      bytes,
      text: decodeText(bytes),
      mtimeMs: stat.mtimeMs,
      mode: stat.mode & 0o7777,
      invalidBytes: invalidUtf8Bytes(bytes),
      links: stat.nlink,
      dev: stat.dev,
      ino: stat.ino,
    };
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * A file read as checked now has more names (hard links) than its check saw: it is not the file
 * that was asked about (it was replaced by a hard link to another file, perhaps a secret).
 */
export function gainedLinks(loaded: LoadedFile | Changed, checkedLinks: number): boolean {
  return loaded.kind === "text" && loaded.links > 1 && loaded.links > checkedLinks;
}

/** The entries of the folder at `realPath` as checked; undefined when it cannot be listed. */
export function listChecked(realPath: string): Dirent[] | Changed | undefined {
  let opened: Opened | Changed | { kind: "missing" };
  try {
    opened = openChecked(realPath, O_RDONLY, true);
  } catch {
    return undefined;
  }
  if ("kind" in opened) return opened.kind === "changed" ? opened : undefined;
  try {
    return readdirSync(opened.proc ? `/proc/self/fd/${opened.fd}` : realPath, { withFileTypes: true });
  } catch {
    return undefined;
  } finally {
    closeSync(opened.fd);
  }
}

/** Why a write was not made: the path leads elsewhere now, or the file is not the one planned against. */
export type WriteRefusal = Changed | { kind: "created" } | { kind: "deleted" } | { kind: "modified" };

/** The file now at `name` in the opened folder: its bytes and mode, or why it cannot be the planned one. */
function currentFile(
  folder: Opened,
  dir: string,
  name: string,
): { bytes: Uint8Array; mode: number } | { kind: "missing" } | Changed {
  const realPath = join(dir, name);
  const seen = lookAt(entry(folder, dir, name));
  if (seen === "missing") return { kind: "missing" };
  if (seen === "link") return changedTo(realPath);
  if (seen !== "file") return { kind: "changed" };
  let fd: number;
  try {
    fd = openSync(entry(folder, dir, name), READ_FLAGS);
  } catch (error) {
    const code = codeOf(error);
    if (code === "ENOENT") return { kind: "missing" };
    if (code === "ELOOP" || code === "EMLINK") return changedTo(realPath);
    throw error;
  }
  try {
    // Through /proc the entry is the opened folder's own; without it, check the file as well.
    if (!folder.proc && !verify(fd, realPath).ok) return { kind: "changed" };
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { kind: "changed" };
    return { bytes: readAll(fd), mode: stat.mode & 0o7777 };
  } finally {
    closeSync(fd);
  }
}

const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);

/**
 * Writes `bytes` to the file at `realPath` (a real path, as checked), atomically, provided the file
 * there is still the one the change was planned against: `expected` is its content, null for a new
 * file. An existing file keeps its mode bits; a new one gets 0644 and its missing folders (below
 * `floor`, when given: the project root for a file inside it). Returns the new file's mtime, or why
 * nothing was written.
 */
export function writeChecked(
  realPath: string,
  bytes: Uint8Array,
  expected: Uint8Array | null,
  floor?: string,
): { mtimeMs: number } | WriteRefusal {
  const dir = dirname(realPath);
  const name = basename(realPath);
  const folder = openFolder(dir, expected === null, floor);
  if ("kind" in folder) return folder.kind === "missing" ? { kind: "deleted" } : folder;
  try {
    const current = currentFile(folder, dir, name);
    if ("kind" in current) {
      if (current.kind === "changed") return current;
      if (expected !== null) return { kind: "deleted" };
    } else if (expected === null) return { kind: "created" };
    else if (!sameBytes(current.bytes, expected)) return { kind: "modified" };
    const mode = "mode" in current ? current.mode : NEW_FILE_MODE;

    const tempName = `.${name}.garuda-${randomBytes(6).toString("hex")}.tmp`;
    const temp = entry(folder, dir, tempName);
    // O_EXCL | O_NOFOLLOW: never reuse or follow something already at the temp name.
    const fd = openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
    let open = true;
    try {
      writeAll(fd, bytes);
      fsyncSync(fd);
      // The umask may have narrowed the mode given to open().
      fchmodSync(fd, mode);
      const { mtimeMs } = fstatSync(fd);
      closeSync(fd);
      open = false;
      // Without /proc the names are paths again: check the folder is still the checked one just before.
      if (!folder.proc && !verify(folder.fd, dir).ok) {
        rmSync(temp, { force: true });
        return { kind: "changed" };
      }
      renameSync(temp, entry(folder, dir, name));
      return { mtimeMs };
    } catch (error) {
      if (open) closeSync(fd);
      rmSync(temp, { force: true });
      throw error;
    }
  } finally {
    closeSync(folder.fd);
  }
}
