// The undo store's first index, taken from the project's own git (undo.ts). A snapshot is
// `git add -A` into the store's index: with an empty index every file of the project is read,
// hashed and written into the store (seconds for 10,000 files, minutes for Linux). When the
// project folder is the top of a git work tree, the store starts from a copy of the project's
// index instead, so only the files that differ from what the user's git has already hashed are
// read; the blobs the copy names are copied into a pack of the store's own (`pack-objects`,
// reusing the project's compressed data, no delta search). They are not borrowed: a turn may
// delete the project's .git (or prune its objects), and undo must still put its files back.
//
// The copy is the project's (a command in an earlier session may have written it), so it is
// checked before use, and the store starts empty instead when: an entry git would not look at
// again (assume-unchanged, skip-worktree: a sparse checkout); a path git would not check out
// (`..`, `.git`, absolute: `add -A` would read a file outside the project into a snapshot); an
// index the store's git cannot read (a split index); a blob missing from the project's objects
// (a partial clone); or objects the project borrows from elsewhere (its own alternates).
// The copy's time is set one second before the original's: git takes an entry changed in the
// same second as its index as possibly changed, and an older index only makes more entries so
// (re-read, never trusted wrongly). No program of the project runs: the store's git keeps its
// hardening (undoGit.ts).
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { type GitRunner, nulFields, shellQuote } from "./undoGit.ts";

/** The project's index and object store, when `root` is the top of a git work tree with a .git folder. */
function projectGit(root: string): { index: string; objects: string } | undefined {
  const dotGit = join(root, ".git");
  try {
    if (!lstatSync(dotGit).isDirectory()) return undefined;
    const index = join(dotGit, "index");
    const objects = join(dotGit, "objects");
    if (!lstatSync(index).isFile() || !lstatSync(objects).isDirectory()) return undefined;
    // Objects from elsewhere (a clone with --shared or --reference, or a crafted chain to another repository).
    if (existsSync(join(objects, "info", "alternates"))) return undefined;
    // git splits GIT_ALTERNATE_OBJECT_DIRECTORIES at ':' and unquotes an entry starting with '"'.
    if (/[:"\n]/.test(objects)) return undefined;
    return { index, objects };
  } catch {
    return undefined;
  }
}

/** A larger index is not copied (a crafted one would fill the disk once per session): Linux's is ~9 MB. */
const MAX_INDEX_BYTES = 256 * 1024 * 1024;

/**
 * Copies the project's index to `to`, its time set a second earlier; false when it is not a
 * regular file of at most MAX_INDEX_BYTES. Opened without following a link that a sandboxed
 * command swapped in after the lstat, nor waiting on a FIFO.
 */
export function copyIndex(from: string, to: string): boolean {
  const fd = openSync(from, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_INDEX_BYTES) return false;
    writeFileSync(to, readFileSync(fd), { mode: 0o600 });
    // Entries changed in the same second as the index are looked at again (racy-git), and so are all
    // the entries of a copy that seems older than its own entries.
    utimesSync(to, stat.atime, new Date(stat.mtimeMs - 1_000));
    return true;
  } finally {
    closeSync(fd);
  }
}

/** Whether git would check `path` out (verify_path): relative, no empty, `.`, `..` or `.git` component. */
export function isCheckoutPath(path: string): boolean {
  if (path.startsWith("/")) return false;
  return path.split("/").every((part) => {
    if (part === "" || part === "." || part === "..") return false;
    // Also `.git.`, `.GIT ` and the 8.3 name `git~1`: the same folder on some file systems.
    const name = part.toLowerCase().replace(/[. ]+$/, "");
    return name !== ".git" && name !== "git~1";
  });
}

/** Whether the copied index may be used: `ls-files -z -v` output (a tag, a space, the path). */
function trustworthy(listing: Buffer): boolean {
  // -v tags an assume-unchanged entry in lower case and a skip-worktree one with S.
  return nulFields(listing).every((entry) => /^[A-RT-Z] /.test(entry) && isCheckoutPath(entry.slice(2)));
}

/**
 * Starts the store's index as a copy of the project's (when there is no index yet and the copy
 * can be trusted to be looked at again), with the blobs it names copied into the store; true
 * when it did. Never throws.
 */
export async function seedIndex(git: GitRunner): Promise<boolean> {
  const { root, indexFile } = git.dirs;
  if (existsSync(indexFile)) return false;
  const project = projectGit(root);
  if (!project) return false;
  try {
    if (!copyIndex(project.index, indexFile)) return false;
  } catch {
    rmSync(indexFile, { force: true });
    return false;
  }
  const check = await git.run({ script: 'g ls-files -z -v >"$OUT"', capture: true });
  if (check.exitCode === 0 && trustworthy(check.stdout)) {
    // The blobs (not gitlinks: those name commits of other repositories), read through the project's objects, and
    // the trees of the index's cache of trees, which the project has too: without them the first snapshot writes
    // every folder's tree anew, one file each (seconds on Linux's 5,100 folders). Those trees are taken only when
    // they hold exactly what the index names (diff-index): a cache a command wrote cannot slip other files in.
    const copied = await git.run({
      script: [
        "set -o pipefail",
        `export GIT_ALTERNATE_OBJECT_DIRECTORIES=${shellQuote(project.objects)}`,
        'root=$(g write-tree) && g diff-index --cached --quiet --no-renames "$root" -- || root=',
        `{ g ls-files -s | awk '$1 != "160000" { print $2 }'; ` +
          '[ -z "$root" ] || g rev-list --objects --no-object-names "$root"; } | sort -u |',
        `  g pack-objects -q --window=0 "$GIT_DIR/objects/pack/pack" >/dev/null`,
      ].join("\n"),
    });
    if (copied.exitCode === 0) return true;
  }
  rmSync(indexFile, { force: true });
  return false;
}
