// The terminal commands end the process themselves once their output is written: a pooled
// keep-alive connection to the model's server (or a server that is slow to close one) must not
// keep a finished `garuda run` or chat alive.

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
