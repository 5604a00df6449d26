// A session's other project folders (an editor's additionalDirectories): each becomes an extra
// root that the file tools treat as the project and the sandbox makes writable as it does the
// root. So each gets the root's own checks (absolute, existing, a folder, not a system, temp or
// Garuda folder: projectRoot.ts), and one more: an extra folder that holds the home folder is
// refused, since the home's own files are split out only for the session's root.
import { realpathSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { ConfigError } from "../errors/configError.ts";
import { isInside } from "../files/isInside.ts";
import { real, type RootContext, wideFolder } from "../runtime/projectRoot.ts";

const ADD_A_PROJECT = "Add a project folder instead, or remove it from the editor's additional folders";

/** The real path of one extra folder, or a ConfigError that names it and says why not. */
function checkExtraRoot(folder: string, context: RootContext): string {
  const refuse = (why: string, fix = ADD_A_PROJECT) =>
    new ConfigError(undefined, `The additional folder "${folder}" cannot be used: ${why}`, fix);
  if (!isAbsolute(folder)) throw refuse("it is not an absolute path", "Give its absolute path");
  let resolved: string;
  try {
    resolved = realpathSync(folder);
  } catch {
    throw refuse("it does not exist", "Create it first, or remove it from the editor's additional folders");
  }
  if (!statSync(resolved).isDirectory()) throw refuse("it is not a folder");
  const wide = wideFolder(resolved, context);
  if (wide) throw refuse(`it is ${wide.what}`);
  // The home's own files are split out only for the session's root (files/homeOwn.ts).
  if (isInside(real(context.home), resolved))
    throw refuse("it is (or holds) your home folder, whose own files (dotfiles, ~/.ssh …) commands could then change");
  return resolved;
}

/**
 * The real paths of the extra roots, in the order given, without duplicates and without those
 * inside the root or inside another extra root (they are covered already). A ConfigError names
 * the first folder that cannot be one and why.
 */
export function checkExtraRoots(folders: readonly string[], root: string, context: RootContext): string[] {
  const real = [...new Set(folders.map((folder) => checkExtraRoot(folder, context)))];
  return real.filter((path) => !isInside(path, root) && !real.some((other) => other !== path && isInside(path, other)));
}
