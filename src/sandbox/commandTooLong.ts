// A command line longer than the kernel takes. The command is one argument of `bash -c`, and
// exec refuses with E2BIG when one argument is over MAX_ARG_STRLEN (Linux: 32 pages, 128 KiB
// with 4 KiB pages) or all arguments and the environment together are over ARG_MAX (Linux: a
// quarter of the stack limit, 2 MB by default; macOS: 1 MB). Bun's own message names the program
// it tried to start (bwrap, for a sandboxed command), which blames the sandbox; this one says
// what happened and what to do.
import { groupedCount } from "../text/count.ts";

const LIMITS: Record<string, string> = {
  linux: "128 KiB for one argument, about 2 MB for all arguments and the environment together",
  darwin: "about 1 MB for all arguments and the environment together",
};

export class CommandTooLongError extends Error {
  constructor(
    /** The command's length in bytes (UTF-8). */
    readonly bytes: number,
    platform: NodeJS.Platform = process.platform,
  ) {
    const limit = LIMITS[platform] ?? "the system's ARG_MAX";
    super(
      `the command is ${groupedCount(bytes)} bytes, longer than the system allows for ` +
        `a command line (${limit}), so it did not run. ` +
        "Write it to a file (write_file) and run that file instead (bash path/to/script.sh)",
    );
    this.name = "CommandTooLongError";
  }
}

/** Runs `spawn`; an E2BIG from it becomes a CommandTooLongError naming the command's size. */
export function spawnOrExplain<T>(command: string, spawn: () => T): T {
  try {
    return spawn();
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === "E2BIG")
      throw new CommandTooLongError(Buffer.byteLength(command));
    throw error;
  }
}
