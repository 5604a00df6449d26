// New tree objects of undoTreeEdit.ts written into the store as git writes a loose object: the
// object's bytes deflated to objects/<2 hex>/<38 hex>, through a temporary file renamed into
// place (a reader never sees half an object; two sessions writing the same object write the same
// bytes, and an object written again has its time set to now, as git's own write does, so a gc
// running beside the store does not prune it as old and unreachable before a snapshot names it).
// Written here rather than by `git mktree`, because a tree's id is only known once the trees below
// it are: that would be a second git call through the executor (tens of ms on a loaded machine).
// Two file operations an object, all at once: the deflating (of a few hundred bytes) is synchronous.
import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deflateSync } from "node:zlib";

/** Writes each object (`type size\0body`, id given) as a loose object of the git dir `gitDir`. */
export async function writeLooseObjects(
  gitDir: string,
  objects: ReadonlyArray<{ id: string; object: Buffer }>,
): Promise<void> {
  await Promise.all(objects.map((object) => writeLooseObject(gitDir, object.id, object.object)));
}

async function writeLooseObject(gitDir: string, id: string, object: Buffer): Promise<void> {
  const folder = join(gitDir, "objects", id.slice(0, 2));
  const temporary = join(folder, `tmp_obj_${randomBytes(6).toString("hex")}`);
  const data = deflateSync(object, { level: 1 });
  const options = { mode: 0o444, flag: "wx" } as const;
  try {
    await writeFile(temporary, data, options).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await writeFile(temporary, data, options);
    });
    await rename(temporary, join(folder, id.slice(2)));
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
