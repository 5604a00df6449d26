// Moving a repository a sandboxed command planted out of git's way, losing nothing: the entry
// (`.git`, a bare repository's HEAD, or a redirect file such as commondir) goes to
// `<root>/.garuda/quarantine/<stamp>/<its path>.garuda-quarantined`, where sandboxed commands
// cannot write (.garuda is read-only in the sandbox) and the project's git ignores it. A moved
// git folder's HEAD is renamed as well, so git does not take the quarantined copy for a bare
// repository either. When the quarantine is on another file system (or cannot be made), the
// entry is renamed in place instead.
//
// The command may still run while this happens, so no path is trusted twice: every folder on
// the way is opened without following links and the rename goes through those open folders
// (/proc/self/fd on Linux). A command that swaps a folder for a link to elsewhere cannot make
// Garuda move something outside the project. A folder whose name is not UTF-8 (watch.ts cannot
// watch inside it) is moved the same way, by the bytes of its name.
import { closeSync, constants, existsSync, mkdirSync, openSync, renameSync, writeFileSync } from "node:fs";
import { relative, sep } from "node:path";
import { codeOf } from "../../errors/caught.ts";
import { shownName } from "./folderNames.ts";

export const QUARANTINE_DIR = ".garuda/quarantine";
const QUARANTINED = ".garuda-quarantined";

export type Moved = { to: string } | { error: string };

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const viaFd = process.platform === "linux";

/** An open folder, reached component by component from "/" without following any link. */
function openDir(path: string): number {
  let fd = openSync("/", constants.O_RDONLY | constants.O_DIRECTORY);
  let current = "";
  for (const part of path.split("/").filter(Boolean)) {
    current += `/${part}`;
    try {
      const next = openSync(viaFd ? `/proc/self/fd/${fd}/${part}` : current, DIR_FLAGS);
      closeSync(fd);
      fd = next;
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }
  return fd;
}

/** The folder holding `path`, opened (openDir), and the entry's name in it. */
function openParent(path: string): { fd: number; parent: string; name: string } | { error: string } {
  const slash = path.lastIndexOf("/");
  const parent = path.slice(0, slash) || "/";
  try {
    return { fd: openDir(parent), parent, name: path.slice(slash + 1) };
  } catch (error) {
    return {
      error:
        `its folder ${parent} could not be opened (${codeOf(error) ?? String(error)}), ` +
        `maybe a link was put in its place`,
    };
  }
}

/** `<fd>/<name>` as a path the kernel resolves through the open folder. */
const at = (fd: number, dirPath: string, name: string) =>
  viaFd ? `/proc/self/fd/${fd}/${name}` : `${dirPath}/${name}`;

/** The folder `<root>/<parts…>`, made where missing (never through a link). */
function makeDirs(root: string, parts: string[]): { fd: number; path: string } {
  let fd = openDir(root);
  let path = root;
  for (const part of parts) {
    const next = at(fd, path, part);
    if (!existsSync(next)) mkdirSync(next, { mode: 0o755 });
    const opened = openSync(next, DIR_FLAGS);
    closeSync(fd);
    fd = opened;
    path = `${path}/${part}`;
  }
  return { fd, path };
}

function stampNow(): string {
  return new Date().toISOString().replace(/[:.]/g, "-");
}

/** Renames `<dir>/HEAD` of a moved git folder, if it has one. */
function disarmHead(dirFd: number, dirPath: string, name: string): void {
  let fd: number;
  try {
    fd = openSync(at(dirFd, dirPath, name), DIR_FLAGS);
  } catch {
    return; // a file (a gitfile, HEAD itself): nothing inside to rename
  }
  try {
    const head = at(fd, `${dirPath}/${name}`, "HEAD");
    if (existsSync(head)) renameSync(head, at(fd, `${dirPath}/${name}`, `HEAD${QUARANTINED}`));
  } finally {
    closeSync(fd);
  }
}

/**
 * Moves `source` (the entry `name` in the open folder `parentFd`, `parent`) out of git's way: to the quarantine when
 * it is inside `root`; elsewhere, or when that fails, renamed in place. `name` is also the moved entry's name.
 */
function moveAside(
  root: string,
  parentFd: number,
  parent: string,
  source: string | Buffer,
  name: string,
  stamp: string,
) {
  const rel = relative(root, parent);
  if (!rel.startsWith("..") && !rel.startsWith(sep)) {
    try {
      const parts = [...QUARANTINE_DIR.split("/"), stamp, ...rel.split(sep).filter(Boolean)];
      const gitignore = `${root}/${QUARANTINE_DIR}/.gitignore`;
      const target = makeDirs(root, parts);
      try {
        if (!existsSync(gitignore))
          writeFileSync(
            gitignore,
            "# Repositories Garuda moved out of git's way (see the notice that named them).\n*\n",
          );
        const movedName = `${name}${QUARANTINED}`;
        renameSync(source, at(target.fd, target.path, movedName));
        disarmHead(target.fd, target.path, movedName);
        return { to: `${target.path}/${movedName}` };
      } finally {
        closeSync(target.fd);
      }
    } catch (error) {
      if (codeOf(error) === "ENOENT" && !existsSync(source))
        return { error: "it was gone before Garuda could move it" };
      // Another file system, or .garuda is not a plain folder: rename it where it is.
    }
  }
  const inPlace = `${name}${QUARANTINED}-${stamp}`;
  renameSync(source, at(parentFd, parent, inPlace));
  disarmHead(parentFd, parent, inPlace);
  return { to: `${parent}/${inPlace}` };
}

/**
 * Moves `entry` (an absolute real path) out of git's way. Inside `root` it goes to the quarantine;
 * elsewhere (a linked worktree's git folder) or when that fails, it is renamed in place.
 */
export function quarantine(root: string, entry: string, stamp = stampNow()): Moved {
  const opened = openParent(entry);
  if ("error" in opened) return opened;
  const { fd, parent, name } = opened;
  try {
    return moveAside(root, fd, parent, at(fd, parent, name), name, stamp);
  } catch (error) {
    return { error: (error as Error).message };
  } finally {
    closeSync(fd);
  }
}

/**
 * Moves the folder in `dir` whose name (`name`, bytes) is not UTF-8 out of the tree as quarantine() moves an entry,
 * under that name written in ASCII (shownName()): no path string reaches into it, so the guard cannot watch it.
 */
export function quarantineUnnamed(root: string, dir: string, name: Buffer, stamp = stampNow()): Moved {
  let fd: number;
  try {
    fd = openDir(dir);
  } catch (error) {
    return { error: `its folder ${dir} could not be opened (${codeOf(error) ?? String(error)})` };
  }
  try {
    return moveAside(root, fd, dir, Buffer.concat([Buffer.from(at(fd, dir, "")), name]), shownName(name), stamp);
  } catch (error) {
    return { error: (error as Error).message };
  } finally {
    closeSync(fd);
  }
}

/** Puts `text` back as the content of `path` (an absolute real path): a new file renamed over whatever is there now. */
export function restoreFile(path: string, text: string): { error?: string } {
  const opened = openParent(path);
  if ("error" in opened) return opened;
  const { fd, parent, name } = opened;
  const temp = `.${name}.garuda-restore-${process.pid}`;
  try {
    writeFileSync(at(fd, parent, temp), text, { flag: "wx", mode: 0o644 });
    renameSync(at(fd, parent, temp), at(fd, parent, name));
    return {};
  } catch (error) {
    return { error: (error as Error).message };
  } finally {
    closeSync(fd);
  }
}
