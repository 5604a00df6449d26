// The undo store's first index, taken from the project's own git (undo.ts). A snapshot is
// `git add -A` into the store's index: with an empty index every file of the project is read,
// hashed and written into the store (seconds for 10,000 files, minutes for Linux). When the
// project folder is the top of a git work tree, the store starts from a copy of the project's
// index instead, and borrows the project's objects read-only (objects/info/alternates), so only
// the files that differ from what the user's git has already hashed are read.
//
// The copy is the project's, so it is checked before use: an entry git would not look at again
// (assume-unchanged, skip-worktree: a sparse checkout), or an index the store's git cannot read
// (a split index), and the store starts empty instead. The copy's time is set one second before
// the original's: git takes an entry changed in the same second as its index as possibly
// changed, and an older index only makes more entries so (re-read, never trusted wrongly).
// No program of the project runs: the store's git keeps its hardening (undoGit.ts).
import { copyFileSync, existsSync, lstatSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { GitRunner } from "./undoGit.ts";

/** The project's index and object store, when `root` is the top of a git work tree with a .git folder. */
function projectGit(root: string): { index: string; objects: string } | undefined {
  const dotGit = join(root, ".git");
  try {
    if (!lstatSync(dotGit).isDirectory()) return undefined;
    const index = join(dotGit, "index");
    const objects = join(dotGit, "objects");
    if (!lstatSync(index).isFile() || !lstatSync(objects).isDirectory()) return undefined;
    return { index, objects };
  } catch {
    return undefined;
  }
}

/** Adds the project's object store to the store's alternates (once; kept: older snapshots may name its objects). */
function borrowObjects(gitDir: string, objects: string): void {
  const file = join(gitDir, "objects", "info", "alternates");
  const lines = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
  if (lines.includes(objects)) return;
  writeFileSync(file, [...lines, objects].map((line) => `${line}\n`).join(""));
}

/**
 * Starts the store's index as a copy of the project's (when there is no index yet and the copy
 * can be trusted to be looked at again); true when it did. Never throws.
 */
export async function seedIndex(git: GitRunner): Promise<boolean> {
  const { root, gitDir, indexFile } = git.dirs;
  if (existsSync(indexFile)) return false;
  const project = projectGit(root);
  if (!project) return false;
  try {
    const { atime, mtimeMs } = lstatSync(project.index);
    copyFileSync(project.index, indexFile);
    utimesSync(indexFile, atime, new Date(mtimeMs - 1_000));
    borrowObjects(gitDir, project.objects);
  } catch {
    rmSync(indexFile, { force: true });
    return false;
  }
  // ls-files -v tags an assume-unchanged entry in lower case and a skip-worktree one with S.
  const check = await git.run({
    script: 'g ls-files -v >"$OUT" || exit 6\nif grep -q "^[a-zS] " "$OUT"; then exit 5; fi',
  });
  if (check.exitCode === 0) return true;
  rmSync(indexFile, { force: true });
  return false;
}
