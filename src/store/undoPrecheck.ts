// Before the undo store's first snapshot: reasons not to take one at all, found without walking
// the project. A folder that is gone gets its own reason (not "git is not installed", which is
// what its failing git would say). A folder in no git repository (a home folder, /, a download
// folder) is counted first, and only up to the file limit: a snapshot would otherwise walk all of
// it, for seconds or minutes, before the limit switched undo off.
import { lstatSync } from "node:fs";
import { opendir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { groupedCount } from "../text/count.ts";

/** Whether `root` or a folder above it holds .git (then .gitignore keeps the walk to the project). */
function inGitRepository(root: string): boolean {
  for (let dir = root; ; dir = dirname(dir)) {
    try {
      lstatSync(join(dir, ".git"));
      return true;
    } catch {
      // Not here.
    }
    if (dirname(dir) === dir) return false;
  }
}

/** Counts the files under `root`, stopping once there are more than `limit`; symlinks are not followed. */
async function moreFilesThan(root: string, limit: number, skip: ReadonlySet<string> = new Set()): Promise<boolean> {
  let count = 0;
  const folders = [root];
  while (folders.length > 0) {
    const folder = folders.pop() as string;
    let entries: Awaited<ReturnType<typeof opendir>>;
    try {
      entries = await opendir(folder, { bufferSize: 256 });
    } catch {
      continue; // Unreadable: git would skip it too.
    }
    for await (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!skip.has(path)) folders.push(path);
      } else if (++count > limit) {
        await entries.close().catch(() => {});
        return true;
      }
    }
  }
  return false;
}

/** Why undo is off before any snapshot, or undefined to go on. */
export async function undoPrecheck(
  root: string,
  maxFiles: number,
  excluded: readonly string[],
): Promise<string | undefined> {
  try {
    if (!lstatSync(root).isDirectory()) return "the project folder is no longer a folder.";
  } catch {
    return `the project folder ${root} no longer exists (it was deleted or moved after this session started).`;
  }
  if (inGitRepository(root)) return undefined;
  const skip = new Set(excluded.map((path) => join(root, path)));
  if (!(await moreFilesThan(root, maxFiles, skip))) return undefined;
  return (
    `this folder is in no git repository and holds more than ` +
    `${groupedCount(maxFiles)} files, so Garuda does not walk it for snapshots. ` +
    `Start Garuda in the project's own folder, or make it a repository (\`git ` +
    `init\`) with generated folders in .gitignore.`
  );
}
