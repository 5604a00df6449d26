// The pure half of undoTreeEdit.ts: git's tree objects made in memory, and the new
// snapshot tree put together from the base snapshot's folders along the changed paths and the
// entries git listed at and below them. Paths and names are byte strings (latin1, one character
// per byte) so a file name that is not UTF-8 keeps its bytes; comparing such strings compares
// bytes, which is git's order.
import { createHash } from "node:crypto";

/** One entry of a tree object: mode as git writes it ("40000" for a folder), name, object id (hex). */
export interface TreeEntry {
  mode: string;
  name: string;
  id: string;
}

/** A new tree object: its id and its bytes as git stores them (`tree <size>\0` and the body). */
export interface NewTree {
  id: string;
  object: Buffer;
}

const TREE_MODE = "40000";

export function isTreeMode(mode: string): boolean {
  return mode === TREE_MODE || mode === "040000";
}

/** git's order of tree entries: by bytes, a folder's name compared as if it ended in "/". */
function sortKey(entry: TreeEntry): string {
  return isTreeMode(entry.mode) ? `${entry.name}/` : entry.name;
}

/** The tree object of `entries` (any order) and its id, hashed as the store hashes (SHA-1 or SHA-256). */
export function makeTree(entries: TreeEntry[], algorithm: "sha1" | "sha256"): NewTree {
  const sorted = [...entries].sort((a, b) => {
    const left = sortKey(a);
    const right = sortKey(b);
    return left < right ? -1 : left > right ? 1 : 0;
  });
  const body = Buffer.concat(
    sorted.flatMap((entry) => [Buffer.from(`${entry.mode} ${entry.name}\0`, "latin1"), Buffer.from(entry.id, "hex")]),
  );
  const object = Buffer.concat([Buffer.from(`tree ${body.length}\0`, "latin1"), body]);
  return { id: createHash(algorithm).update(object).digest("hex"), object };
}

/** The folder that holds `path` ("" for the root). */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function join(folder: string, name: string): string {
  return folder === "" ? name : `${folder}/${name}`;
}

/** Every folder above `path`, the root ("") first, `path` itself not. */
export function foldersAbove(path: string): string[] {
  const parts = path.split("/");
  const folders = [""];
  for (let i = 1; i < parts.length; i++) folders.push(parts.slice(0, i).join("/"));
  return folders;
}

/** Whether `path` is `top` or lies below it. */
export function isAtOrBelow(path: string, top: string): boolean {
  return path === top || path.startsWith(`${top}/`);
}

/** A file entry as git's index lists it (`ls-files -s`): mode ("100644", "160000" …), id, path. */
export interface IndexEntry {
  mode: string;
  id: string;
  path: string;
}

export interface ComposeInput {
  /** The base snapshot's root tree id. */
  base: string;
  /** The listings of the base's root and of every folder above a changed path that is a folder in base. */
  listings: ReadonlyMap<string, readonly TreeEntry[]>;
  /** The changed paths: none at or below another. */
  paths: readonly string[];
  /** What is at and below the changed paths now (every entry at or below one of them). */
  entries: readonly IndexEntry[];
  algorithm: "sha1" | "sha256";
}

/**
 * What base holds above `path`: folders (or nothing) all the way, or a file or symlink, or a
 * nested repository (a gitlink) at some folder above it.
 */
function baseAbove(
  listings: ReadonlyMap<string, readonly TreeEntry[]>,
  path: string,
): "folders" | "file" | "repository" {
  const above = foldersAbove(path);
  for (let i = 1; i < above.length; i++) {
    const folder = above[i] as string;
    const entry = listings.get(above[i - 1] as string)?.find((e) => e.name === nameOf(folder));
    if (!entry) return "folders";
    if (entry.mode === "160000") return "repository";
    if (!isTreeMode(entry.mode) || !listings.has(folder)) return "file";
  }
  return "folders";
}

/**
 * The new root tree: base, with what is at and below each changed path replaced by `entries`, and
 * the new trees to write (those base does not hold already).
 * A path below a nested repository in base changes nothing (`add -A` does not look below a gitlink).
 * Undefined when base holds a file or a symlink above a changed path (a folder is there now: that
 * path changed, and the caller did not say so) or when an entry lies outside the paths.
 */
export function composeTree(input: ComposeInput): { root: string; trees: NewTree[] } | undefined {
  const { listings, algorithm } = input;
  const paths: string[] = [];
  /** Paths below a nested repository base records: git never looks below it, whatever is there now. */
  const inert: string[] = [];
  for (const path of input.paths) {
    const kind = baseAbove(listings, path);
    if (kind === "file") return undefined;
    (kind === "repository" ? inert : paths).push(path);
  }
  const changed = new Set(paths);
  /** Folder → names in it to rebuild or drop: changed paths, and the folders above them. */
  const touched = new Map<string, Set<string>>();
  const note = (path: string) => {
    const folder = parentOf(path);
    let names = touched.get(folder);
    if (!names) touched.set(folder, (names = new Set()));
    names.add(nameOf(path));
  };
  for (const path of paths) {
    for (const folder of foldersAbove(path).slice(1)) note(folder);
    note(path);
  }
  /** What the changed paths hold now: files by folder, and the folders (by parent) with files below them. */
  const files = new Map<string, Map<string, TreeEntry>>();
  const folders = new Map<string, Set<string>>();
  for (const entry of input.entries) {
    if (inert.some((path) => isAtOrBelow(entry.path, path))) continue;
    let top = entry.path;
    while (!changed.has(top) && top.includes("/")) top = parentOf(top);
    if (!changed.has(top)) return undefined;
    const folder = parentOf(entry.path);
    const inFolder = files.get(folder) ?? new Map<string, TreeEntry>();
    inFolder.set(nameOf(entry.path), { mode: entry.mode, name: nameOf(entry.path), id: entry.id });
    files.set(folder, inFolder);
    // Each folder from the file's own up to the changed path: the changed path's parent rebuilds it by name.
    for (let up = folder; entry.path !== top && up !== parentOf(top); up = parentOf(up)) {
      const names = folders.get(parentOf(up)) ?? new Set<string>();
      if (names.has(nameOf(up))) break;
      names.add(nameOf(up));
      folders.set(parentOf(up), names);
    }
  }
  /** Trees base already holds: not written again. */
  const known = new Set<string>([input.base]);
  for (const listing of listings.values()) for (const entry of listing) if (isTreeMode(entry.mode)) known.add(entry.id);
  const trees = new Map<string, NewTree>();

  /** A folder at or below a changed path: only what git listed there now. */
  function fresh(folder: string): string | undefined {
    const entries = [...(files.get(folder)?.values() ?? [])];
    for (const name of folders.get(folder) ?? []) {
      const id = fresh(join(folder, name));
      if (id !== undefined) entries.push({ mode: TREE_MODE, name, id });
    }
    return entries.length === 0 ? undefined : write(entries);
  }

  /** A folder above changed paths: base's listing, with the changed names replaced. */
  function edited(folder: string): string | undefined {
    const byName = new Map((listings.get(folder) ?? []).map((entry) => [entry.name, entry]));
    for (const name of touched.get(folder) ?? []) {
      const path = join(folder, name);
      byName.delete(name);
      let replacement: TreeEntry | undefined;
      if (changed.has(path)) {
        const file = files.get(folder)?.get(name);
        const id = file ? undefined : fresh(path);
        replacement = file ?? (id !== undefined ? { mode: TREE_MODE, name, id } : undefined);
      } else {
        const id = edited(path);
        if (id !== undefined) replacement = { mode: TREE_MODE, name, id };
      }
      if (replacement) byName.set(name, replacement);
    }
    if (byName.size === 0 && folder !== "") return undefined;
    return write([...byName.values()]);
  }

  function write(entries: TreeEntry[]): string {
    const tree = makeTree(entries, algorithm);
    if (!known.has(tree.id)) trees.set(tree.id, tree);
    return tree.id;
  }

  const root = edited("") as string;
  return { root, trees: [...trees.values()] };
}
