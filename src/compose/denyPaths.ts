// The team policy's denyPaths are patterns (`secrets/**`, `~/.config/acme`, `*.sqlite`); the OS
// sandbox needs concrete paths. This turns patterns into the paths to make unreadable there.
import { Glob } from "bun";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { anchorPattern } from "../permission/pathMatch.ts";

/** More matches than this and the pattern is too broad to mount one by one. */
const MAX_DENY_MATCHES = 1_000;

const GLOB_CHARS = /[*?[\]{}]/;

/**
 * Concrete paths for deny patterns: a pattern without wildcards (after dropping a trailing
 * `/**`) is its own path, existing or not; a wildcard pattern is matched against the root (or
 * its absolute base) now, up to MAX_DENY_MATCHES paths in all. Notices say what was cut.
 */
export function expandDenyPaths(
  patterns: readonly string[],
  root: string,
  home: string,
): { paths: string[]; notices: string[] } {
  const paths = new Set<string>();
  const notices: string[] = [];
  for (const pattern of patterns) {
    const anchored = anchorPattern(pattern.replace(/\/\*\*$/, ""), home);
    const glob = anchored.glob;
    if (!GLOB_CHARS.test(glob)) {
      paths.add(anchored.anchor === "absolute" ? glob : join(root, glob));
      continue;
    }
    const base =
      anchored.anchor === "absolute" ? glob.slice(0, glob.search(GLOB_CHARS)).replace(/[^/]*$/, "") || "/" : root;
    const relative = anchored.anchor === "absolute" ? glob.slice(base.length) : glob;
    if (!existsSync(base)) continue;
    for (const match of new Glob(relative).scanSync({
      cwd: base,
      dot: true,
      onlyFiles: false,
      followSymlinks: false,
    })) {
      if (paths.size >= MAX_DENY_MATCHES) {
        notices.push(
          `The team policy's denied path "${pattern}" matches more than ` +
            `${MAX_DENY_MATCHES} paths; only the first ones are hidden from commands in the ` +
            `sandbox (the file tools refuse all of them).`,
        );
        break;
      }
      paths.add(join(base, match));
    }
  }
  return { paths: [...paths], notices };
}
