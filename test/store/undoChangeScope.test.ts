// Snapshots by changed path (store/undoChangeScope.ts), fed by a real git guard's inotify watches:
// after every kind of change a user or a command makes, the tree read by path is the tree `add -A`
// makes from the same index; what the log cannot vouch for (ignore rules, lost coverage) is read
// whole. The negative control drops one changed path from the log's answer: the trees then differ.
import { afterEach, describe, expect, test } from "bun:test";
import {
  chmodSync,
  linkSync,
  mkdirSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { type GitGuardHost, createGitGuardHost } from "../../src/sandbox/gitGuard/host.ts";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import { type ScopedSnapshots, scopedSnapshots } from "../../src/store/undoChangeScope.ts";
import { GitRunner } from "../../src/store/undoGit.ts";
import { setUpStore } from "../../src/store/undoSetup.ts";
import { type SnapshotScope, snapshotTaker } from "../../src/store/undoSnapshot.ts";
import { alignIndex, editTree } from "../../src/store/undoTreeEdit.ts";
import { snapshotDir } from "../../src/store/undo.ts";
import { SELF_COMMAND } from "../support/sandboxSupport.ts";
import { tempDir } from "../support/tempDir.ts";

const NO_SANDBOX = { availability: { available: false as const, reason: "not needed", fix: "none" } };
const EXCLUDED = [".garuda/sessions"];

interface Bench {
  root: string;
  scoped: ScopedSnapshots;
  /** How each snapshot read the tree: "all", "changed" or "written"; nothing for one that read nothing. */
  reads: string[];
  /** The tree `add -A` makes now, on an index of its own that only full snapshots ever used (started with ours). */
  fullTree(): Promise<string | undefined>;
  write(path: string, text: string): void;
  /** Waits until the guard has handled every event so far (a folder made is walked, then logged again). */
  settle(): Promise<void>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

interface BenchOptions {
  maxWatches?: number;
  /** A path the log's answers leave out (the negative control). */
  drop?: string;
  /** The project's .git/info/exclude, made before the store's git is set up (it reads it only if present then). */
  exclude?: string;
}

async function bench(options: BenchOptions = {}): Promise<Bench> {
  const dir = tempDir("garuda-scope-");
  const base = realpathSync(dir.path);
  const root = join(base, "project");
  const home = join(base, "home");
  mkdirSync(root);
  mkdirSync(home);
  if (options.exclude !== undefined) {
    mkdirSync(join(root, ".git/info"), { recursive: true });
    writeFileSync(join(root, ".git/info/exclude"), options.exclude);
  }
  const executor: ProcessExecutor = await createExecutor({ root, home, selfCommand: SELF_COMMAND, probe: NO_SANDBOX });
  const host: GitGuardHost = createGitGuardHost({
    stateDir: join(home, "git-guard"),
    path: process.env.PATH,
    ...(options.maxWatches !== undefined && { maxWatches: options.maxWatches }),
  });
  const lease = host.lease(root);
  const guard = await lease.guard;
  await guard.ready;
  const gitDir = snapshotDir(home, root);
  const dirs = { root, gitDir, tmpDir: join(gitDir, "tmp") };
  const git = new GitRunner(executor, { ...dirs, indexFile: join(gitDir, "index-test") });
  expect(await setUpStore(git, { home, excluded: EXCLUDED, maxFiles: 50_000 })).toEqual({ seeded: false });
  const disable = (reason: string) => {
    throw new Error(reason);
  };
  const take = snapshotTaker({ git, excluded: EXCLUDED, timeoutMs: 30_000, disable });
  const reads: string[] = [];
  const kind = (scope: SnapshotScope) => (scope === undefined ? "all" : "written");
  const scoped = scopedSnapshots({
    root,
    excluded: EXCLUDED,
    edit: (base, paths) => {
      reads.push("changed");
      return editTree(git, base, paths, { excluded: EXCLUDED, timeoutMs: 30_000 });
    },
    align: (tree, paths) => alignIndex(git, tree, paths, 30_000),
    disable,
    changesSince: async (at, token) => {
      const answer = await host.changesSince(at, token);
      const drop = options.drop;
      if (drop === undefined || answer.paths === "all") return answer;
      return { token: answer.token, paths: answer.paths.filter((path) => path !== join(root, drop)) };
    },
    take: (scope) => {
      reads.push(kind(scope));
      return take(scope);
    },
    lasting: () => false,
  });
  const copy = new GitRunner(executor, { ...dirs, indexFile: join(gitDir, "index-reference") });
  const takeWhole = snapshotTaker({ git: copy, excluded: EXCLUDED, timeoutMs: 30_000, disable });
  cleanups.push(async () => {
    await lease.release();
    await host.close();
    await executor.shutdown();
    dir[Symbol.dispose]();
  });
  return {
    root,
    scoped,
    reads,
    fullTree: () => takeWhole(),
    async settle() {
      await host.pass();
      await guard.verify(false);
    },
    write(path, text) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    },
  };
}

/** Makes the change, then expects the snapshot by path (`read`: how it read) to equal `add -A`'s. */
async function expectSame(b: Bench, change: () => void, read: "changed" | "all" | "nothing"): Promise<string> {
  change();
  await b.settle();
  const before = b.reads.length;
  const tree = await b.scoped.take();
  expect(b.reads.slice(before)).toEqual(read === "nothing" ? [] : [read]);
  expect(tree).toBeDefined();
  expect(tree).toBe((await b.fullTree()) as string);
  return tree as string;
}

async function started(options: BenchOptions = {}): Promise<Bench> {
  const b = await bench(options);
  b.write(".gitignore", "build/\n*.log\n!keep.log\n");
  b.write("src/a.c", "int a;\n");
  b.write("src/deep/b.c", "int b;\n");
  b.write("docs/readme.md", "hi\n");
  b.write("tracked.tmp", "tracked before it was ignored\n");
  b.write("run.sh", "echo hi\n");
  symlinkSync("src/a.c", join(b.root, "link"));
  await b.settle();
  expect(await b.scoped.take()).toBe((await b.fullTree()) as string);
  expect(b.reads).toEqual(["all"]);
  return b;
}

describe("undo snapshots by changed path", () => {
  test("every kind of change reads only what changed, and gives add -A's tree", async () => {
    const b = await started();
    const { root } = b;
    await expectSame(b, () => undefined, "nothing");
    await expectSame(b, () => b.write("src/a.c", "int a = 1;\n"), "changed");
    await expectSame(b, () => b.write("new/one/two/c.c", "int c;\n"), "changed");
    await expectSame(b, () => unlinkSync(join(root, "docs/readme.md")), "changed");
    await expectSame(b, () => rmSync(join(root, "new"), { recursive: true }), "changed");
    await expectSame(b, () => renameSync(join(root, "src/deep"), join(root, "moved")), "changed");
    await expectSame(b, () => chmodSync(join(root, "run.sh"), 0o755), "changed");
    await expectSame(
      b,
      () => {
        unlinkSync(join(root, "link"));
        symlinkSync("run.sh", join(root, "link"));
      },
      "changed",
    );
    // A file becomes a folder, and a folder a file.
    await expectSame(
      b,
      () => {
        unlinkSync(join(root, "src/a.c"));
        b.write("src/a.c/inner.c", "int inner;\n");
        rmSync(join(root, "moved"), { recursive: true });
        b.write("moved", "now a file\n");
      },
      "changed",
    );
    // Ignored: not taken; a negation lets one in.
    await expectSame(b, () => b.write("build/out.o", "obj"), "changed");
    await expectSame(b, () => b.write("x.log", "log"), "changed");
    await expectSame(b, () => b.write("keep.log", "kept"), "changed");
    // An editor's save: a temporary file renamed over the old one.
    await expectSame(
      b,
      () => {
        b.write("run.sh.swp", "echo saved\n");
        renameSync(join(root, "run.sh.swp"), join(root, "run.sh"));
      },
      "changed",
    );
    // Never stored, whatever changes there (.garuda, a folder made, is read again: nothing in it is taken).
    await expectSame(b, () => b.write(".garuda/sessions/s.jsonl", "{}\n"), "changed");
    await expectSame(b, () => b.write(".garuda/sessions/s.jsonl", "{}\n{}\n"), "nothing");
    await expectSame(b, () => b.write(".git-not/x", "a folder named like it is stored\n"), "changed");
  });

  test("a file tracked before an ignore rule covered it is still read by path", async () => {
    const b = await started();
    await expectSame(b, () => b.write(".gitignore", "build/\n*.log\n!keep.log\n*.tmp\n"), "all");
    await expectSame(b, () => b.write("tracked.tmp", "changed while ignored\n"), "changed");
  });

  test("changed ignore rules read the whole tree: what they let in changed nowhere", async () => {
    const b = await started();
    await expectSame(b, () => b.write("build/out.o", "obj"), "changed");
    await expectSame(b, () => b.write("src/.gitignore", "*.c\n"), "all");
    await expectSame(b, () => b.write(".gitignore", "*.log\n!keep.log\n"), "all");
    await expectSame(b, () => b.write("docs/other.md", "x\n"), "changed");
  });

  test("so does a change of the project's .git/info/exclude", async () => {
    const b = await started({ exclude: "extra/\n" });
    await expectSame(b, () => b.write("extra/e.txt", "left out\n"), "changed");
    await expectSame(b, () => b.write(".git/info/exclude", "\n"), "all");
    await expectSame(b, () => b.write("docs/other.md", "x\n"), "changed");
  });

  test("a file with a second name is read whole: a write through the other name is an event there only", async () => {
    const b = await started();
    await expectSame(b, () => linkSync(join(b.root, "src/a.c"), join(b.root, "docs/alias.c")), "all");
    await expectSame(b, () => writeFileSync(join(b.root, "docs/alias.c"), "int a = 9;\n"), "all");
  });

  test("a tree the guard cannot watch whole is read whole every time", async () => {
    const b = await started({ maxWatches: 2 });
    await expectSame(b, () => b.write("src/a.c", "int a = 2;\n"), "all");
    await expectSame(b, () => undefined, "all");
  });

  test("negative control: a change missing from the log's answer leaves the snapshot stale", async () => {
    const b = await started({ drop: "src/a.c" });
    b.write("src/a.c", "int a = 3;\n");
    b.write("docs/readme.md", "also changed\n");
    const tree = await b.scoped.take();
    expect(b.reads.at(-1)).toBe("changed");
    expect(tree).not.toBe((await b.fullTree()) as string);
  });
});
