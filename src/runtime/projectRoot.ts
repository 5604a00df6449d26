// Which folders a session may have as its root. The root is what sandboxed commands may write and
// what the file tools treat as the project, so a root wider than a project hands out the machine:
// "/" or /usr makes the system writable, /tmp holds other programs' and sessions' files, /home
// other users' homes. Such roots are refused with a message that says to open a project folder.
// The home folder (or a folder that holds it) is allowed, its own files kept out of reach
// (files/homeOwn.ts), and the session says so once. Every front end goes through prepareRuntime,
// so this is the one check for the chat, `garuda run` and `garuda acp`.
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { ConfigError } from "../errors/configError.ts";
import { isInside } from "../files/isInside.ts";

/**
 * Folders that are the system's, not a project's: a root that is one of them, or holds one, is
 * refused. A project inside one (/var/www/site, /opt/tool, /usr/local/src/app) is fine.
 */
const SYSTEM_FOLDERS: readonly string[] = [
  "/",
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/home",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/media",
  "/mnt",
  "/opt",
  "/proc",
  "/root",
  "/run",
  "/sbin",
  "/snap",
  "/srv",
  "/sys",
  "/usr",
  "/usr/bin",
  "/usr/lib",
  "/usr/local",
  "/usr/local/bin",
  "/usr/sbin",
  "/usr/share",
  "/var",
  "/var/lib",
  "/var/log",
  "/nix",
  "/nix/store",
  "/gnu",
  // WSL: the Windows drives, their system and users' folders
  ..."cdefgh"
    .split("")
    .flatMap((drive) => [
      `/mnt/${drive}`,
      `/mnt/${drive}/Windows`,
      `/mnt/${drive}/Users`,
      `/mnt/${drive}/Program Files`,
    ]),
  // macOS
  "/Applications",
  "/Library",
  "/System",
  "/Users",
  "/Volumes",
  "/cores",
  "/private",
  "/private/etc",
  "/private/var",
  "/opt/homebrew",
];

/** Shared temp folders: other programs' files, and (through them) other sessions'. */
const TEMP_FOLDERS: readonly string[] = ["/tmp", "/var/tmp", "/dev/shm", "/private/tmp", "/private/var/tmp"];

export interface ProjectRoot {
  /** The root with symlinks resolved. */
  root: string;
  /** The notice a session at (or above) the home folder shows once; undefined for any other root. */
  homeNotice?: string;
}

export interface RootContext {
  home: string;
  /** Where session folders live (sandbox/sessionFolders.ts sessionFolderBase). */
  sessionFolders: string;
  /** Compare without case (macOS). Default: on macOS. */
  caseInsensitive?: boolean;
}

const OPEN_A_PROJECT =
  "Open a project folder instead: start garuda in it (cd into it first), or open it in your editor";

/** The real path, or the path itself when it cannot be resolved (missing). */
export function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Why a folder (a real path) is too wide to be written by commands: what it is, and what to do instead. */
export interface WideFolder {
  /** "a system folder", "the shared temp folder /tmp", "inside /home/u/.garuda, Garuda's own folder" … */
  what: string;
  fix: string;
}

/**
 * Whether commands writing `resolved` (a real path) could change more than a project: a system
 * or temp folder, or one that holds either (a home inside a system folder, /root, is still a
 * home), Garuda's session folders (inside or above them), or a folder inside ~/.garuda.
 */
export function wideFolder(resolved: string, context: RootContext): WideFolder | undefined {
  const fold =
    (context.caseInsensitive ?? process.platform === "darwin")
      ? (path: string) => path.toLowerCase()
      : (path: string) => path;
  const at = fold(resolved);
  const holds = (folder: string) => isInside(fold(folder), at);
  const home = real(context.home);

  const system = SYSTEM_FOLDERS.find((folder) => fold(folder) !== fold(home) && holds(folder));
  if (system !== undefined) {
    const what = fold(system) === at ? "a system folder" : `a folder that holds the system folder ${system}`;
    return {
      what: `${what}, and commands in the sandbox could change the computer's own files from there`,
      fix: OPEN_A_PROJECT,
    };
  }
  const temp = TEMP_FOLDERS.find(holds);
  if (temp !== undefined) {
    const what = fold(temp) === at ? "the shared temp folder" : `a folder that holds the shared temp folder ${temp}`;
    return {
      what: `${what}, where other programs and Garuda's other sessions keep their files`,
      fix: `${OPEN_A_PROJECT} (a folder inside ${temp} is fine)`,
    };
  }
  const sessions = context.sessionFolders;
  const garuda = real(join(home, ".garuda"));
  const own =
    holds(sessions) || isInside(at, fold(sessions)) ? sessions : isInside(at, fold(garuda)) ? garuda : undefined;
  if (own !== undefined) {
    const how = isInside(at, fold(own)) ? "inside" : "a folder that holds";
    return {
      what: `${how} ${own}, Garuda's own folder (settings, credentials, other sessions' files)`,
      fix: OPEN_A_PROJECT,
    };
  }
  return undefined;
}

/**
 * The real root of a session, or a ConfigError for a folder that cannot be one: missing, not a
 * folder, or too wide (wideFolder).
 */
export function checkProjectRoot(root: string, context: RootContext): ProjectRoot {
  if (!isAbsolute(root)) throw new ConfigError(undefined, `The project folder must be an absolute path, not "${root}"`);
  let resolved: string;
  try {
    resolved = realpathSync(root);
  } catch {
    throw new ConfigError(undefined, `The project folder ${root} does not exist`);
  }
  if (!statSync(resolved).isDirectory()) throw new ConfigError(undefined, `${root} is not a folder`);
  const named = resolved === root ? root : `${root} (${resolved})`;
  const wide = wideFolder(resolved, context);
  if (wide) throw new ConfigError(undefined, `Garuda does not run in ${named}: it is ${wide.what}`, wide.fix);

  const fold =
    (context.caseInsensitive ?? process.platform === "darwin")
      ? (path: string) => path.toLowerCase()
      : (path: string) => path;
  const home = real(context.home);
  if (isInside(fold(home), fold(resolved))) {
    const where =
      fold(home) === fold(resolved)
        ? `This session runs in your home folder (${home}), not in a project.`
        : `This session's folder ${resolved} holds your home folder (${home}).`;
    return {
      root: resolved,
      homeNotice:
        `${where} Commands may change its ordinary folders, but not your dotfiles ` +
        `(shell and login scripts, ~/.config, ~/.ssh …), ~/bin and the other PATH ` +
        `folders or ~/.garuda, and the file tools do not edit them. Open a project ` +
        `folder to work on one project.`,
    };
  }
  return { root: resolved };
}
