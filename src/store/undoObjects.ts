// New tree objects of undoTreeEdit.ts written into the store as git writes a loose object: the
// object's bytes deflated to objects/<2 hex>/<38 hex>, through a temporary file renamed into
// place (a reader never sees half an object; two sessions writing the same object write the same
// bytes). Written here rather than by `git mktree`, because a tree's id is only known once the
// trees below it are, and a second git call after the first would cost a process start through
// the executor (tens of ms on a loaded machine) for what is a few hundred bytes. An object that is
// there already has its time set to now, as git's own write does, so a gc running beside the
// store does not prune it as old and unreachable before a snapshot names it.
import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { deflate } from "node:zlib";

const deflateAsync = promisify(deflate);

/** Writes each object (`type size\0body`, id given) as a loose object of the git dir `gitDir`. */
export async function writeLooseObjects(
  gitDir: string,
  objects: ReadonlyArray<{ id: string; object: Buffer }>,
): Promise<void> {
  await Promise.all(objects.map((object) => writeLooseObject(gitDir, object.id, object.object)));
}

async function writeLooseObject(gitDir: string, id: string, object: Buffer): Promise<void> {
  const folder = join(gitDir, "objects", id.slice(0, 2));
  const path = join(folder, id.slice(2));
  const now = new Date();
  const there = await stat(path).then(
    () => true,
    () => false,
  );
  if (there) {
    await utimes(path, now, now);
    return;
  }
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const temporary = join(folder, `tmp_obj_${randomBytes(6).toString("hex")}`);
  try {
    await writeFile(temporary, await deflateAsync(object, { level: 1 }), { mode: 0o444, flag: "wx" });
    await rename(temporary, path);
  } finally {
    await rm(temporary, { force: true });
  }
}
