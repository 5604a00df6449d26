// The changed paths of undoTreeEdit.ts as far as the disk says they reach: a path is widened to
// the outermost folder above it that is no longer a folder (a file, a symlink, or gone: what was
// below it went with it) or that holds a .git (a nested repository, whose gitlink or files only
// the whole folder decides). Paths are byte strings (latin1), as git writes them.
import { lstat } from "node:fs/promises";
import { foldersAbove } from "./undoTreeBuild.ts";

export interface DiskPath {
  path: string;
  /** Something (a file, a folder, a symlink) is at the path now. */
  exists: boolean;
}

type FolderState = "folder" | "repository" | "other";

/** Each path widened where the disk says so, and whether anything is there now. */
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
  return Promise.all(
    paths.map(async (path) => {
      for (const folder of foldersAbove(path).slice(1)) {
        if ((await stateOf(folder)) !== "folder") return { path: folder, exists: await present(folder) };
      }
      return { path, exists: await present(path) };
    }),
  );
}
