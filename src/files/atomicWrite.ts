// Writing a whole file or nothing, for every writer of ~/.garuda and the sandbox's records. In
// src/files/ (a bottom folder) so the store and the sandbox need not import config/ for it; the
// one file of src/files/ that rule 7 lets write (test/support/architecture.ts).
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { writeAll } from "./writeAll.ts";

export interface AtomicWriteOptions {
  /** File mode of the new file (default 0o644). The temp file has it from creation on. */
  mode?: number;
  /** Mode of the parent folder if it has to be created (default 0o755). */
  dirMode?: number;
}

/**
 * Writes a whole file or nothing: the content goes to a temp file beside it, is flushed, then
 * renamed over the target. A crash leaves the old file or the new one, never half of either.
 */
export function writeFileAtomic(path: string, content: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: options.dirMode ?? 0o755 });
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  // "wx": never follow or reuse an existing file at the temp name.
  const fd = openSync(temp, "wx", options.mode ?? 0o644);
  try {
    writeAll(fd, content);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
