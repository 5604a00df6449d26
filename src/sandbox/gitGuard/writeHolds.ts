// Which files a command's processes can still change without an inotify event. A write through a
// shared writable mapping raises none, at any time; the event (IN_CLOSE_WRITE) comes only when the
// last reference opened for writing goes: the open file (an fd) or the mapping, which keeps the
// file open. So a file that no process of the command holds open for writing or mapped shared and
// writable, read while the command is stopped (freeze.ts), stays as read until an event says
// otherwise. Files are matched by device and inode, so a hard link elsewhere is the same file.
// A mapping is told from a plain open file: programs that copy a repository (cp, tar, git's own
// templates) hold its files open for writing for a moment; none maps them shared and writable.
import { lstatSync, readFileSync, readdirSync, statSync } from "node:fs";

const key = (dev: number | bigint, ino: number | bigint) => `${dev}:${ino}`;

/** A /proc/<pid>/maps device ("fd:01", hex major:minor) as st_dev (glibc's makedev). */
function mapsDevice(text: string): bigint {
  const [major = 0n, minor = 0n] = text.split(":").map((part) => BigInt(`0x${part}`));
  return ((major & 0xfffn) << 8n) | (minor & 0xffn) | ((minor & ~0xffn) << 12n) | ((major & ~0xfffn) << 32n);
}

/** How a file is held: mapped shared and writable (by any process), or else open for writing. */
export type Hold = "mapped" | "open";

/** The files of `paths` that a process of `pids` holds open for writing or mapped shared and writable. */
export function writeHeld(pids: number[], paths: string[]): Map<string, Hold> {
  const byKey = new Map<string, string>();
  for (const path of paths) {
    try {
      const stat = statSync(path, { bigint: true });
      if (stat.isFile()) byKey.set(key(stat.dev, stat.ino), path);
    } catch {
      // gone: nothing to hold
    }
  }
  const held = new Map<string, Hold>();
  if (byKey.size === 0) return held;
  for (const pid of pids) {
    try {
      for (const line of readFileSync(`/proc/${pid}/maps`, "utf8").split("\n")) {
        // address perms offset dev inode path
        const [, perms = "", , dev = "", inode = "0"] = line.split(/\s+/);
        if (perms[1] !== "w" || perms[3] !== "s" || inode === "0") continue;
        const path = byKey.get(key(mapsDevice(dev), BigInt(inode)));
        if (path) held.set(path, "mapped");
      }
    } catch {
      // gone meanwhile
    }
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const link = `/proc/${pid}/fd/${fd}`;
        const target = statSync(link, { bigint: true });
        const path = byKey.get(key(target.dev, target.ino));
        // The link's own mode tells how the file was opened: its owner-write bit is FMODE_WRITE.
        if (path && !held.has(path) && (lstatSync(link).mode & 0o200) !== 0) held.set(path, "open");
      } catch {
        // closed meanwhile
      }
    }
  }
  return held;
}
