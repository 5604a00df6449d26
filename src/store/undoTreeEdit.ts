// A snapshot of the project that costs what changed, not what the project holds: the tree the
// store's full snapshot (undoSnapshot.ts: `git add -A`, the excluded paths taken out, `git
// write-tree`) would write, made from the last snapshot's tree and the paths that may have
// changed since (files or folders, relative, existing or not), when the work tree matched that
// tree everywhere else. No git call here reads the session's index (9 MB on Linux, read and
// written by every command that uses it): git's own `add -A` runs on a temporary index that
// holds only what base has at and below the paths, so git's rules decide as in a full snapshot
// (.gitignore, files tracked though ignored, modes, symlinks, nested repositories, file ↔ folder,
// empty folders). The folders above the paths are read from base, and the new trees are put
// together (undoTreeBuild.ts) and written (undoObjects.ts) here. One git call, five git processes,
// whatever the number of paths.
//
// The paths first stand for what their change may reach (undoTreePaths.ts): a .gitignore for its
// folder, a path in a nested repository's .git for the repository, a path below a folder that is
// no folder now (or holds a .git) for that folder; excluded paths are dropped.
//
// Undefined (the caller takes a full snapshot) when: a path is the root, not a clean relative path
// (empty, `.`, `..` parts), holds a newline or a replacement character (a name that was not UTF-8,
// which the caller cannot name), names a `.git` by another spelling (`.GIT`, `git~1`); the root's
// .gitignore, the project's .git/info/exclude (core.excludesFile), .git/info or .git changed; base
// holds a file or a symlink where a folder above a path now is (the caller missed that path's
// folder); the existing paths are too long for one command line; git fails (a nested repository
// without a commit: the full snapshot fails too) or times out. Below a nested repository that base
// records, nothing changes the snapshot, as with `add -A` (also when its .git is gone: git then
// takes it for a submodule not checked out and keeps the gitlink).
//
// The session's index is left as it was, so it no longer matches the latest tree: alignIndex()
// brings it in line at the paths of the trees made here before the next snapshot that uses it.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type GitRunner, shellQuote } from "./undoGit.ts";
import { writeLooseObjects } from "./undoObjects.ts";
import {
  type ComposeInput,
  composeTree,
  type IndexEntry,
  isAtOrBelow,
  parentOf,
  type TreeEntry,
} from "./undoTreeBuild.ts";
import { namedPaths, toBytes, widenOnDisk } from "./undoTreePaths.ts";

export interface TreeEditOptions {
  /** Paths (relative) no snapshot holds, even when .gitignore lets them in. */
  excluded: readonly string[];
  timeoutMs: number;
}

/** The most bytes of paths that go to git on a command line (ls-tree's; the limit is 1 MB on macOS). */
const MAX_PATH_BYTES = 256 * 1024;
const TREE_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** A tree editTree made, and where it may differ from base. */
export interface TreeEdit {
  tree: string;
  /** The paths (relative) as they were widened: a caller's path, or a folder above one. */
  paths: string[];
}

/**
 * The tree a full snapshot would write now, from `base` (the last snapshot's tree id) and the
 * paths that may have changed since; undefined when that cannot be made exactly (see above).
 */
export async function editTree(
  git: GitRunner,
  base: string,
  paths: readonly string[],
  options: TreeEditOptions,
): Promise<TreeEdit | undefined> {
  if (!TREE_ID.test(base)) return undefined;
  const excluded = options.excluded.map(toBytes);
  const named = namedPaths(paths, excluded);
  if (named === undefined) return undefined;
  if (named.length === 0) return { tree: base, paths: [] };
  const widened = await widenOnDisk(git.dirs.root, named);
  const changed = widened.map((path) => path.path);
  const existing = widened.filter((path) => path.exists).map((path) => path.path);
  const folders = [...new Set(changed.map(parentOf))].filter((folder) => folder !== "");
  if ([...existing, ...folders].reduce((sum, path) => sum + path.length + 2, 0) > MAX_PATH_BYTES) return undefined;
  let work: string | undefined;
  try {
    work = await mkdtemp(join(git.dirs.tmpDir, "edit-"));
    const read = await readAndAdd(git, work, base, folders, existing, options.timeoutMs);
    if (read === undefined) return undefined;
    const entries = read.entries.filter((entry) => !excluded.some((out) => isAtOrBelow(entry.path, out)));
    const composed = composeTree({ ...read.input, paths: changed, entries });
    if (composed === undefined) return undefined;
    await writeLooseObjects(git.dirs.gitDir, composed.trees);
    // Whole components of the caller's paths: UTF-8 again.
    return { tree: composed.root, paths: changed.map((path) => Buffer.from(path, "latin1").toString("utf8")) };
  } catch {
    // A file of the store could not be written (a full disk: the full snapshot says so), or git's output was not
    // what the script writes.
    return undefined;
  } finally {
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  }
}

/**
 * Brings the session's index in line with `tree` at `paths` (those of every TreeEdit made since it
 * last was): `git reset <tree> -- <paths>`, which also drops their cached stat data, so the next
 * `add -A` reads just those files again. A full snapshot (or one by paths) after trees made by
 * editTree must come after this: the index says which ignored files are tracked (and so kept).
 * It reads and writes the whole index once. False when git failed.
 */
export async function alignIndex(
  git: GitRunner,
  tree: string,
  paths: readonly string[],
  timeoutMs: number,
): Promise<boolean> {
  if (paths.length === 0) return true;
  if (!TREE_ID.test(tree)) return false;
  const file = join(git.dirs.tmpDir, `align-${randomBytes(6).toString("hex")}`);
  try {
    await writeFile(file, paths.map((path) => `${path}\0`).join(""));
    const script = `g reset -q ${tree} --pathspec-from-file=${shellQuote(file)} --pathspec-file-nul`;
    const result = await git.run({ script, literal: true, timeoutMs });
    return result.exitCode === 0;
  } catch {
    return false;
  } finally {
    await rm(file, { force: true });
  }
}

interface ReadResult {
  input: Omit<ComposeInput, "paths" | "entries">;
  entries: IndexEntry[];
}

/**
 * The git call: the listings of base's folders above the changed paths (`ls-tree -t` of ".", which
 * shows every entry of each folder it walks through, and of "<folder>/" for the changed paths'
 * folders, which walks to them), then, on a temporary index holding what base has at and below the
 * existing paths, `git add -A` of those paths and the index listed (`ls-files -s`), all to "$OUT".
 */
async function readAndAdd(
  git: GitRunner,
  work: string,
  base: string,
  folders: readonly string[],
  existing: readonly string[],
  timeoutMs: number,
): Promise<ReadResult | undefined> {
  await writeFile(join(work, "folders"), Buffer.from(folders.map((folder) => `${folder}/\0`).join(""), "latin1"));
  await writeFile(join(work, "paths"), Buffer.from(existing.map((path) => `${path}\0`).join(""), "latin1"));
  const file = (name: string) => shellQuote(join(work, name));
  const list = (name: string, into: string) =>
    `${into}=(); while IFS= read -r -d '' path; do ${into}+=("$path"); done <${file(name)}`;
  const script = [
    "set -o pipefail",
    `export GIT_INDEX_FILE=${file("index")}`,
    list("folders", "folders"),
    `g ls-tree -t -z --full-tree ${base} -- . "\${folders[@]}" >"$OUT" || exit`,
    `printf '${END}\\0' >>"$OUT"`,
    ...(existing.length === 0
      ? []
      : [
          list("paths", "paths"),
          `g ls-tree -r -z --full-tree ${base} -- "\${paths[@]}" | g update-index -z --index-info || exit`,
          // 1: a named path is ignored (git says so and adds the rest); git's failures exit 128.
          `g add -A --pathspec-from-file=${file("paths")} --pathspec-file-nul; added=$?`,
          `[ "$added" -le 1 ] || exit "$added"`,
          `g ls-files -s -z >>"$OUT"`,
        ]),
  ].join("\n");
  const result = await git.run({ script, capture: true, literal: true, timeoutMs });
  if (result.exitCode !== 0 || result.timedOut) return undefined;
  return parseReadOutput(result.stdout, base);
}

/** Ends the listings in the output: no record of ls-tree or ls-files is this (they hold a tab). */
const END = "end";

/**
 * Reads the script's output: `ls-tree -t -z` records ("mode type id\tpath"), END, then `ls-files
 * -s -z` records ("mode id stage\tpath"). Undefined when it is not that.
 */
export function parseReadOutput(out: Buffer, base: string): ReadResult | undefined {
  const records = out.toString("latin1").split("\0");
  if (records[records.length - 1] === "") records.pop();
  const end = records.indexOf(END);
  if (end < 0) return undefined;
  const listings = new Map<string, TreeEntry[]>([["", []]]);
  for (const record of records.slice(0, end)) {
    const match = /^(\d{6}) \w+ ([0-9a-f]+)\t([^]+)$/.exec(record);
    if (!match) return undefined;
    const [, mode, id, path] = match as unknown as [string, string, string, string];
    const folder = parentOf(path);
    const listing = listings.get(folder) ?? [];
    listing.push({
      mode: mode === "040000" ? "40000" : mode,
      name: path.slice(folder === "" ? 0 : folder.length + 1),
      id,
    });
    listings.set(folder, listing);
  }
  const entries: IndexEntry[] = [];
  for (const record of records.slice(end + 1)) {
    const match = /^(\d{6}) ([0-9a-f]+) 0\t([^]+)$/.exec(record);
    if (!match) return undefined;
    entries.push({ mode: match[1] as string, id: match[2] as string, path: match[3] as string });
  }
  return { input: { base, listings, algorithm: base.length === 40 ? "sha1" : "sha256" }, entries };
}
