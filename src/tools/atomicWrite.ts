// The file tools' writer: the new content goes to a temp file in the target's own folder, is
// flushed and renamed over the target, so a crash leaves the old file or the new one. The
// target is the real path (the caller has resolved symlinks), so a symlink stays a symlink and
// its target gets the new content. An existing file keeps its mode bits.
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

const NEW_FILE_MODE = 0o644;

/** Writes `content` to `realPath` atomically; returns the mode the file has. */
export function writeTextAtomic(realPath: string, content: string | Uint8Array): number {
  const dir = dirname(realPath);
  let mode = NEW_FILE_MODE;
  try {
    mode = statSync(realPath).mode & 0o7777;
  } catch {
    mkdirSync(dir, { recursive: true });
  }
  const temp = join(dir, `.${basename(realPath)}.garuda-${randomBytes(6).toString("hex")}.tmp`);
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  // "wx": never reuse or follow something already at the temp name.
  const fd = openSync(temp, "wx", mode);
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
    closeSync(fd);
    // The umask may have narrowed the mode given to open().
    chmodSync(temp, mode);
    renameSync(temp, realPath);
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // Already closed.
    }
    rmSync(temp, { force: true });
    throw error;
  }
  return mode;
}
