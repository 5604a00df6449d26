// A path's stamp before and after a wait (files/pathStamp.ts): every change on the way shows, a
// swap that is put back included, and nothing that changed nothing does.
import { describe, expect, test } from "bun:test";
import { mkdirSync, renameSync, symlinkSync, writeFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { isFile, settledStamp, SETTLED_MS, stampPath, unchanged } from "../../src/files/pathStamp.ts";
import { tempDir } from "../support/tempDir.ts";

describe("path stamps", () => {
  test(
    "a regular file at the end of folders has a stamp with its identity; a link, a " + "folder or nothing has none",
    () => {
      using dir = tempDir("garuda-stamp-");
      mkdirSync(join(dir.path, "src"));
      writeFileSync(join(dir.path, "src", "a.txt"), "a\n");
      symlinkSync(join(dir.path, "src", "a.txt"), join(dir.path, "link.txt"));
      symlinkSync(join(dir.path, "src"), join(dir.path, "linked"));
      const stamp = stampPath(join(dir.path, "src", "a.txt"), dir.path);
      const stat = statSync(join(dir.path, "src", "a.txt"));
      expect(stamp !== undefined && isFile(stamp, { dev: stat.dev, ino: stat.ino })).toBe(true);
      expect(stampPath(join(dir.path, "link.txt"), dir.path)).toBeUndefined();
      expect(stampPath(join(dir.path, "linked", "a.txt"), dir.path)).toBeUndefined();
      expect(stampPath(join(dir.path, "src"), dir.path)).toBeUndefined();
      expect(stampPath(join(dir.path, "missing.txt"), dir.path)).toBeUndefined();
    },
  );

  test(
    "a file or folder on the way swapped, or swapped and put back, shows; no change " + "does not (negative control)",
    async () => {
      using dir = tempDir("garuda-stamp-");
      mkdirSync(join(dir.path, "src"));
      const file = join(dir.path, "src", "a.txt");
      writeFileSync(file, "a\n");
      writeFileSync(join(dir.path, "other.txt"), "other\n");
      const before = await settledStamp(file, dir.path);
      expect(before).toBeDefined();
      if (!before) return;
      expect(unchanged(before, stampPath(file, dir.path) ?? before)).toBe(true);

      renameSync(file, `${file}.saved`);
      renameSync(`${file}.saved`, file);
      const back = stampPath(file, dir.path);
      expect(back !== undefined && isFile(back, before.file)).toBe(true);
      expect(back !== undefined && unchanged(before, back)).toBe(false);

      const again = await settledStamp(file, dir.path);
      expect(again).toBeDefined();
      if (!again) return;
      renameSync(join(dir.path, "src"), join(dir.path, "src.saved"));
      renameSync(join(dir.path, "src.saved"), join(dir.path, "src"));
      const folderBack = stampPath(file, dir.path);
      expect(folderBack !== undefined && unchanged(again, folderBack)).toBe(false);
    },
  );

  test(
    "above the watched folder only identities count: a new file beside it is no " + "change (a busy /tmp or home)",
    async () => {
      using dir = tempDir("garuda-stamp-");
      const project = join(dir.path, "project");
      mkdirSync(project);
      const file = join(project, "a.txt");
      writeFileSync(file, "a\n");
      const before = await settledStamp(file, project);
      expect(before).toBeDefined();
      if (!before) return;
      writeFileSync(join(dir.path, "elsewhere.txt"), "x\n");
      const after = stampPath(file, project);
      expect(after !== undefined && unchanged(before, after)).toBe(true);
      // Negative control: the same new file inside the watched folder is a change.
      writeFileSync(join(project, "beside.txt"), "x\n");
      const inside = stampPath(file, project);
      expect(inside !== undefined && unchanged(before, inside)).toBe(false);
    },
  );

  test("a settled stamp waits for a fresh change to age, and gives none for a path that keeps changing", async () => {
    using dir = tempDir("garuda-stamp-");
    const file = join(dir.path, "a.txt");
    writeFileSync(file, "a\n");
    const started = Date.now();
    expect(await settledStamp(file, dir.path)).toBeDefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(SETTLED_MS / 2);
    let stop = false;
    const churn = (async () => {
      while (!stop) {
        writeFileSync(join(dir.path, "b.txt"), "b\n");
        renameSync(join(dir.path, "b.txt"), join(dir.path, "c.txt"));
        await Bun.sleep(2);
      }
    })();
    expect(await settledStamp(file, dir.path)).toBeUndefined();
    stop = true;
    await churn;
  });
});
