// The undo store's first index from the project's git (store/undoSeed.ts), with real git through
// the real executor: the first snapshot of a repository hashes only what differs from the
// user's index (the committed files are borrowed from the project's objects, not copied), undo
// after a command still restores them, and an index whose entries git would not look at again
// (assume-unchanged) is not used: the snapshot holds the file as it is, not as the index says.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import { createUndoStore, snapshotDir } from "../../src/store/undo.ts";
import { SELF_COMMAND } from "../support/sandboxSupport.ts";
import { tempDir } from "../support/tempDir.ts";

const NO_SANDBOX = { availability: { available: false as const, reason: "not needed", fix: "none" } };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A committed git repository of `files` (each its own blob), its executor and home. */
async function repository(files: Record<string, string>) {
  const dir = tempDir("garuda-seed-");
  const base = realpathSync(dir.path);
  const root = join(base, "project");
  const home = join(base, "home");
  mkdirSync(root);
  mkdirSync(home);
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
  const executor: ProcessExecutor = await createExecutor({ root, home, selfCommand: SELF_COMMAND, probe: NO_SANDBOX });
  const sh = async (command: string) => {
    const result = await executor.run({ command, cwd: root, sandbox: null });
    if (result.exitCode !== 0) throw new Error(`${command}: ${result.output}`);
  };
  await sh("git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -q -m files");
  const store = createUndoStore({ root, home, executor });
  cleanups.push(async () => {
    await store.close();
    await executor.shutdown();
    dir[Symbol.dispose]();
  });
  return { root, home, store, executor, sh, read: (path: string) => readFileSync(join(root, path), "utf8") };
}

/** The loose objects the store wrote itself (its own objects folder, not the project's). */
function ownObjects(home: string, root: string): number {
  const objects = join(snapshotDir(home, root), "objects");
  return readdirSync(objects)
    .filter((name) => /^[0-9a-f]{2}$/.test(name))
    .reduce((sum, folder) => sum + readdirSync(join(objects, folder)).length, 0);
}

describe("the first snapshot of a repository starts from the project's index", () => {
  test("committed files are borrowed, not hashed again; undo after a command restores them", async () => {
    const files = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}.txt`, `file ${i}\n`]));
    const p = await repository(files);
    await p.store.beginTurn();
    await p.store.beforeCommand();
    await p.sh("echo changed > f3.txt && rm f4.txt");
    await p.store.endTurn();
    const alternates = join(snapshotDir(p.home, p.root), "objects", "info", "alternates");
    expect(readFileSync(alternates, "utf8")).toBe(`${join(p.root, ".git", "objects")}\n`);
    // The trees and the one changed file: none of the 30 committed blobs.
    expect(ownObjects(p.home, p.root)).toBeLessThan(5);
    expect(await p.store.undoLastTurn()).toEqual({ restored: ["f3.txt", "f4.txt"], removed: [], notes: [] });
    expect(p.read("f3.txt")).toBe("file 3\n");
    expect(p.read("f4.txt")).toBe("file 4\n");
  });

  test(
    "prepare() at session start copies the index and hashes nothing; without a " +
      "repository it takes the first snapshot",
    async () => {
      const p = await repository({ "a.txt": "a\n", "b.txt": "b\n" });
      p.store.prepare();
      await p.store.withSnapshots(async () => undefined); // queued behind prepare()
      expect(ownObjects(p.home, p.root)).toBe(0);
      // Negative control: the same files in no repository are hashed into the store by prepare().
      await p.sh("rm -rf .git");
      mkdirSync(join(p.home, "other"));
      const again = createUndoStore({ root: p.root, home: join(p.home, "other"), executor: p.executor });
      again.prepare();
      await again.withSnapshots(async () => undefined);
      expect(ownObjects(join(p.home, "other"), p.root)).toBeGreaterThan(2);
      await again.close();
    },
  );

  test("an index that marks entries assume-unchanged is not used: the snapshot holds the file as it is", async () => {
    const p = await repository({ "a.txt": "committed\n", "b.txt": "b\n" });
    // The user's git is told not to look at a.txt again, which they then edited.
    await p.sh("git update-index --assume-unchanged a.txt && echo edited by the user > a.txt");
    await p.store.beginTurn();
    await p.store.beforeCommand();
    await p.sh("echo by the turn > a.txt");
    await p.store.endTurn();
    expect((await p.store.undoLastTurn()).restored).toEqual(["a.txt"]);
    // Negative control of the check: a copied index would have put back the committed text.
    expect(p.read("a.txt")).toBe("edited by the user\n");
    expect(existsSync(join(snapshotDir(p.home, p.root), "objects", "info", "alternates"))).toBe(true);
  });
});
