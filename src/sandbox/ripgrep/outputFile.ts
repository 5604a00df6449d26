// rg's output through a file with no name rather than a pipe. rg's parallel search writes each
// file's results with a write of its own (31,000 of them for a count over a tree shaped like
// Linux); read from a pipe, every one woke the agent: 0.4 s of its CPU, more than all the checks
// made on what rg found, and as much again of rg's. Written to a file, rg never waits on the
// reader, and the reader takes what has come every few milliseconds (POLL_MS), in large pieces, while rg
// runs: what is done with the output still overlaps rg's run, and its size is still known as it
// grows (the runner's limit and stall watch).
//
// The file is made with O_TMPFILE: it has no name, so nothing can open it, put something in its
// place or read it but this process and rg (whose only way to it is its stdout). Where the temp
// folder's file system cannot make one (or the platform has no O_TMPFILE), the runner reads a
// pipe as before; a named file, even unlinked at once, could be opened in between.
import { closeSync, constants, openSync, readSync } from "node:fs";
import { tmpdir } from "node:os";

/** Linux's O_TMPFILE (__O_TMPFILE | O_DIRECTORY), which Node's constants do not name. */
const O_TMPFILE = 0o20000000 | constants.O_DIRECTORY;
/**
 * How long the reader waits when it has taken everything written so far: 2 ms after rg printed,
 * twice as long after each look that found nothing, up to 50 ms (a search that prints little for
 * seconds is looked at 20 times a second, not 500).
 */
const POLL_MS = 2;
const MAX_POLL_MS = 50;
const READ_BYTES = 1024 * 1024;

/** A file with no name in the temp folder, open for reading and writing, or undefined where none can be made. */
export function unnamedFile(dir: string = tmpdir()): number | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    return openSync(dir, constants.O_RDWR | O_TMPFILE, 0o600);
  } catch {
    return undefined;
  }
}

export function closeFile(fd: number | undefined): void {
  if (fd === undefined) return;
  try {
    closeSync(fd);
  } catch {
    // Closed already.
  }
}

/**
 * Hands `take` what is written to `fd` as it is written, until the writer has exited and
 * everything it wrote is taken, or `take` says stop (false). A chunk is valid only during the
 * call (the buffer is reused).
 */
export async function readAsWritten(
  fd: number,
  exited: Promise<unknown>,
  take: (chunk: Uint8Array) => boolean,
): Promise<void> {
  let done = false;
  const finished = exited.then(() => {
    done = true;
  });
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  let position = 0;
  let wait = POLL_MS;
  for (;;) {
    // Whether the writer had exited before this read: then this read saw all it wrote.
    const last = done;
    const got = readSync(fd, buffer, 0, READ_BYTES, position);
    if (got > 0) {
      position += got;
      wait = POLL_MS;
      if (!take(buffer.subarray(0, got))) return;
      // Let the event loop run (cancel, other sessions) between pieces.
      await new Promise((resolve) => setImmediate(resolve));
    } else if (last) {
      return;
    } else {
      await Promise.race([Bun.sleep(wait), finished]);
      wait = Math.min(wait * 2, MAX_POLL_MS);
    }
  }
}
