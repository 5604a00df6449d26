// The one way the tests make a temporary folder (test/layout.test.ts keeps it the only one).
// `tempDir` is for a folder that lives as long as a `using` block; `makeTempDir` for one whose
// owner removes it itself (a beforeAll/afterAll pair, a harness with its own dispose).
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TempDirOptions {
  /** The folder to make it in: another temp folder, or "/tmp" itself for a test about the
   *  host's /tmp whatever TMPDIR says. The system's temp folder when left out. */
  under?: string;
  /** The path with its links resolved (macOS's /var → /private/var, a TMPDIR through a link), for
   *  a test that compares it with paths the kernel, the sandbox or a child process report. */
  real?: boolean;
}

/** A fresh folder, `prefix` then random characters; the caller removes it. */
export function makeTempDir(prefix = "garuda-", options: TempDirOptions = {}): string {
  const path = mkdtempSync(join(options.under ?? tmpdir(), prefix));
  return options.real ? realpathSync(path) : path;
}

/** A fresh folder removed at the end of the `using` block: `using dir = tempDir("x")`. */
export function tempDir(prefix = "garuda-", options: TempDirOptions = {}): { path: string; [Symbol.dispose](): void } {
  const path = makeTempDir(prefix, options);
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}
