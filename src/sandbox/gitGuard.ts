// Files in a repository's .git that make git on the host read its config and hooks from
// somewhere else: `commondir` (git then uses that folder as the repository's common dir, with
// its config and hooks) and `config.worktree`. A sandboxed command may write `.git` (commits,
// branches), and these two cannot be held read-only where they do not exist: a read-only
// placeholder would be an empty file, and git refuses to run with an empty commondir. So they
// are checked after every sandboxed command instead: one that appeared is removed, one that
// changed is put back, and the command's output says so.
import { lstatSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const REDIRECTS = ["commondir", "config.worktree"] as const;

/** What each watched file held before a command (undefined: it did not exist). */
export interface GitSnapshot {
  dir: string;
  before: Map<string, string | undefined>;
}

function isDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The file's text, undefined when absent; a link, folder or unreadable thing counts as changed. */
function current(path: string): string | undefined | typeof OTHER {
  try {
    const stat = lstatSync(path);
    if (!stat.isFile()) return OTHER;
    return readFileSync(path, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? undefined : OTHER;
  }
}
const OTHER = Symbol("not a plain file");

/** Before a sandboxed command that may write the project: the watched files of `<root>/.git`. */
export function snapshotGit(root: string): GitSnapshot | undefined {
  const dir = join(root, ".git");
  if (!isDir(dir)) return undefined;
  const before = new Map<string, string | undefined>();
  for (const name of REDIRECTS) {
    const now = current(join(dir, name));
    before.set(name, now === OTHER ? undefined : now);
  }
  return { dir, before };
}

/** After it: puts every watched file back as it was; one line per file that had to be. */
export function restoreGit(snapshot: GitSnapshot): string[] {
  const notes: string[] = [];
  for (const [name, was] of snapshot.before) {
    const path = join(snapshot.dir, name);
    const now = current(path);
    if (now === was) continue;
    try {
      rmSync(path, { recursive: true, force: true });
      if (was !== undefined) writeFileSync(path, was);
      notes.push(
        `[Garuda: the command ${was === undefined ? "created" : "changed"} .git/${name}, which would make git on this computer take its config and hooks from elsewhere; Garuda ${was === undefined ? "removed it" : "put it back"}. Do not write .git/${name}.]`,
      );
    } catch (error) {
      notes.push(`[Garuda: the command changed .git/${name} and Garuda could not put it back (${(error as Error).message}); tell the user to check it before running git.]`);
    }
  }
  return notes;
}
