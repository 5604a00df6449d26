import { expect, test } from "bun:test";
import { localTree, parseMountinfo, treeIsLocal } from "../../../src/sandbox/gitGuard/localTree.ts";

const TABLE = [
  "21 26 0:20 / /proc rw,relatime - proc proc rw",
  "26 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
  "30 26 0:40 / /home/u/remote rw,nosuid shared:5 - fuse.sshfs u@host:/ rw,user_id=0",
  "31 26 0:41 / /home/u/with\\040space rw - nfs4 server:/x rw",
  "32 26 0:42 / /home/u/proj/cache rw - tmpfs tmpfs rw",
  "33 26 0:43 / /mnt/c rw - 9p drvfs rw",
  "34 26 0:44 / /home/u/proj2/share rw master:3 - cifs //nas/share rw",
].join("\n");

test("the mount table's mount points (escapes decoded) and types", () => {
  expect(parseMountinfo(TABLE).map((mount) => `${mount.at} ${mount.type}`)).toEqual([
    "/proc proc",
    "/ ext4",
    "/home/u/remote fuse.sshfs",
    "/home/u/with space nfs4",
    "/home/u/proj/cache tmpfs",
    "/mnt/c 9p",
    "/home/u/proj2/share cifs",
  ]);
});

test("a tree is local when the mount holding it and every mount inside it are", () => {
  const mounts = parseMountinfo(TABLE);
  expect(localTree("/home/u/proj", mounts)).toBe(true);
  expect(localTree("/home/u/remote/proj", mounts)).toBe(false);
  expect(localTree("/home/u/remote", mounts)).toBe(false);
  expect(localTree("/home/u/with space/p", mounts)).toBe(false);
  expect(localTree("/mnt/c/Users/u/proj", mounts)).toBe(false);
  // A network share mounted inside the project.
  expect(localTree("/home/u/proj2", mounts)).toBe(false);
  // The last of mounts on one point is the one on top.
  expect(localTree("/x", parseMountinfo(`${TABLE}\n40 26 0:50 / / rw - nfs s:/ rw`))).toBe(false);
});

test("this machine's temporary folder is local", () => {
  expect(treeIsLocal(process.cwd())).toBe(true);
});
