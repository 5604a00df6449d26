// What a turn changed, from the undo store's snapshots (undo.ts): the turn's two trees compared
// (every file the snapshots hold: written by a tool or by a sandboxed command alike), with both
// texts of the first few files for a diff; and what no snapshot holds, found another way. The
// snapshots skip gitignored files, so before the turn's first command the store touches a marker
// file and lists the gitignored entries (git collapses a wholly ignored folder to its name); at
// the end, every gitignored file or folder whose ctime is newer than the marker is named as
// changed and not tracked (ctime: a command cannot set it back, as it can the mtime), and the
// entries gone from the listing as removed. A folder whose ctime changed may also have lost an
// entry, which nothing can name: such a turn is not complete, and says why. In a turn in which
// no command ran, only the tools wrote: the gitignored files they wrote are named, and nothing
// is scanned.
import { shellQuote, type GitRunner, nulFields } from "./undoGit.ts";
import type { ChangedFile, TurnChanges, UntrackedChange } from "../core-types/turnChanges.ts";
import { join } from "node:path";
import { groupedCount } from "../text/count.ts";

/** Files with both texts for a diff; the rest are listed by name. */
export const MAX_DIFF_FILES = 20;
/** The largest side of a diff; a larger file is listed by name. */
const MAX_DIFF_SIDE_BYTES = 256 * 1024;
/** All the diffs' texts together. */
const MAX_DIFF_TOTAL_BYTES = 2 * 1024 * 1024;
/** Files named (tracked and not); past it the list is cut and says so. */
export const MAX_LISTED = 500;
/** The most of the gitignored scan's output read. */
const MAX_SCAN_BYTES = 512 * 1024;
/** Find runs on this many gitignored entries at once. */
const FIND_BATCH = 200;
/** The most gitignored entries noted when a turn begins (git collapses a wholly ignored folder to one). */
const MAX_START_ENTRIES = 20_000;

/** What the store noted when the turn began (the marker was touched). */
export interface TurnStart {
  /**
   * The gitignored entries then (relative; a wholly ignored folder as `name/`); undefined: more than MAX_START_ENTRIES.
   */
  ignored: string[] | undefined;
}

/**
 * Touches the turn's marker and lists the gitignored entries; undefined when git failed (the
 * report then says the list may miss changes).
 */
export async function markTurnStart(git: GitRunner, mark: string, specs: string): Promise<TurnStart | undefined> {
  const result = await git.run({
    script: `: >${shellQuote(mark)} && g ls-files -z -o -i --exclude-standard --directory ${specs} >"$OUT"`,
    capture: true,
  });
  if (result.exitCode !== 0) return undefined;
  const ignored = nulFields(result.stdout);
  return { ignored: ignored.length <= MAX_START_ENTRIES ? ignored : undefined };
}

/** Every folder (`a/`, `a/b/`) that holds one of `paths`. */
function holders(paths: readonly string[]): Set<string> {
  const folders = new Set<string>();
  for (const path of paths) {
    let slash = path.indexOf("/");
    while (slash !== -1 && slash < path.length - 1) {
      folders.add(path.slice(0, slash + 1));
      slash = path.indexOf("/", slash + 1);
    }
  }
  return folders;
}

interface RawChange {
  path: string;
  status: "A" | "D" | "M" | "T";
  oldMode: string;
  newMode: string;
  oldId: string;
  newId: string;
}

function parseRaw(fields: string[]): RawChange[] {
  const changes: RawChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const match = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([ADMT])/.exec(fields[i] as string);
    if (!match) continue;
    const [, oldMode, newMode, oldId, newId, status] = match as unknown as string[];
    changes.push({
      path: fields[i + 1] as string,
      status: status as RawChange["status"],
      oldMode: oldMode as string,
      newMode: newMode as string,
      oldId: oldId as string,
      newId: newId as string,
    });
  }
  return changes;
}

const STATUS: Readonly<Record<RawChange["status"], ChangedFile["status"]>> = {
  A: "added",
  D: "deleted",
  M: "modified",
  T: "modified",
};
const isFileMode = (mode: string) => mode === "100644" || mode === "100755";
const isZero = (id: string) => /^0+$/.test(id);
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The text of a blob, or why it has none. */
function blobText(bytes: Buffer): string | { why: string } {
  if (bytes.subarray(0, 8000).includes(0)) return { why: "binary" };
  try {
    return utf8.decode(bytes);
  } catch {
    return { why: "not UTF-8 text" };
  }
}

/** The contents of blobs by id (`git cat-file --batch`), for ids whose size is within the bounds. */
async function readBlobs(git: GitRunner, ids: string[]): Promise<Map<string, Buffer>> {
  const blobs = new Map<string, Buffer>();
  if (ids.length === 0) return blobs;
  const result = await git.run({ script: 'g cat-file --batch >"$OUT"', stdin: `${ids.join("\n")}\n`, capture: true });
  if (result.exitCode !== 0) return blobs;
  const out = result.stdout;
  let at = 0;
  while (at < out.length) {
    const newline = out.indexOf(10, at);
    if (newline === -1) break;
    const [id, type, size] = out.toString("utf8", at, newline).split(" ");
    at = newline + 1;
    if (type === "missing" || size === undefined) continue;
    const length = Number(size);
    blobs.set(id as string, out.subarray(at, at + length));
    at += length + 1;
  }
  return blobs;
}

/** Blob sizes by id (`git cat-file --batch-check`). */
async function blobSizes(git: GitRunner, ids: string[]): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  if (ids.length === 0) return sizes;
  const result = await git.run({
    script: 'g cat-file --batch-check >"$OUT"',
    stdin: `${ids.join("\n")}\n`,
    capture: true,
  });
  for (const line of result.exitCode === 0 ? result.stdout.toString("utf8").split("\n") : []) {
    const [id, type, size] = line.split(" ");
    if (type === "blob" && size !== undefined) sizes.set(id as string, Number(size));
  }
  return sizes;
}

/** The tracked changes, the first MAX_DIFF_FILES text files within the bounds with both texts. */
async function trackedChanges(git: GitRunner, root: string, raw: RawChange[]): Promise<ChangedFile[]> {
  const candidates = raw.filter(
    (change) =>
      (isFileMode(change.oldMode) || change.status === "A") && (isFileMode(change.newMode) || change.status === "D"),
  );
  const shown = candidates.slice(0, MAX_DIFF_FILES);
  const ids = shown.flatMap((change) => [change.oldId, change.newId]).filter((id) => !isZero(id));
  const sizes = await blobSizes(git, ids);
  let total = 0;
  const wanted = new Set<string>();
  const fits = new Set<RawChange>();
  for (const change of shown) {
    const sides = [change.oldId, change.newId].filter((id) => !isZero(id));
    const bytes = sides.reduce((sum, id) => sum + (sizes.get(id) ?? Number.POSITIVE_INFINITY), 0);
    if (sides.some((id) => (sizes.get(id) ?? Number.POSITIVE_INFINITY) > MAX_DIFF_SIDE_BYTES)) continue;
    if (total + bytes > MAX_DIFF_TOTAL_BYTES) continue;
    total += bytes;
    fits.add(change);
    for (const id of sides) wanted.add(id);
  }
  const blobs = await readBlobs(git, [...wanted]);
  const shownSet = new Set(shown);
  return raw.map((change) => {
    const file: ChangedFile = { path: join(root, change.path), status: STATUS[change.status] };
    if (change.oldMode === "160000" || change.newMode === "160000")
      return { ...file, noDiff: "a nested git repository" };
    if (change.status === "T") return { ...file, noDiff: "changed between a file and a symbolic link" };
    if (!isFileMode(change.status === "D" ? change.oldMode : change.newMode))
      return { ...file, noDiff: "a symbolic link" };
    if (!shownSet.has(change)) return { ...file, noDiff: `past the first ${MAX_DIFF_FILES} diffs` };
    if (!fits.has(change)) return { ...file, noDiff: "too large to show" };
    const side = (id: string) => (isZero(id) ? "" : blobText(blobs.get(id) ?? Buffer.alloc(0)));
    const before = side(change.oldId);
    const after = side(change.newId);
    if (typeof before !== "string") return { ...file, noDiff: before.why };
    if (typeof after !== "string") return { ...file, noDiff: after.why };
    return { ...file, diff: { oldText: change.status === "A" ? null : before, newText: after } };
  });
}

interface IgnoredScan {
  /** Changed since the marker (relative; a folder ends with "/"). */
  changed: string[];
  /** The gitignored entries now. */
  entries: string[];
  cut: boolean;
  /** Why the scan may have missed something. */
  failed?: string;
}

/** The gitignored files and folders changed since the marker (find -cnewer), and the entries now. */
async function scanIgnored(git: GitRunner, mark: string, specs: string, timeoutMs: number): Promise<IgnoredScan> {
  const find =
    `find "$@" -cnewer ${shellQuote(mark)} \\( -type d -exec printf '%s/\\0' {} + ` +
    `-o -print0 \\) 2>>"$OUT.err" || : >"$OUT.failed"`;
  const script = [
    `g ls-files -z -o -i --exclude-standard --directory ${specs} >"$OUT.list" || exit 3`,
    "{",
    '  cat "$OUT.list"; printf "\\0"',
    "  set --",
    `  while IFS= read -r -d '' p; do set -- "$@" "./\${p%/}"; if [ $# -ge ` +
      `${FIND_BATCH} ]; then ${find}; set --; fi; done <"$OUT.list"`,
    `  if [ $# -gt 0 ]; then ${find}; fi`,
    `} | head -c ${MAX_SCAN_BYTES} >"$OUT"`,
    'failed=0; [ -e "$OUT.failed" ] && failed=4',
    'rm -f "$OUT.list" "$OUT.err" "$OUT.failed"',
    "exit $failed",
  ].join("\n");
  const result = await git.run({ script, capture: true, timeoutMs });
  if (result.timedOut)
    return { changed: [], entries: [], cut: false, failed: `the search took more than ${timeoutMs / 1000} s` };
  if (result.exitCode !== 0 && result.exitCode !== 4)
    return { changed: [], entries: [], cut: false, failed: "git could not list them" };
  const cut = result.stdout.length >= MAX_SCAN_BYTES;
  const fields = nulFields(result.stdout);
  if (cut) fields.pop();
  const split = fields.indexOf("");
  const entries = split === -1 ? fields : fields.slice(0, split);
  const changed = split === -1 ? [] : fields.slice(split + 1).map((path) => path.replace(/^\.\//, ""));
  return {
    changed,
    entries,
    cut: cut || split === -1,
    ...(result.exitCode === 4 && { failed: "some of them could not be read" }),
  };
}

export interface TurnChangesInput {
  git: GitRunner;
  root: string;
  before: string;
  after: string;
  mark: string;
  start: TurnStart | undefined;
  /** The gitignored files the turn's tools wrote (relative): named whether or not a command ran. */
  ignoredWrites: readonly string[];
  /** A command ran: the gitignored files are scanned for from the marker (`start`); else the tools' are all. */
  commands: boolean;
  /** The pathspecs of what no snapshot holds (Garuda's own files). */
  specs: string;
  /** Absolute paths the turn's tools wrote. */
  toolWrites: readonly string[];
  timeoutMs: number;
  isInside(path: string): boolean;
}

/** What the turn changed: the trees compared, the gitignored files scanned, the tools' writes elsewhere. */
export async function turnChanges(input: TurnChangesInput): Promise<TurnChanges> {
  const { git, root } = input;
  const diff = await git.run({
    script: `g diff-tree -r -z --no-renames ${input.before} ${input.after} >"$OUT"`,
    capture: true,
  });
  if (diff.exitCode !== 0) return { available: false, reason: "the snapshots of the turn could not be compared" };
  const files = await trackedChanges(git, root, parseRaw(nulFields(diff.stdout)));
  const untracked: UntrackedChange[] = [];
  const gaps: string[] = [];
  let truncated = false;

  // A tool may have written one before the first command touched the marker.
  const written = new Set(input.ignoredWrites);
  // Without a command only the tools wrote: their gitignored files are all there is.
  if (input.commands && !input.start)
    gaps.push("the gitignored files could not be listed when the turn began (git failed)");
  else if (input.commands && input.start) {
    const scan = await scanIgnored(git, input.mark, input.specs, input.timeoutMs);
    if (scan.failed) gaps.push(`the search for gitignored files the turn wrote did not finish: ${scan.failed}`);
    if (scan.cut) truncated = true;
    for (const path of scan.changed.filter((path) => !path.endsWith("/"))) written.add(path);
    const before = input.start.ignored;
    // A folder in one that was there when the turn began may have lost entries; a new one has not.
    const startFolders = new Set((before ?? []).filter((entry) => entry.endsWith("/")));
    const existed = (folder: string) =>
      before === undefined || startFolders.has(folder) || [...holders([folder])].some((up) => startFolders.has(up));
    const folders = scan.changed.filter((path) => path.endsWith("/"));
    const older = folders.filter(existed);
    for (const folder of folders) {
      untracked.push({
        path: `${join(root, folder)}/`,
        why: existed(folder)
          ? "a gitignored folder whose entries changed (created, removed or renamed), so not tracked"
          : "a gitignored folder the turn created, so not tracked",
      });
    }
    if (older.length > 0)
      gaps.push(
        `entries of gitignored folders changed ` +
          `(${older.slice(0, 3).join(", ")}${older.length > 3 ? ", …" : ""}): what was ` +
          `removed or renamed in them is not known`,
      );
    if (before === undefined)
      gaps.push(
        `gitignored files removed cannot be named: there were more than ` +
          `${groupedCount(MAX_START_ENTRIES)} gitignored entries when the turn began`,
      );
    else if (!scan.failed && !scan.cut) {
      // An entry is still there when it is listed now, or a file in it is (a folder no longer wholly ignored).
      const now = new Set(scan.entries);
      const held = holders(scan.entries);
      for (const entry of before)
        if (!now.has(entry) && !held.has(entry))
          untracked.push({ path: join(root, entry), why: "gitignored, removed (or no longer ignored)", removed: true });
    }
  }
  untracked.unshift(...[...written].map((path) => ({ path: join(root, path), why: "gitignored, so not tracked" })));
  const outside = [...new Set(input.toolWrites)].filter((path) => !input.isInside(path));
  for (const path of outside) untracked.push({ path, why: "outside the project folder, so in no snapshot" });

  const listed = files.length + untracked.length;
  if (listed > MAX_LISTED) truncated = true;
  if (truncated) gaps.push(`the list is cut (more than ${groupedCount(MAX_LISTED)} entries, or a long search)`);
  const keptFiles = files.slice(0, MAX_LISTED);
  const keptUntracked = untracked.slice(0, Math.max(0, MAX_LISTED - keptFiles.length));
  return {
    available: true,
    files: keptFiles,
    untracked: keptUntracked,
    complete: gaps.length === 0,
    gaps,
    truncated,
  };
}
