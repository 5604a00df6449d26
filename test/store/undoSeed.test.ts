// The undo store's first index from the project's git (store/undoSeed.ts), with real git through
// the real executor: the first snapshot of a repository hashes only what differs from the
// user's index (the committed blobs are copied from the project's pack, not hashed again), undo
// after a command, even one that deletes .git, still restores them, and an index a command could
// have crafted is not used: entries git would not look at again (assume-unchanged), a path out
// of the project (`../s`), objects borrowed from another repository (the project's alternates).
import { afterEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import { createUndoStore, snapshotDir } from "../../src/store/undo.ts";
import { copyIndex } from "../../src/store/undoSeed.ts";
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

/** The packs in the store (the seed's copy of the project's blobs). */
function packs(home: string, root: string): number {
  return readdirSync(join(snapshotDir(home, root), "objects", "pack")).filter((name) => name.endsWith(".pack")).length;
}

describe("the first snapshot of a repository starts from the project's index", () => {
  test(
    "committed files are copied from the project's pack, not hashed again; undo " + "after a command restores them",
    async () => {
      const files = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}.txt`, `file ${i}\n`]));
      const p = await repository(files);
      await p.store.beginTurn();
      await p.store.beforeCommand();
      await p.sh("echo changed > f3.txt && rm f4.txt");
      await p.store.endTurn();
      // The committed blobs are in one pack, copied from the project's (not borrowed: see below).
      expect(existsSync(join(snapshotDir(p.home, p.root), "objects", "info", "alternates"))).toBe(false);
      expect(packs(p.home, p.root)).toBe(1);
      // Loose: the trees and the one changed file, none of the 30 committed blobs.
      expect(ownObjects(p.home, p.root)).toBeLessThan(5);
      expect(await p.store.undoLastTurn()).toEqual({ restored: ["f3.txt", "f4.txt"], removed: [], notes: [] });
      expect(p.read("f3.txt")).toBe("file 3\n");
      expect(p.read("f4.txt")).toBe("file 4\n");
    },
  );

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

  test("the first snapshot writes no folder's tree: the index's cached trees come from the project too", async () => {
    const files = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`d${i}/e${i % 3}/f.txt`, `file ${i}\n`]));
    const p = await repository({ "top.txt": "top\n" });
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(p.root, path)), { recursive: true });
      writeFileSync(join(p.root, path), text);
    }
    await p.sh("git add -A && git -c user.name=t -c user.email=t@t commit -q -m folders");
    await p.store.beginTurn();
    await p.store.endTurn();
    // 81 trees in the project: the snapshot's are in the seed's pack (written by the store, 81 loose files).
    expect(ownObjects(p.home, p.root)).toBe(0);
    const head = await p.executor.run({ command: "git rev-parse 'HEAD^{tree}'", cwd: p.root, sandbox: null });
    const store = snapshotDir(p.home, p.root);
    const tree = await p.executor.run({
      command: `GIT_DIR='${store}' git cat-file -t ${head.output.trim()}`,
      cwd: p.root,
      sandbox: null,
    });
    expect(tree.output.trim()).toBe("tree");
  });

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
    expect(packs(p.home, p.root)).toBe(0);
  });
});

describe("the copy of the project's index", () => {
  test("not over 256 MB, not through a link, not a FIFO (never waiting on it)", () => {
    using dir = tempDir("garuda-seed-copy-");
    const to = join(dir.path, "copy");
    const big = join(dir.path, "big");
    // A sparse file: 300 MB to stat, nothing on disk. A crafted one would fill the disk once per session.
    truncateSync((writeFileSync(big, ""), big), 300 * 1024 * 1024);
    expect(copyIndex(big, to)).toBe(false);
    expect(existsSync(to)).toBe(false);
    // A link a sandboxed command swapped in after the lstat: never followed to its target.
    writeFileSync(join(dir.path, "secret"), "PRIVATE KEY\n");
    symlinkSync(join(dir.path, "secret"), join(dir.path, "link"));
    expect(() => copyIndex(join(dir.path, "link"), to)).toThrow();
    expect(existsSync(to)).toBe(false);
    // A FIFO: refused at once, not waited on.
    execFileSync("mkfifo", [join(dir.path, "fifo")]);
    expect(copyIndex(join(dir.path, "fifo"), to)).toBe(false);
    // A plain index is copied, its time a second earlier.
    writeFileSync(join(dir.path, "index"), "DIRC");
    expect(copyIndex(join(dir.path, "index"), to)).toBe(true);
    expect(readFileSync(to, "utf8")).toBe("DIRC");
    expect(statSync(join(dir.path, "index")).mtimeMs - statSync(to).mtimeMs).toBeCloseTo(1_000, -1);
  });
});

describe("a turn that removes the project's git", () => {
  test("rm -rf .git and an edit: undo still puts the committed file back", async () => {
    const p = await repository({ "a.txt": "committed a\n", "b.txt": "committed b\n" });
    await p.store.beginTurn();
    await p.store.beforeCommand();
    await p.sh("rm -rf .git && echo overwritten > a.txt && rm b.txt");
    await p.store.endTurn();
    expect(await p.store.undoLastTurn()).toEqual({ restored: ["a.txt", "b.txt"], removed: [], notes: [] });
    expect(p.read("a.txt")).toBe("committed a\n");
    expect(p.read("b.txt")).toBe("committed b\n");
  });
});

/** Renames an entry of the project's index in place (same length), as a command could have written it. */
function renameIndexEntry(root: string, from: string, to: string): void {
  const file = join(root, ".git", "index");
  const body = readFileSync(file).subarray(0, -20);
  const at = body.indexOf(`${from}\0`);
  expect(at).toBeGreaterThan(0);
  body.write(to, at);
  writeFileSync(file, Buffer.concat([body, createHash("sha1").update(body).digest()]));
}

describe("a crafted project index is not used", () => {
  test(
    "an entry `../s` (git reads it): no file outside the project gets into a " + "snapshot, undo still works",
    async () => {
      const p = await repository({ "a.txt": "a\n", zzzz: "z\n" });
      const outside = join(dirname(p.root), "s");
      writeFileSync(outside, "SECRET one\n");
      renameIndexEntry(p.root, "zzzz", "../s");
      await p.store.beginTurn();
      await p.store.beforeCommand();
      await p.sh("echo changed > a.txt");
      writeFileSync(outside, "SECRET two\n"); // a file outside that changes (a shell history)
      await p.store.endTurn();
      const changes = await p.store.turnChanges();
      if (!changes.available) throw new Error(changes.reason);
      expect(changes.files.map((file) => file.path)).toEqual([join(p.root, "a.txt")]);
      expect(JSON.stringify(changes)).not.toContain("SECRET");
      expect(await p.store.diff()).not.toContain("SECRET");
      expect(await p.store.undoLastTurn()).toEqual({ restored: ["a.txt"], removed: [], notes: [] });
      expect(p.read("a.txt")).toBe("a\n");
    },
  );

  test(
    "objects the project borrows from elsewhere (its alternates) are not read " + "through an entry naming them",
    async () => {
      const p = await repository({ "a.txt": "public\n" });
      // Another repository of the user's, which the project's alternates chain to.
      const other = join(dirname(p.root), "other");
      mkdirSync(other);
      writeFileSync(join(other, "secret.txt"), "PRIVATE\n");
      const otherGit = (command: string) => p.sh(`cd ${other} && ${command}`);
      await otherGit("git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -q -m s");
      // The index names that blob for a.txt, with a.txt's own stat data (as a command could write it).
      await p.sh(
        `touch -d '2020-01-01' a.txt && git add a.txt && echo ` +
          `${join(other, ".git", "objects")} > .git/objects/info/alternates`,
      );
      const id = (text: string) => createHash("sha1").update(`blob ${text.length}\0${text}`).digest();
      const index = join(p.root, ".git", "index");
      const body = readFileSync(index).subarray(0, -20);
      id("PRIVATE\n").copy(body, body.indexOf(id("public\n")));
      writeFileSync(index, Buffer.concat([body, createHash("sha1").update(body).digest()]));
      await p.store.beginTurn();
      await p.store.beforeCommand();
      await p.sh("echo changed > a.txt");
      await p.store.endTurn();
      const changes = await p.store.turnChanges();
      if (!changes.available) throw new Error(changes.reason);
      expect(changes.files[0]?.diff).toEqual({ oldText: "public\n", newText: "changed\n" });
      expect(packs(p.home, p.root)).toBe(0);
    },
  );
});
