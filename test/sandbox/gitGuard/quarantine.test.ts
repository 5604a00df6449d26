// gitQuarantine: a planted repository is moved out of git's way and nothing is lost; a folder on
// the way that was swapped for a link (a command racing the move) makes the move fail instead of
// moving something outside the project.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { holdsUnnamed, unnamedIn } from "../../../src/sandbox/gitGuard/folderNames.ts";
import {
  QUARANTINE_DIR,
  quarantine,
  quarantineUnnamed,
  restoreFile,
} from "../../../src/sandbox/gitGuard/quarantine.ts";
import { tempDir } from "../../support/tempDir.ts";

describe("gitQuarantine", () => {
  test(
    "a .git folder goes to the quarantine with everything in it, its HEAD renamed; " +
      "the quarantine is ignored by the project's git",
    () => {
      using tmp = tempDir();
      const root = realpathSync(tmp.path);
      mkdirSync(join(root, "a/b/.git/objects"), { recursive: true });
      writeFileSync(join(root, "a/b/.git/HEAD"), "ref: refs/heads/main\n");
      writeFileSync(join(root, "a/b/.git/config"), "[core]\n");
      const moved = quarantine(root, join(root, "a/b/.git"), "stamp");
      expect(moved).toEqual({ to: join(root, QUARANTINE_DIR, "stamp/a/b/.git.garuda-quarantined") });
      expect(existsSync(join(root, "a/b/.git"))).toBe(false);
      const to = (moved as { to: string }).to;
      expect(readFileSync(join(to, "config"), "utf8")).toBe("[core]\n");
      expect(readFileSync(join(to, "HEAD.garuda-quarantined"), "utf8")).toBe("ref: refs/heads/main\n");
      expect(readFileSync(join(root, QUARANTINE_DIR, ".gitignore"), "utf8")).toContain("*");
    },
  );

  test(
    "a folder on the way swapped for a link to elsewhere: nothing outside the " +
      "project is moved (negative control: the plain path leads there)",
    () => {
      using tmp = tempDir();
      using elsewhere = tempDir();
      const root = realpathSync(tmp.path);
      const outside = realpathSync(elsewhere.path);
      mkdirSync(join(outside, "precious/.git"), { recursive: true });
      writeFileSync(join(outside, "precious/.git/HEAD"), "ref: refs/heads/main\n");
      mkdirSync(join(root, "sub/.git"), { recursive: true });
      // The command renames the folder away and leaves a link in its place, between the guard's look and its move.
      renameSync(join(root, "sub"), join(root, "sub-away"));
      symlinkSync(join(outside, "precious"), join(root, "sub"));
      expect(existsSync(join(root, "sub/.git/HEAD"))).toBe(true); // the path as a string now leads outside
      const moved = quarantine(root, join(root, "sub/.git"), "stamp");
      expect(moved).toMatchObject({ error: expect.stringContaining("could not be opened") });
      expect(existsSync(join(outside, "precious/.git/HEAD"))).toBe(true);
    },
  );

  test("outside the root (a linked worktree's git folder) an entry is renamed where it is", () => {
    using tmp = tempDir();
    using gitDir = tempDir();
    const root = realpathSync(tmp.path);
    const dir = realpathSync(gitDir.path);
    writeFileSync(join(dir, "commondir"), "../elsewhere\n");
    const moved = quarantine(root, join(dir, "commondir"), "stamp");
    expect(moved).toEqual({ to: join(dir, "commondir.garuda-quarantined-stamp") });
    expect(readFileSync(join(dir, "commondir.garuda-quarantined-stamp"), "utf8")).toBe("../elsewhere\n");
  });

  test("a folder whose name is not UTF-8 is found by its bytes and moved by them, under a name in ASCII", () => {
    using tmp = tempDir();
    const root = realpathSync(tmp.path);
    const bytes = (path: string) => Buffer.from(path, "latin1");
    mkdirSync(bytes(`${root}/a/u\xff\\/sub/.git`), { recursive: true });
    writeFileSync(bytes(`${root}/a/u\xff\\/sub/.git/config`), "[core]\n");
    writeFileSync(bytes(`${root}/a/caf\xe9`), "a file, not a folder\n");
    mkdirSync(join(root, "a/café"));
    expect(unnamedIn(join(root, "a"))).toEqual([bytes("u\xff\\")]);
    const moved = quarantineUnnamed(root, join(root, "a"), bytes("u\xff\\"), "stamp");
    expect(moved).toEqual({ to: join(root, QUARANTINE_DIR, "stamp/a/u\\xff\\x5c.garuda-quarantined") });
    expect(holdsUnnamed(join(root, "a"))).toBe(false);
    expect(readFileSync(join((moved as { to: string }).to, "sub/.git/config"), "utf8")).toBe("[core]\n");
  });

  test("restoreFile puts the text back in place of a file, or of a link put there", () => {
    using tmp = tempDir();
    const root = realpathSync(tmp.path);
    writeFileSync(join(root, "target"), "secret\n");
    symlinkSync(join(root, "target"), join(root, "config"));
    expect(restoreFile(join(root, "config"), "[core]\n")).toEqual({});
    expect(readFileSync(join(root, "config"), "utf8")).toBe("[core]\n");
    expect(readFileSync(join(root, "target"), "utf8")).toBe("secret\n");
  });
});
