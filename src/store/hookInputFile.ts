// The file a hook reads its event from ($GARUDA_HOOK_INPUT): private to this user (0600 in a
// fresh 0700 folder), removed when the hook has run.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface HookInputFile {
  readonly path: string;
  [Symbol.dispose](): void;
}

/** Writes `content` to `<parent>/garuda-hook-XXXXXX/input.json`; dispose removes the folder. */
export function writeHookInputFile(parent: string, content: string): HookInputFile {
  const dir = mkdtempSync(join(parent, "garuda-hook-"));
  const path = join(dir, "input.json");
  try {
    writeFileSync(path, content, { mode: 0o600, flag: "wx" });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { path, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}
