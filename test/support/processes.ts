// Waiting in tests for something a real process does: a command running below this test process,
// or any condition, polled until a deadline.
import { readFileSync } from "node:fs";
import { descendants } from "../../src/sandbox/processTree.ts";

/** Live processes below this test process running exactly `argv`. */
export function running(argv: string[]): number[] {
  return descendants(process.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ") === argv.join(" ");
    } catch {
      return false;
    }
  });
}

/** Resolves once `check()` is true; throws after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await Bun.sleep(20);
  }
}
