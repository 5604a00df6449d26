import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh folder removed at the end of the `using` block: `using dir = tempDir("x")`. */
export function tempDir(prefix = "garuda-"): { path: string; [Symbol.dispose](): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}
