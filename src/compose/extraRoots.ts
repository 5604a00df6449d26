// A session's other project folders (an editor's additionalDirectories): each becomes an extra
// root that the file tools treat as the project and the sandbox makes writable as it does the
// root. So each gets the root's own checks (absolute, existing, a folder, not a system, temp or
// Garuda folder: projectRoot.ts), and two more, for the home's own files (files/homeOwn.ts):
// the sandbox keeps them read-only inside any extra folder (sandbox/homeHolds.ts), but an extra
// folder that is one of them has nothing left to write, and one that holds the home would need
// the file tools' rules for a session at ~ (permission/decide.ts), which are the root's only.
import { realpathSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { ConfigError } from "../errors/configError.ts";
import { isHomeOwnPath } from "../files/homeOwn.ts";
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
  const home = real(context.home);
  if (isInside(home, resolved))
    throw refuse("it is (or holds) your home folder, whose own files (dotfiles, ~/.ssh …) commands could then change");
  if (isHomeOwnPath(resolved, home))
    throw refuse(
      "it is one of your home folder's own folders or inside one (a dot folder such " +
        "as ~/.config or ~/.local, ~/bin, ~/go/bin …), which hold what your computer " +
        "runs or trusts later (autostart entries, systemd units, programs on PATH, " +
        "shell and editor start-up files): commands in the sandbox must not change them",
      "Work on these files in a project that keeps them (a dotfiles repository), or edit them yourself",
    );
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
