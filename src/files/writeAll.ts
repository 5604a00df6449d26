// The one write loop for a file descriptor. writeSync may write fewer bytes than asked (a large
// buffer, a full disk's last blocks, an interrupted call), so every writer of a whole record or
// file loops until all of it is down.
import { writeSync } from "node:fs";

/** Writes all of `content` (a string is written as UTF-8) to `fd` at its current position. */
export function writeAll(fd: number, content: string | Uint8Array): void {
  const bytes = typeof content === "string" ? Buffer.from(content) : content;
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
}
