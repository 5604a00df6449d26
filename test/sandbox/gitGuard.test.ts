// gitGuard: .git's redirect files (commondir, config.worktree) as they were before a command.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { restoreGit, snapshotGit } from "../../src/sandbox/gitGuard.ts";
import { tempDir } from "../support/tempDir.ts";

describe("gitGuard", () => {
  test("a created commondir is removed, a changed config.worktree put back, a link replaced; untouched files say nothing", () => {
    using root = tempDir();
    const git = join(root.path, ".git");
    mkdirSync(git);
    writeFileSync(join(git, "config.worktree"), "[core]\n");
    const snapshot = snapshotGit(root.path);
    expect(restoreGit(snapshot!)).toEqual([]);

    writeFileSync(join(git, "commondir"), "../evil\n");
    writeFileSync(join(git, "config.worktree"), "[core]\n\thooksPath = /tmp/evil\n");
    const notes = restoreGit(snapshot!);
    expect(notes).toHaveLength(2);
    expect(notes.join("\n")).toContain("created .git/commondir");
    expect(notes.join("\n")).toContain("changed .git/config.worktree");
    expect(existsSync(join(git, "commondir"))).toBe(false);
    expect(readFileSync(join(git, "config.worktree"), "utf8")).toBe("[core]\n");

    symlinkSync("/etc", join(git, "commondir"));
    expect(restoreGit(snapshot!)[0]).toContain("removed it");
    expect(existsSync(join(git, "commondir"))).toBe(false);
  });

  test("no .git folder: nothing to watch", () => {
    using root = tempDir();
    expect(snapshotGit(root.path)).toBeUndefined();
  });
});
