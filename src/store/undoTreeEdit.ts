// A snapshot of the project that costs what changed, not what the project holds: the tree the
// store's full snapshot (undoSnapshot.ts: `git add -A`, the excluded paths taken out, `git
// write-tree`) would write, made from the last snapshot's tree and the paths that may have
// changed since (files or folders, relative, existing or not), when the work tree matched that
// tree everywhere else. No git call here reads the session's index (9 MB on Linux, read and
// written by every command that uses it): git's own `add -A` runs on a temporary index that
// holds only what base has at and below the paths, so git's rules decide as they do in a full
// snapshot (.gitignore, files tracked though ignored, modes, symlinks, nested repositories,
// file ↔ folder); the folders above the paths are read from base and written anew
// (undoTreeBuild.ts). Two git calls, whatever the number of paths: one reads and adds, one writes
// the new trees.
//
// The paths are first widened where the change may reach further than named: a folder above a
// path that is not a folder on disk now (replaced by a file or a symlink, or gone) or that holds a
// .git (a nested repository: git records it as a commit, or, when base tracks its files, looks
// inside; only the whole folder decides which); a changed .gitignore stands for its folder (what it
// ignores or lets in changes below it); a path inside a nested repository's .git stands for the
// repository. Paths at or below the excluded ones are left out (no snapshot holds them).
//
// Undefined (the caller takes a full snapshot) when: a path is the root, not a clean relative path
// (empty, `.`, `..` parts), holds a newline or a replacement character (a name that was not UTF-8,
// which the caller cannot name), names a `.git` by another spelling (`.GIT`, `git~1`); the root's
// .gitignore, the project's .git/info/exclude (core.excludesFile) or .git/info changed; base
// holds a file or a symlink where a folder above a path now is (the caller missed that path's
// folder); the paths are too long for one command line; git fails (a nested
// repository without a commit: the full snapshot fails too) or times out. Below a nested
// repository that base records, nothing changes the snapshot, as with `add -A` (also when its .git
// is gone: git then takes it for a submodule not checked out and keeps the gitlink).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type GitRunner, shellQuote } from "./undoGit.ts";
import {
  type ComposeInput,
  composeTree,
  foldersAbove,
  type IndexEntry,
  parseTree,
  type TreeEntry,
} from "./undoTreeBuild.ts";
import { widenOnDisk } from "./undoTreePaths.ts";

export interface TreeEditOptions {
  /** Paths (relative) no snapshot holds, even when .gitignore lets them in. */
  excluded: readonly string[];
  timeoutMs: number;
}

/** The most bytes of paths that go to git on one command line (ls-tree; the limit is 1 MB on macOS). */
const MAX_PATH_BYTES = 256 * 1024;
const TREE_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * The tree a full snapshot would write now, from `base` (the last snapshot's tree id) and the
 * paths that may have changed since; undefined when that cannot be made exactly (see above).
 */
export async function editTree(
  git: GitRunner,
  base: string,
  paths: readonly string[],
  options: TreeEditOptions,
): Promise<string | undefined> {
  if (!TREE_ID.test(base)) return undefined;
  const excluded = options.excluded.map(toBytes);
  const named = namedPaths(paths, excluded);
  if (named === undefined) return undefined;
  if (named.length === 0) return base;
  const widened = await widenOnDisk(git.dirs.root, named);
  const changed = outermost(widened.map((path) => path.path));
  const outer = new Set(changed);
  const existing = [...new Set(widened.filter((path) => path.exists && outer.has(path.path)).map((path) => path.path))];
  if (existing.reduce((sum, path) => sum + path.length + 1, 0) > MAX_PATH_BYTES) return undefined;
  const work = await mkdtemp(join(git.dirs.tmpDir, "edit-"));
  try {
    const read = await readAndAdd(git, work, base, changed, existing, options.timeoutMs);
    if (read === undefined) return undefined;
    const entries = read.entries.filter((entry) => !excluded.some((out) => isAtOrBelowBytes(entry.path, out)));
    const composed = composeTree({ ...read.input, paths: changed, entries });
    if (composed === undefined) return undefined;
    if (composed.trees.length === 0) return composed.root;
    await writeFile(
      join(work, "trees"),
      Buffer.from(composed.trees.map((tree) => `${tree.record}\0`).join(""), "latin1"),
    );
    const written = await git.run({
      script: `g mktree -z --batch <${shellQuote(join(work, "trees"))} >"$OUT"`,
      capture: true,
      timeoutMs: options.timeoutMs,
    });
    const ids = written.stdout.toString("latin1").split("\n").filter(Boolean);
    const expected = composed.trees.map((tree) => tree.id);
    if (written.exitCode !== 0 || ids.join(" ") !== expected.join(" ")) return undefined;
    return composed.root;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** A caller's path (UTF-8) as a byte string. */
function toBytes(path: string): string {
  return Buffer.from(path, "utf8").toString("latin1");
}

function isAtOrBelowBytes(path: string, top: string): boolean {
  return path === top || path.startsWith(`${top}/`);
}

/** A spelling of `.git` other than `.git` (another file system's, or the 8.3 short name). */
function isOtherDotGit(part: string): boolean {
  const name = part.toLowerCase().replace(/[. ]+$/, "");
  return (name === ".git" || name === "git~1") && part !== ".git";
}

/**
 * The paths as byte strings, each standing for what its change may reach (a .gitignore for its
 * folder, a path in a nested .git for the repository), without the excluded ones; undefined when
 * one cannot be handled here.
 */
function namedPaths(paths: readonly string[], excluded: readonly string[]): string[] | undefined {
  const named: string[] = [];
  for (const raw of paths) {
    if (/[\n\0\uFFFD]/.test(raw)) return undefined;
    const parts = raw.replace(/\/+$/, "").split("/");
    if (parts.some((part) => part === "" || part === "." || part === ".." || isOtherDotGit(part))) return undefined;
    const dotGit = parts.indexOf(".git");
    if (dotGit === 0) {
      // The project's own repository: git never stores it, but its info/exclude is an ignore file.
      if (parts.length === 1 || (parts[1] === "info" && (parts.length === 2 || parts[2] === "exclude")))
        return undefined;
      continue;
    }
    let path = parts.slice(0, dotGit < 0 ? parts.length : dotGit);
    if (path[path.length - 1] === ".gitignore") path = path.slice(0, -1);
    if (path.length === 0) return undefined;
    const bytes = toBytes(path.join("/"));
    if (!excluded.some((out) => isAtOrBelowBytes(bytes, out))) named.push(bytes);
  }
  return outermost(named);
}

/** The paths none of which is at or below another, sorted. */
export function outermost(paths: readonly string[]): string[] {
  const sorted = [...new Set(paths)].sort();
  const kept: string[] = [];
  const set = new Set<string>();
  for (const path of sorted) {
    if (foldersAbove(path).some((folder) => folder !== "" && set.has(folder))) continue;
    kept.push(path);
    set.add(path);
  }
  return kept;
}

interface ReadResult {
  input: Omit<ComposeInput, "paths" | "entries">;
  entries: IndexEntry[];
}

/**
 * One git call: base's folders above the changed paths (`cat-file`), then, on a temporary index
 * holding what base has at and below the existing paths, `git add -A` of those paths and the
 * index listed. Output: the folders' ids and types, a line each; their trees; `ls-files -s -z`.
 */
async function readAndAdd(
  git: GitRunner,
  work: string,
  base: string,
  changed: readonly string[],
  existing: readonly string[],
  timeoutMs: number,
): Promise<ReadResult | undefined> {
  const folders = [...new Set(changed.flatMap(foldersAbove))].sort();
  const lines = folders.map((folder) => (folder === "" ? base : `${base}:${folder}`));
  await writeFile(join(work, "folders"), Buffer.from(lines.map((line) => `${line}\n`).join(""), "latin1"));
  await writeFile(join(work, "paths"), Buffer.from(existing.map((path) => `${path}\0`).join(""), "latin1"));
  const q = (name: string) => shellQuote(join(work, name));
  const script = [
    "set -o pipefail",
    `export GIT_INDEX_FILE=${q("index")}`,
    `g cat-file --batch-check='%(objectname) %(objecttype)' <${q("folders")} >${q("types")} || exit`,
    `cat ${q("types")} >"$OUT"`,
    `awk 'NF == 2 && $2 == "tree" && $1 ~ /^[0-9a-f]+$/ { print $1 }' ${q("types")} | g cat-file --batch >>"$OUT" || exit`,
    ...(existing.length === 0
      ? []
      : [
          "paths=()",
          `while IFS= read -r -d '' path; do paths+=("$path"); done <${q("paths")}`,
          `g ls-tree -r -z --full-tree ${base} -- "\${paths[@]}" | g update-index -z --index-info || exit`,
          // 1: a named path is ignored (git says so and adds the rest); git's failures exit 128.
          `g add -A --pathspec-from-file=${q("paths")} --pathspec-file-nul; added=$?`,
          `[ "$added" -le 1 ] || exit "$added"`,
          `g ls-files -s -z >>"$OUT"`,
        ]),
  ].join("\n");
  const result = await git.run({ script, capture: true, literal: true, timeoutMs });
  if (result.exitCode !== 0 || result.timedOut) return undefined;
  return parseReadOutput(result.stdout, base, folders);
}

/** Reads the output of readAndAdd's script; undefined when it is not what the script writes. */
export function parseReadOutput(out: Buffer, base: string, folders: readonly string[]): ReadResult | undefined {
  const idBytes = base.length / 2;
  let at = 0;
  const typeOf: Array<{ id: string; type: string } | undefined> = [];
  for (let i = 0; i < folders.length; i++) {
    const end = out.indexOf(0x0a, at);
    if (end < 0) return undefined;
    const match = /^([0-9a-f]+) (\w+)$/.exec(out.toString("latin1", at, end));
    typeOf.push(match ? { id: match[1] as string, type: match[2] as string } : undefined);
    at = end + 1;
  }
  const bodies = new Map<string, TreeEntry[]>();
  const treeCount = typeOf.filter((found) => found?.type === "tree").length;
  for (let i = 0; i < treeCount; i++) {
    const end = out.indexOf(0x0a, at);
    if (end < 0) return undefined;
    const header = /^([0-9a-f]+) tree (\d+)$/.exec(out.toString("latin1", at, end));
    if (!header) return undefined;
    const size = Number(header[2]);
    bodies.set(header[1] as string, parseTree(out.subarray(end + 1, end + 1 + size), idBytes));
    at = end + 1 + size + 1;
  }
  const listings = new Map<string, TreeEntry[]>();
  folders.forEach((folder, i) => {
    const found = typeOf[i];
    const body = found?.type === "tree" ? bodies.get(found.id) : undefined;
    if (body) listings.set(folder, body);
  });
  if (!listings.has("")) return undefined;
  const entries: IndexEntry[] = [];
  for (const record of out.toString("latin1", at).split("\0")) {
    if (record === "") continue;
    const match = /^(\d{6}) ([0-9a-f]+) 0\t([^]+)$/.exec(record);
    if (!match) return undefined;
    entries.push({ mode: match[1] as string, id: match[2] as string, path: match[3] as string });
  }
  const algorithm = base.length === 40 ? "sha1" : "sha256";
  return { input: { base, listings, algorithm }, entries };
}
