// Which project folders of a sandboxed command get a git guard: the session's root and each
// extra root (an editor's additionalDirectories), since a command may write them all and git on
// the host runs in any of them. The git guard watches one project folder (spec.root), so each
// folder is given as the spec its guard is entered with. A folder inside another is left to the
// outer one's guard (its repository is a nested one there), so no tree is watched twice.
import { isInside } from "../files/isInside.ts";
import { lexicalPath } from "./paths.ts";
import type { SandboxSpec } from "./types.ts";

/** The folders that are inside no other of them, in the order given, without duplicates. */
export function outermostFolders(folders: readonly string[]): string[] {
  return [...new Set(folders)].filter(
    (folder) => !folders.some((other) => other !== folder && isInside(folder, other)),
  );
}

/** One spec per guarded project folder: the spec itself for the root, a copy rooted at each extra root. */
export function guardedRoots(spec: SandboxSpec): SandboxSpec[] {
  const outer = outermostFolders([spec.root, ...(spec.extraRoots ?? [])]);
  // writePaths are relative to the session's root: made absolute before the root changes.
  const writePaths = spec.writePaths.map((path) => lexicalPath(path, spec.root, spec.home));
  return outer.map((root) => (root === spec.root ? spec : { ...spec, root, writePaths }));
}
