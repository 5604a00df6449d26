// Reading a small file that must be a regular file, without ever waiting on it. A FIFO, socket
// or device where a settings file, an instruction file or a `.git` file should be would block a
// plain read until something writes to it, and with it the whole process (every session of
// `garuda acp`). Here the file is opened with O_NONBLOCK (a FIFO opens at once, without waiting
// for a writer) and checked on the open descriptor before anything is read.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

const { O_RDONLY, O_NONBLOCK, O_NOCTTY, O_NOFOLLOW } = constants;

export type RegularFileRead =
  | { bytes: Buffer }
  | { problem: "missing" }
  /** A folder, pipe, socket or device. */
  | { problem: "folder" | "not_regular" }
  /** A symbolic link, with `noFollow`. */
  | { problem: "link" }
  | { problem: "too_big"; size: number }
  /** With `own`: the file belongs to another user, or has a mode bit `own.deniedMode` forbids. */
  | { problem: "not_own" }
  | { problem: "open_mode"; mode: number }
  | { problem: "unreadable"; code: string };

export interface RegularFileOptions {
  maxBytes: number;
  /** Refuse a symbolic link as the last component instead of following it. */
  noFollow?: boolean;
  /** A file of the user's own only (keys, pins): no bit of `deniedMode` set (0o077: only the user may read it). */
  own?: { deniedMode: number };
}

/** The bytes of the regular file at `path`, or why there are none. Never throws, never blocks on a pipe. */
export function readRegularFile(path: string, options: RegularFileOptions): RegularFileRead {
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | (options.noFollow ? O_NOFOLLOW : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { problem: "missing" };
    if (code === "ELOOP" && options.noFollow) return { problem: "link" };
    return { problem: "unreadable", code };
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) return { problem: "folder" };
    if (!stat.isFile()) return { problem: "not_regular" };
    if (options.own) {
      if (typeof process.getuid === "function" && stat.uid !== process.getuid()) return { problem: "not_own" };
      if ((stat.mode & options.own.deniedMode) !== 0) return { problem: "open_mode", mode: stat.mode };
    }
    if (stat.size > options.maxBytes) return { problem: "too_big", size: stat.size };
    // Up to one byte past the limit: a file that grew since fstat is still caught.
    const buffer = Buffer.alloc(Math.min(options.maxBytes + 1, Math.max(stat.size, 0) + 1));
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n)
      n = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > options.maxBytes) return { problem: "too_big", size: length };
    return { bytes: buffer.subarray(0, length) };
  } catch (error) {
    return { problem: "unreadable", code: (error as NodeJS.ErrnoException).code ?? String(error) };
  } finally {
    closeSync(fd);
  }
}
