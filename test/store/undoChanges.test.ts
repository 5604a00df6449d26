// What a turn changed, from the undo store with real git through the real executor
// (store/undoChanges.ts): the diff texts within their bounds, binary and past-the-bound files by
// name, gitignored files and folders removed named from the listings, a tool's write outside the
// project named, and nothing to report when undo is off.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import { MAX_DIFF_FILES } from "../../src/store/undoChanges.ts";
import { createUndoStore, type UndoStore } from "../../src/store/undo.ts";
import { SELF_COMMAND } from "../support/sandboxSupport.ts";
import { tempDir } from "../support/tempDir.ts";

const NO_SANDBOX = { availability: { available: false as const, reason: "not needed", fix: "none" } };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function project(files: Record<string, string | Buffer>, maxFiles?: number) {
  const dir = tempDir("garuda-changes-");
  const base = realpathSync(dir.path);
  const root = join(base, "project");
  const home = join(base, "home");
  mkdirSync(root);
  mkdirSync(home);
  const executor: ProcessExecutor = await createExecutor({ root, home, selfCommand: SELF_COMMAND, probe: NO_SANDBOX });
  const store: UndoStore = createUndoStore({ root, home, executor, ...(maxFiles !== undefined && { maxFiles }) });
  cleanups.push(async () => {
    await store.close();
    await executor.shutdown();
    dir[Symbol.dispose]();
  });
  const write = (path: string, text: string | Buffer) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  for (const [path, text] of Object.entries(files)) write(path, text);
  return { root, base, store, write };
}

describe("what a turn changed (the undo store)", () => {
  test("diffs within the bounds; binary, too large and past the first diffs by name", async () => {
    const many = Object.fromEntries(Array.from({ length: MAX_DIFF_FILES + 2 }, (_, i) => [`m/${i}.txt`, "a\n"]));
    const p = await project({ "bin.dat": Buffer.from([0, 1, 2]), "big.txt": "x", ...many });
    await p.store.beginTurn();
    await p.store.beforeCommand(); // what follows writes as a command would
    p.write("bin.dat", Buffer.from([0, 1, 3]));
    p.write("big.txt", "y".repeat(300 * 1024));
    for (const path of Object.keys(many)) p.write(path, "b\n");
    await p.store.endTurn();
    const changes = await p.store.turnChanges();
    if (!changes.available) throw new Error(changes.reason);
    const byPath = new Map(changes.files.map((file) => [file.path.slice(p.root.length + 1), file]));
    expect(byPath.get("bin.dat")).toEqual({ path: join(p.root, "bin.dat"), status: "modified", noDiff: "binary" });
    expect(byPath.get("big.txt")?.noDiff).toBe("too large to show");
    const withDiff = changes.files.filter((file) => file.diff);
    expect(withDiff.length).toBe(MAX_DIFF_FILES - 2);
    expect(withDiff[0]?.diff).toEqual({ oldText: "a\n", newText: "b\n" });
    // 24 files: the first MAX_DIFF_FILES (by path) are looked at for a diff, the other 4 named only.
    expect(changes.files).toHaveLength(MAX_DIFF_FILES + 4);
    expect(changes.files.filter((file) => file.noDiff === `past the first ${MAX_DIFF_FILES} diffs`)).toHaveLength(4);
    expect(changes.complete).toBe(true);
  });

  test("gitignored entries removed are named; a tool's write outside the project is named", async () => {
    const p = await project({ ".gitignore": "*.log\ncache/\n", "old.log": "x", "cache/a": "1", "cache/b": "2" });
    await p.store.beginTurn();
    await p.store.beforeCommand(); // what follows writes as a command would
    const outside = join(p.base, "outside.txt");
    await p.store.snapshot([outside]);
    writeFileSync(outside, "written by a tool the user let write here");
    rmSync(join(p.root, "old.log"));
    rmSync(join(p.root, "cache"), { recursive: true });
    await p.store.endTurn();
    const changes = await p.store.turnChanges();
    if (!changes.available) throw new Error(changes.reason);
    expect(changes.files).toEqual([]);
    expect(changes.untracked).toEqual([
      { path: join(p.root, "cache/"), why: "gitignored, removed (or no longer ignored)", removed: true },
      { path: join(p.root, "old.log"), why: "gitignored, removed (or no longer ignored)", removed: true },
      { path: outside, why: "outside the project folder, so in no snapshot" },
    ]);
    expect(changes).toMatchObject({ complete: true, gaps: [], truncated: false });
  });

  test("a turn of tool writes only: the gitignored files they wrote are named, nothing is scanned", async () => {
    const p = await project({ ".gitignore": "*.log\n", "a.txt": "1", "old.log": "x" });
    await p.store.beginTurn();
    await p.store.snapshot([join(p.root, "a.txt"), join(p.root, "new.log")]);
    p.write("a.txt", "2");
    p.write("new.log", "y");
    // Not the turn's doing (no command ran): not scanned for, so not named.
    rmSync(join(p.root, "old.log"));
    await p.store.endTurn();
    const changes = await p.store.turnChanges();
    if (!changes.available) throw new Error(changes.reason);
    expect(changes.files.map((file) => [file.path, file.status])).toEqual([[join(p.root, "a.txt"), "modified"]]);
    expect(changes.untracked).toEqual([{ path: join(p.root, "new.log"), why: "gitignored, so not tracked" }]);
    expect(changes).toMatchObject({ complete: true, gaps: [] });
  });

  test("a tool's gitignored write before the turn's first command is named with what the command wrote", async () => {
    const p = await project({ ".gitignore": "*.log\n", "a.txt": "1" });
    await p.store.beginTurn();
    await p.store.snapshot([join(p.root, "tool.log")]);
    p.write("tool.log", "by a tool");
    await p.store.beforeCommand();
    p.write("command.log", "by a command");
    await p.store.endTurn();
    const changes = await p.store.turnChanges();
    if (!changes.available) throw new Error(changes.reason);
    expect(changes.untracked.map((entry) => entry.path).sort()).toEqual([
      join(p.root, "command.log"),
      join(p.root, "tool.log"),
    ]);
    expect(changes.complete).toBe(true);
  });

  test("undo off: nothing to report, and why", async () => {
    const p = await project({ "a.txt": "1", "b.txt": "2" }, 1);
    await p.store.beginTurn();
    await p.store.beforeCommand(); // what follows writes as a command would
    p.write("a.txt", "3");
    await p.store.endTurn();
    const changes = await p.store.turnChanges();
    expect(changes.available).toBe(false);
    if (!changes.available) expect(changes.reason).toContain("undo is off in this session");
  });
});
