// editTree (src/store/undoTreeEdit.ts) against the store's full snapshot, with real git on real
// files: after each change, the tree made from the last snapshot and the changed paths must be the
// very tree `git add -A` + write-tree writes (same id). The project has nested folders, a
// .gitignore with negations and an ignored folder, a file tracked though ignored, symlinks, an
// executable, a nested repository, a project-level info/exclude and a session folder a negation
// lets in. Then a seeded random walk of a few hundred operations in batches. Negative control: a
// changed path left out gives another tree, so the comparison sees a stale result. Last, the
// session's index, which editTree never touches: alignIndex brings it in line at the paths the
// trees were made from before the next full snapshot (it decides which ignored files are tracked);
// negative control: without, a full snapshot differs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import { snapshotDir } from "../../src/store/undo.ts";
import { GitRunner } from "../../src/store/undoGit.ts";
import { setUpStore } from "../../src/store/undoSetup.ts";
import { snapshotTaker } from "../../src/store/undoSnapshot.ts";
import { alignIndex, editTree, type TreeEditOptions } from "../../src/store/undoTreeEdit.ts";
import { namedPaths } from "../../src/store/undoTreePaths.ts";
import { SELF_COMMAND } from "../support/sandboxSupport.ts";
import { makeTempDir } from "../support/tempDir.ts";

const NO_SANDBOX = { availability: { available: false as const, reason: "not needed", fix: "none" } };
const EXCLUDED = [".garuda/sessions"];
const OPTIONS = { excluded: EXCLUDED, timeoutMs: 30_000 };
/** Each test runs several git calls through the executor (and some set a project up): seconds on a loaded machine. */
const SLOW = 30_000;

/** editTree's tree alone. */
async function edit(
  git: GitRunner,
  base: string,
  paths: string[],
  options: TreeEditOptions,
): Promise<string | undefined> {
  return (await editTree(git, base, paths, options))?.tree;
}

interface Harness {
  root: string;
  git: GitRunner;
  executor: ProcessExecutor;
  full(): Promise<string>;
  sh(command: string): Promise<void>;
}

const made: Array<{ dir: string; executor: ProcessExecutor }> = [];
afterAll(async () => {
  for (const { dir, executor } of made) {
    await executor.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A project (a git repository with `files` committed, plus `force` added though ignored) and its undo store. */
async function harness(files: Record<string, string>, force: string[] = []): Promise<Harness> {
  const dir = realpathSync(makeTempDir("garuda-treeedit-"));
  const root = join(dir, "project");
  const home = join(dir, "home");
  mkdirSync(root);
  mkdirSync(home);
  for (const [path, text] of Object.entries(files)) put(root, path, text);
  const executor = await createExecutor({ root, home, selfCommand: SELF_COMMAND, probe: NO_SANDBOX });
  made.push({ dir, executor });
  const sh = async (command: string) => {
    const result = await executor.run({ command, cwd: root, sandbox: null });
    if (result.exitCode !== 0) throw new Error(`${command}: ${result.output}`);
  };
  const commit = "git -c user.name=t -c user.email=t@e commit -q --allow-empty -m init";
  await sh(`git init -q . && git add -A && ${force.map((p) => `git add -f '${p}' && `).join("")}${commit}`);
  writeFileSync(join(root, ".git/info/exclude"), "secret.txt\n");
  const gitDir = snapshotDir(home, root);
  const git = new GitRunner(executor, {
    root,
    gitDir,
    indexFile: join(gitDir, "index-test"),
    tmpDir: join(gitDir, "tmp"),
  });
  const setUp = await setUpStore(git, { home, excluded: EXCLUDED, maxFiles: 50_000 });
  expect(setUp).toEqual({ seeded: true });
  const take = snapshotTaker({
    git,
    excluded: EXCLUDED,
    timeoutMs: 30_000,
    disable: (reason) => {
      throw new Error(reason);
    },
  });
  const full = async () => (await take()) as string;
  return { root, git, executor, full, sh };
}

function put(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  rmSync(join(root, path), { recursive: true, force: true });
  writeFileSync(join(root, path), text);
}

const PROJECT: Record<string, string> = {
  ".gitignore": "*.log\n!keep.log\nbuild/\n/out/*\n!/out/kept.txt\n!/.garuda/sessions/\n",
  "src/main.c": "int main;\n",
  "src/lib/util.c": "util\n",
  "src/lib/deep/x.h": "x\n",
  "src/lib/deep/y.h": "y\n",
  "docs/readme.md": "read me\n",
  "docs/guide/one.md": "one\n",
  "bin/run.sh": "#!/bin/sh\n",
  "build/keep.txt": "tracked though ignored\n",
  "out/kept.txt": "kept\n",
  "out/dropped.txt": "dropped\n",
  ".garuda/settings.json": "{}\n",
  ".garuda/sessions/s1.jsonl": "{}\n",
  "odd name: [x]*.txt": "odd\n",
};

async function standardProject(): Promise<Harness> {
  const h = await harness(PROJECT, ["build/keep.txt"]);
  chmodSync(join(h.root, "bin/run.sh"), 0o755);
  symlinkSync("src/main.c", join(h.root, "link"));
  symlinkSync("src", join(h.root, "dirlink"));
  await h.sh(
    "mkdir -p vendor/lib && cd vendor/lib && git init -q && echo v > v.txt && git add -A && " +
      "git -c user.name=t -c user.email=t@e commit -q -m v",
  );
  return h;
}

/** One change: what it does, and the paths a watcher would name for it. */
interface Change {
  name: string;
  apply(h: Harness): Promise<void> | void;
  paths: string[];
  /** The snapshot stays as it was (ignored, excluded, empty, or nothing git records). */
  same?: true;
}

const w = (path: string, text: string) => (h: Harness) => put(h.root, path, text);

const CHANGES: Change[] = [
  { name: "edit a file", apply: w("src/main.c", "int main(void);\n"), paths: ["src/main.c"] },
  {
    name: "create in new nested folders (the file named)",
    apply: w("src/new/a/b/c.txt", "c\n"),
    paths: ["src/new/a/b/c.txt"],
  },
  { name: "create in new nested folders (the folder named)", apply: w("top/a/b.txt", "b\n"), paths: ["top"] },
  {
    name: "delete a file (its folder empties)",
    apply: (h) => rmSync(join(h.root, "docs/guide/one.md")),
    paths: ["docs/guide/one.md"],
  },
  {
    name: "delete a folder",
    apply: (h) => rmSync(join(h.root, "src/lib/deep"), { recursive: true }),
    paths: ["src/lib/deep"],
  },
  {
    name: "rename a folder",
    apply: (h) => renameSync(join(h.root, "src"), join(h.root, "source")),
    paths: ["src", "source"],
  },
  {
    name: "file -> folder",
    apply: (h) => {
      rmSync(join(h.root, "bin/run.sh"));
      put(h.root, "bin/run.sh/inner.txt", "inner\n");
    },
    paths: ["bin/run.sh"],
  },
  {
    name: "folder -> file",
    apply: (h) => {
      rmSync(join(h.root, "source/lib"), { recursive: true });
      put(h.root, "source/lib", "now a file\n");
    },
    paths: ["source/lib"],
  },
  { name: "chmod +x", apply: (h) => chmodSync(join(h.root, "docs/readme.md"), 0o755), paths: ["docs/readme.md"] },
  {
    name: "symlink retarget",
    apply: (h) => {
      rmSync(join(h.root, "link"));
      symlinkSync("docs/readme.md", join(h.root, "link"));
    },
    paths: ["link"],
  },
  {
    name: "folder -> symlink, named by a path below it",
    apply: (h) => {
      rmSync(join(h.root, "docs"), { recursive: true });
      symlinkSync("source", join(h.root, "docs"));
    },
    paths: ["docs/readme.md"],
  },
  { name: "create an ignored file", apply: w("source/debug.log", "noise\n"), paths: ["source/debug.log"], same: true },
  { name: "a negation lets one in", apply: w("source/keep.log", "kept\n"), paths: ["source/keep.log"] },
  { name: "modify a file tracked though ignored", apply: w("build/keep.txt", "changed\n"), paths: ["build/keep.txt"] },
  { name: "create in an ignored folder", apply: w("build/new.txt", "ignored\n"), paths: ["build/new.txt"], same: true },
  {
    name: "in a folder whose files are ignored",
    apply: w("out/more.txt", "no\n"),
    paths: ["out/more.txt"],
    same: true,
  },
  {
    name: "an empty folder",
    apply: (h) => mkdirSync(join(h.root, "empty/dir"), { recursive: true }),
    paths: ["empty/dir"],
    same: true,
  },
  { name: "excluded by the project's info/exclude", apply: w("secret.txt", "s\n"), paths: ["secret.txt"], same: true },
  {
    name: "a session file",
    apply: w(".garuda/sessions/s2.jsonl", "{}\n"),
    paths: [".garuda/sessions/s2.jsonl"],
    same: true,
  },
  { name: "the .garuda folder", apply: w(".garuda/sessions/s3.jsonl", "{}\n"), paths: [".garuda"], same: true },
  {
    name: "odd names",
    apply: (h) => {
      put(h.root, "a b/:c*[d]?.txt", "odd\n");
      put(h.root, "\u00fcn\u00ef/c\u00f6d\u00e9 \u{1f600}.txt", "utf-8\n");
    },
    paths: ["a b/:c*[d]?.txt", "odd name: [x]*.txt", "\u00fcn\u00ef/c\u00f6d\u00e9 \u{1f600}.txt"],
  },
  {
    name: "a file name that is not UTF-8, in a folder named whole",
    apply: (h) => {
      mkdirSync(join(h.root, "bytes"));
      writeFileSync(
        Buffer.concat([Buffer.from(`${h.root}/bytes/f`), Buffer.from([0xff, 0xfe]), Buffer.from(".txt")]),
        "b\n",
      );
    },
    paths: ["bytes"],
  },
  { name: "a subfolder's .gitignore", apply: w("source/.gitignore", "*.tmp\nmain.c\n"), paths: ["source/.gitignore"] },
  {
    name: "a subfolder's .gitignore lets an ignored file in",
    apply: w("source/.gitignore", "!debug.log\n*.tmp\nmain.c\n"),
    paths: ["source/.gitignore"],
  },
  { name: "then a .tmp file", apply: w("source/x.tmp", "t\n"), paths: ["source/x.tmp"], same: true },
  {
    name: "a nested repository's work tree (no change)",
    apply: w("vendor/lib/v.txt", "v2\n"),
    paths: ["vendor/lib/v.txt"],
    same: true,
  },
  {
    name: "a nested repository's commit",
    apply: (h) => h.sh("cd vendor/lib && git -c user.name=t -c user.email=t@e commit -qam v2"),
    paths: ["vendor/lib/.git/refs/heads/main"],
  },
  {
    name: "a new nested repository",
    apply: (h) =>
      h.sh(
        "mkdir -p sub/repo && cd sub/repo && git init -q && echo r > r && git add r && " +
          "git -c user.name=t -c user.email=t@e commit -qm r",
      ),
    paths: ["sub"],
  },
  {
    name: "a tracked folder becomes a repository, then gets a file",
    apply: async (h) => {
      await h.sh("cd source && git init -q");
      put(h.root, "source/added.c", "added\n");
    },
    paths: ["source/.git", "source/added.c"],
  },
  {
    name: "a file in a new folder in that repository",
    apply: w("source/inner/f.c", "f\n"),
    paths: ["source/inner/f.c"],
  },
  {
    name: "git's order of names: a folder sorts as if its name ended in /",
    apply: (h) => {
      for (const path of ["order/a/x", "order/a.b", "order/a-c", "order/a0", "order/a/b/c"]) put(h.root, path, "o\n");
    },
    paths: ["order/a/x", "order/a.b", "order/a-c", "order/a0", "order/a/b/c"],
  },
  { name: "then a file in that folder, the rest of it from base", apply: w("order/a/x", "p\n"), paths: ["order/a/x"] },
  { name: "a path that never existed", apply: () => {}, paths: ["nothing/here"], same: true },
  // git keeps the gitlink of a repository whose .git went (a submodule not checked out) and looks no further.
  {
    name: "a nested repository's .git removed",
    apply: (h) => rmSync(join(h.root, "vendor/lib/.git"), { recursive: true }),
    paths: ["vendor/lib/.git"],
    same: true,
  },
  {
    name: "a file in that former repository",
    apply: w("vendor/lib/new.txt", "n\n"),
    paths: ["vendor/lib/new.txt"],
    same: true,
  },
];

describe("editTree: the tree a full snapshot writes", () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await standardProject();
    base = await h.full();
  }, SLOW);

  for (const change of CHANGES) {
    test(
      change.name,
      async () => {
        await change.apply(h);
        const edited = await edit(h.git, base, change.paths, OPTIONS);
        // Its trees are in the store before the full snapshot writes any (git reads them back).
        expect((await h.git.run({ script: `g ls-tree -r -t ${edited} >/dev/null` })).exitCode).toBe(0);
        const full = await h.full();
        expect(edited).toBe(full);
        if (change.same) expect(full).toBe(base);
        else expect(full).not.toBe(base);
        base = full;
      },
      SLOW,
    );
  }

  test(
    "the trees editTree wrote itself are well-formed as git's checks see them (fsck --strict)",
    async () => {
      const checked = await h.git.run({ script: "g fsck --strict --no-dangling --no-progress" });
      expect(checked.exitCode).toBe(0);
      expect(checked.messages.split("\n").filter((line) => line !== "" && !line.startsWith("notice:"))).toEqual([]);
    },
    SLOW,
  );
});

describe("editTree: what it refuses, and a stale list of paths", () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await standardProject();
    base = await h.full();
  }, SLOW);

  test(
    "negative control: a changed path left out gives another tree than the full snapshot",
    async () => {
      put(h.root, "src/main.c", "changed\n");
      put(h.root, "docs/readme.md", "changed too\n");
      const full = await h.full();
      expect(await edit(h.git, base, ["src/main.c", "docs/readme.md"], OPTIONS)).toBe(full);
      const stale = await edit(h.git, base, ["src/main.c"], OPTIONS);
      expect(stale).toBeString();
      expect(stale).not.toBe(full);
      expect(await edit(h.git, base, [], OPTIONS)).toBe(base);
      base = full;
    },
    SLOW,
  );

  test(
    "undefined for what only a full snapshot can tell",
    async () => {
      for (const paths of [[""], ["."], ["src/../docs"], ["/etc/passwd"], ["a//b"], [".gitignore"], ["x\ny"]])
        expect(await edit(h.git, base, paths, OPTIONS)).toBeUndefined();
      for (const paths of [[".git"], [".git/info"], [".git/info/exclude"], ["src/.GIT/x"], ["src/git~1"]])
        expect(await edit(h.git, base, paths, OPTIONS)).toBeUndefined();
      expect(await edit(h.git, "not a tree", ["src/main.c"], OPTIONS)).toBeUndefined();
      // The project's own repository is never stored: a change in it changes nothing.
      expect(await edit(h.git, base, [".git/index", ".git/objects/ab"], OPTIONS)).toBe(base);
    },
    SLOW,
  );

  test(
    "undefined when a file of base is a folder now and only a path below it is named",
    async () => {
      rmSync(join(h.root, "bin/run.sh"));
      put(h.root, "bin/run.sh/inner.txt", "inner\n");
      expect(await edit(h.git, base, ["bin/run.sh/inner.txt"], OPTIONS)).toBeUndefined();
      const full = await h.full();
      expect(await edit(h.git, base, ["bin/run.sh"], OPTIONS)).toBe(full);
    },
    SLOW,
  );
});

test("each path stands for what its change may reach, none at or below another", () => {
  const paths = ["src/.gitignore", "src/a.c", "vendor/lib/.git/HEAD", ".git/index", ".garuda/sessions/x", "a/b/", "a"];
  expect(namedPaths(paths, [".garuda/sessions"])).toEqual(["a", "src", "vendor/lib"]);
  // To git as its UTF-8 bytes, one character per byte.
  expect(namedPaths(["caf\u00e9"], [])).toEqual([Buffer.from("caf\u00e9").toString("latin1")]);
});

describe("the session index after trees made by editTree", () => {
  /**
   * A file tracked though ignored goes (editTree's tree), then comes back (again editTree's): the index never saw
   * either.
   */
  async function goneAndBack(): Promise<{ h: Harness; latest: string; paths: string[] }> {
    const h = await standardProject();
    const base = await h.full();
    rmSync(join(h.root, "build/keep.txt"));
    const gone = (await editTree(h.git, base, ["build/keep.txt"], OPTIONS)) as { tree: string; paths: string[] };
    put(h.root, "build/keep.txt", "back\n");
    const back = (await editTree(h.git, gone.tree, ["build/keep.txt"], OPTIONS)) as { tree: string; paths: string[] };
    // Untracked once gone, and ignored: not in the latest tree.
    expect(back.tree).toBe(gone.tree);
    return { h, latest: back.tree, paths: [...gone.paths, ...back.paths] };
  }

  test(
    "brought in line at the paths of the trees made since (alignIndex), a full snapshot agrees",
    async () => {
      const { h, latest, paths } = await goneAndBack();
      expect(paths).toEqual(["build/keep.txt", "build/keep.txt"]);
      expect(await alignIndex(h.git, latest, paths, 30_000)).toBe(true);
      expect(await h.full()).toBe(latest);
    },
    SLOW,
  );

  test(
    "negative control: left as it was, it still tracks the ignored file and a full snapshot takes it back",
    async () => {
      const { h, latest } = await goneAndBack();
      expect(await h.full()).not.toBe(latest);
    },
    SLOW,
  );

  test(
    "the paths a tree was made from are the widened ones",
    async () => {
      const h = await standardProject();
      const base = await h.full();
      rmSync(join(h.root, "docs"), { recursive: true });
      symlinkSync("src", join(h.root, "docs"));
      put(h.root, "src/.gitignore", "*.c\n");
      const made = await editTree(h.git, base, ["docs/readme.md", "src/.gitignore", "src/main.c"], OPTIONS);
      expect(made?.paths).toEqual(["docs", "src"]);
      expect(made?.tree).toBe(await h.full());
    },
    SLOW,
  );
});

/** mulberry32: a small seeded generator, so a failing walk can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every path under `root` but .git (links not followed), folders included. */
function entries(root: string, folder = ""): Array<{ path: string; folder: boolean; file: boolean }> {
  const found: Array<{ path: string; folder: boolean; file: boolean }> = [];
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
    const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
    // The project's repository and the nested ones' (their changes are tested above).
    if (entry.name === ".git") continue;
    found.push({ path, folder: entry.isDirectory(), file: entry.isFile() });
    if (entry.isDirectory()) found.push(...entries(root, path));
  }
  return found;
}

/** A random change to the project; returns the paths a watcher would name. */
function randomChange(root: string, next: () => number): string[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const NAMES = ["a", "b", "c", "build", "f1", "f2", "x.log", "keep.log", "g h"];
  const newPath = () => Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(NAMES)).join("/");
  // Not the root's .gitignore: editTree declines any change of it (a full snapshot's job).
  const present = entries(root).filter((entry) => entry.path !== ".gitignore");
  const files = present.filter((entry) => entry.file);
  const folders = present.filter((entry) => entry.folder);
  /** Clears the way for `path`: what is in the way is replaced, and named. */
  const clear = (path: string): string[] => {
    const named: string[] = [];
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const above = parts.slice(0, i).join("/");
      const entry = present.find((e) => e.path === above);
      if (entry && !entry.folder) {
        rmSync(join(root, above));
        named.push(above);
        break;
      }
    }
    if (present.some((e) => e.path === path)) {
      rmSync(join(root, path), { recursive: true });
      named.push(path);
    }
    mkdirSync(dirname(join(root, path)), { recursive: true });
    return named;
  };
  const kind = next();
  if (kind < 0.35) {
    const path = newPath();
    const named = clear(path);
    writeFileSync(join(root, path), `${next()}\n`);
    return [...named, path];
  }
  if (kind < 0.5 && present.length > 0) {
    const victim = pick(present.filter((e) => !e.path.startsWith(".garuda")));
    if (!victim) return [];
    rmSync(join(root, victim.path), { recursive: true, force: true });
    return [victim.path];
  }
  if (kind < 0.6 && folders.length > 0) {
    const from = pick(folders).path;
    const to = newPath();
    if (to === from || to.startsWith(`${from}/`) || from.startsWith(`${to}/`)) return [];
    const named = clear(to);
    renameSync(join(root, from), join(root, to));
    return [...named, from, to];
  }
  if (kind < 0.7 && files.length > 0) {
    const file = pick(files).path;
    chmodSync(join(root, file), next() < 0.5 ? 0o755 : 0o644);
    return [file];
  }
  if (kind < 0.8) {
    const path = newPath();
    const named = clear(path);
    symlinkSync(pick(["a", "f1", "../b", "a/f2"]), join(root, path));
    return [...named, path];
  }
  if (kind < 0.9 && folders.length > 0) {
    const path = `${pick(folders).path}/.gitignore`;
    const named = clear(path);
    const rules = Array.from({ length: 1 + Math.floor(next() * 3) }, () =>
      pick(["*.log", "!keep.log", "f2", "c/", "!f1", "b"]),
    );
    writeFileSync(join(root, path), `${rules.join("\n")}\n`);
    return [...named, path];
  }
  const path = newPath();
  const named = clear(path);
  mkdirSync(join(root, path), { recursive: true });
  return [...named, path];
}

test("a seeded random walk: 300 changes in batches of 10, each batch's tree as the full snapshot's", async () => {
  const h = await standardProject();
  const next = random(35);
  let base = await h.full();
  const seen = new Set([base]);
  for (let batch = 0; batch < 30; batch++) {
    const paths: string[] = [];
    for (let i = 0; i < 10; i++) paths.push(...randomChange(h.root, next));
    const edited = await edit(h.git, base, paths, OPTIONS);
    const full = await h.full();
    expect({ batch, edited }).toEqual({ batch, edited: full });
    base = full;
    seen.add(full);
  }
  // The walk changed the snapshot most of the time.
  expect(seen.size).toBeGreaterThan(20);
}, 120_000);
