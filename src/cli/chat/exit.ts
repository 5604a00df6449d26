// The terminal commands end the process themselves once their output is written: a pooled
// keep-alive connection to the model's server (or a server that is slow to close one) must not
// keep a finished `garuda run` or chat alive. A crash of the chat is reported as Garuda's, not Bun's.
import { describeFailure } from "../errors.ts";

function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (!stream.write("", () => resolve())) stream.once("drain", () => resolve());
  });
}

/** Waits until stdout and stderr have taken everything, then exits with `code`. */
export async function exitWhenWritten(code: number): Promise<never> {
  await Promise.race([Promise.all([drained(process.stdout), drained(process.stderr)]), Bun.sleep(2_000)]);
  process.exit(code);
}

/**
 * While the chat runs, an error nothing caught (a bug) ends it as Bun would, with exit code 1,
 * but with the terminal given back first (`restore`: raw mode off) and Garuda's one report
 * instead of Bun's (a source excerpt and "Bun v1.x (Linux x64)", a runtime the user never
 * chose). Returns what takes the handlers off again.
 */
export function reportCrashes(restore: () => void): () => void {
  const onCrash = (error: unknown) => {
    try {
      restore();
    } catch {
      // The report matters more than a terminal that would not be restored.
    }
    process.stderr.write(`\n${describeFailure(error).text}\n`);
    process.exit(1);
  };
  process.on("uncaughtException", onCrash);
  process.on("unhandledRejection", onCrash);
  return () => {
    process.off("uncaughtException", onCrash);
    process.off("unhandledRejection", onCrash);
  };
}
