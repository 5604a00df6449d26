// The changed paths of undoTreeEdit.ts as far as their change may reach. By name: a changed
// .gitignore stands for its folder (what it ignores or lets in changes below it); a path in a
// nested repository's .git for the repository; the project's own .git is never stored (but its
// info/exclude is an ignore file: undefined); excluded paths are dropped. On disk: a path is
// widened to the outermost folder above it that is no longer a folder (a file, a symlink, or gone:
// what was below it went with it) or that holds a .git (a nested repository, whose gitlink or
// files only the whole folder decides). Paths come out as byte strings (latin1, one character per
// byte), as git writes them.
import { lstat } from "node:fs/promises";
import { foldersAbove, isAtOrBelow } from "./undoTreeBuild.ts";

/** A caller's path (UTF-8) as a byte string. */
export function toBytes(path: string): string {
  return Buffer.from(path, "utf8").toString("latin1");
}

/** A spelling of `.git` other than `.git` (another file system's, or the 8.3 short name). */
function isOtherDotGit(part: string): boolean {
  const name = part.toLowerCase().replace(/[. ]+$/, "");
  return (name === ".git" || name === "git~1") && part !== ".git";
}

/**
 * The paths as byte strings, each standing for what its change may reach, none at or below
 * another or an excluded path; undefined when one cannot be handled here (undoTreeEdit.ts).
 */
export function namedPaths(paths: readonly string[], excluded: readonly string[]): string[] | undefined {
  const named: string[] = [];
  for (const raw of paths) {
    if (/[\n\0\uFFFD]/.test(raw)) return undefined;
    const parts = raw.replace(/\/+$/, "").split("/");
    if (parts.some((part) => part === "" || part === "." || part === ".." || isOtherDotGit(part))) return undefined;
    const dotGit = parts.indexOf(".git");
    if (dotGit === 0) {
      if (parts.length === 1 || (parts[1] === "info" && (parts.length === 2 || parts[2] === "exclude")))
        return undefined;
      continue;
    }
    let path = parts.slice(0, dotGit < 0 ? parts.length : dotGit);
    if (path[path.length - 1] === ".gitignore") path = path.slice(0, -1);
    if (path.length === 0) return undefined;
    const bytes = toBytes(path.join("/"));
    if (!excluded.some((out) => isAtOrBelow(bytes, out))) named.push(bytes);
  }
  return outermost(named);
}

/** The paths none of which is at or below another, sorted. */
export function outermost(paths: readonly string[]): string[] {
  const kept = new Set<string>();
  for (const path of [...new Set(paths)].sort())
    if (!foldersAbove(path).some((folder) => folder !== "" && kept.has(folder))) kept.add(path);
  return [...kept];
}

export interface DiskPath {
  path: string;
  /** Something (a file, a folder, a symlink) is at the path now. */
  exists: boolean;
}

type FolderState = "folder" | "repository" | "other";

/** The paths widened where the disk says so (none at or below another), and whether anything is at each now. */
export async function widenOnDisk(root: string, paths: readonly string[]): Promise<DiskPath[]> {
  const states = new Map<string, Promise<FolderState>>();
  const onDisk = (path: string) => Buffer.concat([Buffer.from(`${root}/`), Buffer.from(path, "latin1")]);
  const present = (path: string) =>
    lstat(onDisk(path)).then(
      () => true,
      () => false,
    );
  const stateOf = (folder: string): Promise<FolderState> => {
    let state = states.get(folder);
    if (!state) {
      state = lstat(onDisk(folder)).then(
        async (stat) => {
          if (!stat.isDirectory()) return "other";
          return (await present(`${folder}/.git`)) ? "repository" : "folder";
        },
        () => "other",
      );
      states.set(folder, state);
    }
    return state;
  };
  const widened = await Promise.all(
    paths.map(async (path) => {
      for (const folder of foldersAbove(path).slice(1)) if ((await stateOf(folder)) !== "folder") return folder;
      return path;
    }),
  );
  const kept = outermost(widened);
  const exists = await Promise.all(kept.map(present));
  return kept.map((path, i) => ({ path, exists: exists[i] as boolean }));
}
