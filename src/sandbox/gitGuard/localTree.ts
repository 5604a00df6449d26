// Whether every change to a project tree passes through this computer's kernel, so that its
// inotify watches can report it (the change log vouches for nothing else: changeLog.ts). A
// network file system (NFS, SMB), a FUSE mount (sshfs, a VM's or container's shared folder,
// WSL's drives through 9p) hears nothing of what the other side changes: the user's edit made
// there raises no event, and an undo that trusted the log would put back what they wrote over.
// Only file systems on this computer's own disks or memory count, for the folder that holds the
// tree and every mount inside it, as the process's mount table says now.
import { readFileSync } from "node:fs";
import { isInside } from "../../files/isInside.ts";

/** File systems whose every change is made by this kernel. */
const LOCAL = new Set([
  "ext2",
  "ext3",
  "ext4",
  "xfs",
  "btrfs",
  "bcachefs",
  "f2fs",
  "zfs",
  "jfs",
  "reiserfs",
  "nilfs2",
  "tmpfs",
  "ramfs",
  "overlay",
  "vfat",
  "exfat",
  "ntfs3",
]);

export interface Mount {
  /** Where it is mounted (absolute). */
  at: string;
  type: string;
}

/** The mounts of a mountinfo table (proc(5)): each line's mount point and file system type. */
export function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split("\n")) {
    const fields = line.split(" ");
    const separator = fields.indexOf("-", 6);
    const at = fields[4];
    const type = fields[separator + 1];
    if (separator < 0 || at === undefined || type === undefined) continue;
    // Space, tab, newline and backslash are written as octal escapes.
    mounts.push({
      at: at.replace(/\\([0-7]{3})/g, (_, code: string) => String.fromCharCode(Number.parseInt(code, 8))),
      type,
    });
  }
  return mounts;
}

/** Whether the tree at `root` (a real path) and every mount inside it are on local file systems. */
export function localTree(root: string, mounts: readonly Mount[]): boolean {
  let holder: Mount | undefined;
  for (const mount of mounts) {
    if (isInside(mount.at, root) && mount.at !== root) {
      if (!LOCAL.has(mount.type)) return false;
    } else if (isInside(root, mount.at) && (holder === undefined || mount.at.length >= holder.at.length))
      holder = mount; // the last of equal mount points is the one on top
  }
  return holder !== undefined && LOCAL.has(holder.type);
}

/** localTree() by the process's mount table now; false when it cannot be read. */
export function treeIsLocal(root: string): boolean {
  try {
    return localTree(root, parseMountinfo(readFileSync("/proc/self/mountinfo", "utf8")));
  } catch {
    return false;
  }
}
