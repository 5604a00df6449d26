// Secrets that a secret place only links to. A dotfiles manager (GNU stow, when ~/.ssh exists)
// links each key: ~/.ssh/id_ed25519 → ~/dotfiles/ssh/.ssh/id_ed25519; or a folder of keys is
// linked in: ~/.ssh/keys → ~/vault. The sandbox hides the places themselves (paths.ts), so the key
// stayed readable at its real path. Here the places are walked (a few levels, a bounded number of
// entries: this runs per command) and each link's target outside them is hidden as well: a file
// as a file, a folder as a whole. A target that holds the home or a project folder is not hidden
// (it would hide the session's own work); the file tools still refuse such a link's files by
// identity (files/secretIdentities.ts counts a link by its target). Pure over (places, look).
import { join } from "node:path";
import { isInside } from "../files/isInside.ts";
import type { PathKind } from "./fsView.ts";

/** Entries looked at in all, and folder levels under a place. */
const MAX_ENTRIES = 2_000;
const MAX_DEPTH = 6;

export interface LinkLook {
  kind(path: string): PathKind;
  /** The path with every link resolved; the path itself when it cannot be. */
  realpath(path: string): string;
  /** A folder's entry names ([] when it cannot be listed). */
  list(path: string): string[];
}

/**
 * The real paths that links under `places` (real paths) lead to, outside every place, and not
 * holding any of `kept` (the home, the project folders).
 */
export function secretLinkTargets(places: readonly string[], kept: readonly string[], look: LinkLook): string[] {
  const targets = new Set<string>();
  let budget = MAX_ENTRIES;
  const outside = (path: string) => !places.some((place) => isInside(path, place));
  const visit = (folder: string, depth: number) => {
    for (const name of look.list(folder)) {
      if (--budget < 0) return;
      const path = join(folder, name);
      const kind = look.kind(path);
      if (kind === "dir" && depth < MAX_DEPTH) visit(path, depth + 1);
      if (kind !== "symlink") continue;
      const target = look.realpath(path);
      if (target === path || look.kind(target) === "missing") continue; // dangling
      if (outside(target) && !kept.some((folder) => isInside(folder, target))) targets.add(target);
    }
  };
  for (const place of places) if (look.kind(place) === "dir") visit(place, 0);
  return [...targets];
}
