// The undo store with real git through the real executor: changes made by a tool write and by a
// bash command are undone, created files removed, deleted files restored; .gitignore'd files,
// .git and .garuda/sessions are never touched; later user edits are left alone; the limits
// (a folder in no repository over the file count, snapshot time, no git) switch undo off with one
// notice.
import { afterEach, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ExecRequest, ExecResult, Executor, ProcessExecutor } from "../../src/sandbox/types.ts";
import { createUndoStore, snapshotDir, type UndoStore, type UndoStoreOptions } from "../../src/store/undo.ts";
import { SELF_COMMAND } from "../support/sandboxSupport.ts";
import { tempDir } from "../support/tempDir.ts";

const NO_SANDBOX = { availability: { available: false as const, reason: "not needed", fix: "none" } };

interface Project {
  root: string;
  home: string;
  executor: ProcessExecutor;
  store: UndoStore;
  write(path: string, text: string): void;
  read(path: string): string | undefined;
  sh(command: string): Promise<ExecResult>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function project(
  files: Record<string, string> = {},
  options: Partial<UndoStoreOptions> & { env?: Record<string, string | undefined> } = {},
): Promise<Project> {
  const dir = tempDir("garuda-undo-");
  const base = realpathSync(dir.path);
  const root = join(base, "project");
  const home = join(base, "home");
  mkdirSync(root);
  mkdirSync(home);
  const executor = await createExecutor({
    root,
    home,
    selfCommand: SELF_COMMAND,
    probe: NO_SANDBOX,
    ...(options.env && { env: options.env }),
  });
  const { env: _env, ...storeOptions } = options;
  const store = createUndoStore({ root, home, executor, ...storeOptions });
  cleanups.push(async () => {
    await store.close();
    await executor.shutdown();
    dir[Symbol.dispose]();
  });
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  for (const [path, text] of Object.entries(files)) write(path, text);
  return {
    root,
    home,
    executor,
    store,
    write,
    read: (path) => (existsSync(join(root, path)) ? readFileSync(join(root, path), "utf8") : undefined),
    sh: (command) => executor.run({ command, cwd: root, sandbox: null }),
  };
}

/** Every entry name in every tree of the snapshot store. */
async function storedNames(p: Project): Promise<string[]> {
  const store = snapshotDir(p.home, p.root);
  const script =
    `export GIT_DIR='${store}'; git cat-file --batch-all-objects ` +
    `--batch-check='%(objecttype) %(objectname)' | awk '$1=="tree"{print $2}' | ` +
    `while read t; do git ls-tree "$t"; done`;
  const result = await p.executor.run({ command: script, cwd: p.root, sandbox: null, maxOutputBytes: 1_000_000 });
  expect(result.exitCode).toBe(0);
  return result.output
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split("\t")[1] as string);
}

/** A whole turn: begin, the tool's snapshot of the paths it writes, the change, end. */
/** One turn: `change` is a tool's write of `writes`, or without them a command's (which may write anything). */
async function turn(p: Project, change: () => Promise<unknown> | unknown, writes: string[] = []): Promise<void> {
  await p.store.beginTurn();
  if (writes.length > 0) await p.store.snapshot(writes.map((path) => join(p.root, path)));
  else await p.store.beforeCommand();
  await change();
  await p.store.endTurn();
}

describe("undo: what a turn changed comes back", () => {
  test("a tool write is undone", async () => {
    const p = await project({ "a.txt": "one\n" });
    await turn(p, () => p.write("a.txt", "two\n"), ["a.txt"]);
    expect(await p.store.undoLastTurn()).toEqual({ restored: ["a.txt"], removed: [], notes: [] });
    expect(p.read("a.txt")).toBe("one\n");
  });

  test("a bash command's changes (through the real executor) are undone: edit, delete and create", async () => {
    const p = await project({ "b.txt": "before\n", "c.txt": "keep me\n", "src/bin.dat": "\u0000\u0001binary\r\n" });
    await turn(p, async () => {
      const result = await p.sh(
        "echo after > b.txt && rm c.txt src/bin.dat && mkdir -p new/dir && echo fresh > new/dir/d.txt",
      );
      expect(result.exitCode).toBe(0);
    });
    expect(p.read("c.txt")).toBeUndefined();
    const outcome = await p.store.undoLastTurn();
    expect(outcome.removed).toEqual(["new/dir/d.txt"]);
    expect(outcome.restored.sort()).toEqual(["b.txt", "c.txt", "src/bin.dat"]);
    expect(p.read("b.txt")).toBe("before\n");
    expect(p.read("c.txt")).toBe("keep me\n");
    expect(readFileSync(join(p.root, "src/bin.dat"))).toEqual(Buffer.from("\u0000\u0001binary\r\n"));
    expect(existsSync(join(p.root, "new"))).toBe(false); // emptied folders go too
  });

  test("files keep their exact bytes and mode, whatever .gitattributes says", async () => {
    const p = await project({
      ".gitattributes": "* text=auto eol=lf\n",
      "w.bat": "line one\r\nline two\r\n",
      "run.sh": "#!/bin/sh\necho hi\n",
    });
    await p.sh("chmod 755 run.sh");
    await turn(p, () => p.sh("printf 'changed\\n' > w.bat && printf 'x' > run.sh && chmod 644 run.sh"));
    await p.store.undoLastTurn();
    expect(p.read("w.bat")).toBe("line one\r\nline two\r\n");
    expect(p.read("run.sh")).toBe("#!/bin/sh\necho hi\n");
    expect(statSync(join(p.root, "run.sh")).mode & 0o777).toBe(0o755);
  });

  test(
    "two undos in a row undo two turns, newest first; a turn that changed nothing " + "is skipped with a note",
    async () => {
      const p = await project({ "a.txt": "v1" });
      await turn(p, () => p.write("a.txt", "v2"), ["a.txt"]);
      await turn(p, () => p.write("a.txt", "v3"), ["a.txt"]);
      await turn(p, () => undefined);
      const first = await p.store.undoLastTurn();
      expect(first.restored).toEqual(["a.txt"]);
      expect(first.notes).toEqual(["The latest turn changed no files, so the turn before it was undone."]);
      expect(p.read("a.txt")).toBe("v2");
      expect((await p.store.undoLastTurn()).restored).toEqual(["a.txt"]);
      expect(p.read("a.txt")).toBe("v1");
      expect(await p.store.undoLastTurn()).toEqual({
        restored: [],
        removed: [],
        notes: ["Nothing to undo: no turn of this session is left to undo."],
      });
      await turn(p, () => undefined);
      expect(await p.store.undoLastTurn()).toEqual({
        restored: [],
        removed: [],
        notes: ["Nothing to undo: the last turns changed no files."],
      });
    },
  );

  test("without endTurn the state at the undo counts as the turn's end", async () => {
    const p = await project({ "a.txt": "v1" });
    await p.store.beginTurn();
    p.write("a.txt", "v2");
    expect((await p.store.undoLastTurn()).restored).toEqual(["a.txt"]);
    expect(p.read("a.txt")).toBe("v1");
  });

  test("a snapshot() with no beginTurn opens the undo point itself", async () => {
    const p = await project({ "a.txt": "v1" });
    await p.store.snapshot([join(p.root, "a.txt")]);
    p.write("a.txt", "v2");
    await p.store.endTurn();
    expect((await p.store.undoLastTurn()).restored).toEqual(["a.txt"]);
    expect(p.read("a.txt")).toBe("v1");
  });
});

describe("undo: what a turn's end reads again", () => {
  test(
    "a turn of tool writes only reads those files again; after a background process " + "starts, the whole tree",
    async () => {
      for (const lasting of [false, true]) {
        const p = await project({ "a.txt": "a\n", "c.txt": "c\n" });
        await turn(p, async () => {
          await p.store.beforeCommand(lasting);
          await p.sh("true");
        });
        // The tool writes a.txt while something else (the process, if one was started) writes c.txt.
        await turn(p, () => {
          p.write("a.txt", "tool\n");
          p.write("c.txt", "process\n");
        }, ["a.txt"]);
        const undone = await p.store.undoLastTurn();
        expect(undone.restored).toEqual(lasting ? ["a.txt", "c.txt"] : ["a.txt"]);
        expect(p.read("c.txt")).toBe(lasting ? "c\n" : "process\n");
      }
    },
  );
});

describe("undo: what it never touches", () => {
  test("gitignored files are neither stored nor touched", async () => {
    const p = await project({
      ".gitignore": "*.log\nbuild/\n",
      "app.log": "old log\n",
      "build/out.js": "old build\n",
      "src.txt": "old src\n",
    });
    await turn(p, () =>
      p.sh(
        "echo new log > app.log && echo new build > build/out.js && echo new src > " +
          "src.txt && echo created > build/extra.js",
      ),
    );
    const outcome = await p.store.undoLastTurn();
    expect(outcome).toEqual({ restored: ["src.txt"], removed: [], notes: [] });
    expect(p.read("src.txt")).toBe("old src\n");
    expect(p.read("app.log")).toBe("new log\n");
    expect(p.read("build/out.js")).toBe("new build\n");
    expect(p.read("build/extra.js")).toBe("created\n");
  });

  test("a tool write to an ignored file gets a notice that undo cannot restore it", async () => {
    const p = await project({ ".gitignore": "*.log\n" });
    await turn(p, () => p.write("debug.log", "x"), ["debug.log", "ok.txt"]);
    expect(p.store.takeNotices()).toEqual(["debug.log is ignored by .gitignore, so /undo will not restore it."]);
    await turn(p, () => p.write("debug.log", "y"), ["debug.log"]);
    expect(p.store.takeNotices()).toEqual([]);
  });

  test(
    "a tool write outside the project folder (an editor's extra folder) gets a " +
      "notice that undo cannot restore it, once",
    async () => {
      const p = await project({ "a.txt": "one\n" });
      const extra = join(p.home, "extra/lib.ts");
      await p.store.beginTurn();
      await p.store.snapshot([extra, join(p.root, "a.txt")]);
      await p.store.endTurn();
      expect(p.store.takeNotices()).toEqual([
        `${extra} is outside the project folder ${p.root}, so /undo will not restore it.`,
      ]);
      await p.store.snapshot([extra]);
      expect(p.store.takeNotices()).toEqual([]);
    },
  );

  test(".git is never stored and never touched, even when the turn commits", async () => {
    const p = await project({ "a.txt": "one\n" });
    const git = (args: string) => p.sh(`git -c user.name=t -c user.email=t@t -c init.defaultBranch=main ${args}`);
    expect(
      (await git("init -q && git add a.txt && git -c user.name=t -c user.email=t@t commit -qm first")).exitCode,
    ).toBe(0);
    const headBefore = readFileSync(join(p.root, ".git", "HEAD"), "utf8");
    await turn(p, () =>
      git("checkout -qb feature && echo two > a.txt && git -c user.name=t -c user.email=t@t commit -qam second"),
    );
    const refsAfterTurn = readdirSync(join(p.root, ".git", "refs", "heads")).sort();
    expect(refsAfterTurn).toEqual(["feature", "main"]);
    const outcome = await p.store.undoLastTurn();
    expect(outcome.restored).toEqual(["a.txt"]);
    expect(p.read("a.txt")).toBe("one\n");
    // git's own state is as the turn left it: the undo store only restores work-tree files
    expect(readFileSync(join(p.root, ".git", "HEAD"), "utf8")).not.toBe(headBefore);
    expect(readdirSync(join(p.root, ".git", "refs", "heads")).sort()).toEqual(refsAfterTurn);
    // and no snapshot holds a .git entry
    const names = await storedNames(p);
    expect(names).toContain("a.txt");
    expect(names).not.toContain(".git");
    expect(names).not.toContain("HEAD");
  });

  test(".garuda/sessions is never stored or touched; the rest of .garuda is", async () => {
    const p = await project({ ".garuda/sessions/s1.jsonl": "{}\n", ".garuda/settings.json": "{}\n" });
    await turn(p, () => p.sh("echo more >> .garuda/sessions/s1.jsonl && echo '{\"a\":1}' > .garuda/settings.json"));
    const outcome = await p.store.undoLastTurn();
    expect(outcome.restored).toEqual([".garuda/settings.json"]);
    expect(p.read(".garuda/sessions/s1.jsonl")).toBe("{}\nmore\n");
    const names = await storedNames(p);
    expect(names).toContain("settings.json");
    expect(names).not.toContain("sessions");
    expect(names).not.toContain("s1.jsonl");
  });

  test(
    "a .gitignore that re-includes .garuda/sessions does not bring it in; a project " + "at ~ keeps the store out",
    async () => {
      const p = await project({
        ".gitignore": "!.garuda/sessions/\n!*.jsonl\n",
        ".garuda/sessions/s1.jsonl": "{}\n",
        "a.txt": "x",
      });
      await turn(p, () => p.write("a.txt", "y"));
      expect(await storedNames(p)).not.toContain("sessions");

      const atHome = createUndoStore({ root: p.root, home: p.root, executor: p.executor });
      await atHome.beginTurn();
      await atHome.beforeCommand();
      p.write("a.txt", "z");
      await atHome.endTurn();
      expect(atHome.status).toEqual({ enabled: true });
      expect(await atHome.undoLastTurn()).toEqual({ restored: ["a.txt"], removed: [], notes: [] });
      expect(existsSync(join(snapshotDir(p.root, p.root), "HEAD"))).toBe(true); // the store exists inside the project…
      expect(p.read("a.txt")).toBe("y");
      const inner = await p.executor.run({
        command:
          `export GIT_DIR='${snapshotDir(p.root, p.root)}'; git cat-file ` +
          `--batch-all-objects --batch-check='%(objecttype) %(objectname)' | awk ` +
          `'$1=="tree"{print $2}' | while read t; do git ls-tree "$t"; done`,
        cwd: p.root,
        sandbox: null,
        maxOutputBytes: 1_000_000,
      });
      expect(inner.output).toContain("\ta.txt\n");
      expect(inner.output).not.toContain("\tsnapshots\n"); // …and none of its snapshots holds it
      await atHome.close();
    },
  );

  test("a file the user changed after the turn is left alone, with a note; the rest is undone", async () => {
    const p = await project({ "a.txt": "a1", "b.txt": "b1" });
    await turn(p, () => p.sh("echo a2 > a.txt && echo b2 > b.txt"));
    p.write("b.txt", "the user's own edit");
    const outcome = await p.store.undoLastTurn();
    expect(outcome).toEqual({
      restored: ["a.txt"],
      removed: [],
      notes: ["Left b.txt as it is: it changed again after the turn ended."],
    });
    expect(p.read("a.txt")).toBe("a1");
    expect(p.read("b.txt")).toBe("the user's own edit");
  });
});

describe("undo: store, diff and limits", () => {
  test("the store lives in ~/.garuda/snapshots/<sha256(root)[0:16]>, mode 0700", async () => {
    const p = await project({ "a.txt": "x" });
    await p.store.beginTurn();
    const dir = snapshotDir(p.home, p.root);
    const hash = new Bun.CryptoHasher("sha256").update(p.root).digest("hex").slice(0, 16);
    expect(dir).toBe(join(p.home, ".garuda", "snapshots", hash));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(existsSync(join(dir, "HEAD"))).toBe(true);
    expect(existsSync(join(p.root, ".git"))).toBe(false);
    // close removes the session's index file
    const indexes = () => readdirSync(dir).filter((name) => name.startsWith("index-"));
    expect(indexes()).toHaveLength(1);
    await p.store.close();
    expect(indexes()).toHaveLength(0);
  });

  test("snapshot() after beginTurn() is cheap: no new tree, one .gitignore check per new path", async () => {
    const p = await project({ "a.txt": "x" });
    const commands: string[] = [];
    const counting: Executor = {
      ...p.executor,
      run: (request: ExecRequest) => (commands.push(request.command), p.executor.run(request)),
    };
    const store = createUndoStore({ root: p.root, home: p.home, executor: counting });
    await store.beginTurn();
    const before = commands.length;
    await store.snapshot([join(p.root, "a.txt")]);
    const afterFirst = commands.length;
    await store.snapshot([join(p.root, "a.txt")]);
    expect(commands.length).toBe(afterFirst); // a path already checked costs nothing
    await store.snapshot([join(p.root, "a.txt"), join(p.root, "b.txt")]);
    const added = commands.slice(before);
    expect(added).toHaveLength(2); // one .gitignore check per new path set, no snapshot
    for (const command of added) {
      expect(command).toContain("check-ignore");
      expect(command).not.toContain("write-tree");
    }
    await store.close();
  });

  test("diff() shows what this session changed", async () => {
    const p = await project({ "a.txt": "one\n" });
    expect(await p.store.diff()).toBe("");
    await turn(p, () => p.sh("echo two > a.txt && echo new > n.txt"));
    const diff = await p.store.diff();
    expect(diff).toContain("diff --git a/a.txt b/a.txt\n");
    expect(diff).toContain("-one\n+two\n");
    expect(diff).toContain("new file mode 100644");
    expect(diff).toContain("+new\n");
  });

  test("diff() leaves out what only the user changed between turns, and what /undo took back", async () => {
    const p = await project({ "a.txt": "one\n", "mine.txt": "mine\n", "c.txt": "c\n" });
    await turn(p, () => p.sh("echo two > a.txt"));
    // The user edits a file of their own between turns: not the session's change.
    p.write("mine.txt", "edited by the user\n");
    await turn(p, () => p.sh("echo later > n.txt"));
    await turn(p, () => p.sh("echo gone > c.txt"));
    await p.store.undoLastTurn();
    const diff = await p.store.diff();
    expect(diff).toContain("diff --git a/a.txt b/a.txt\n");
    expect(diff).toContain("+later\n");
    expect(diff).not.toContain("mine.txt");
    expect(diff).not.toContain("c.txt");
  });

  test("a git repository has no file limit: undo stays on past the limit of a folder in no repository", async () => {
    const files = {
      ".git/HEAD": "ref: refs/heads/main\n",
      ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}.txt`, "x"])),
    };
    const p = await project(files, { maxFiles: 5 });
    await turn(p, () => p.sh("echo y > f7.txt"));
    expect(p.store.status).toEqual({ enabled: true });
    expect(p.store.takeNotices()).toEqual([]);
    expect((await p.store.undoLastTurn()).restored).toEqual(["f7.txt"]);
    expect(p.read("f7.txt")).toBe("x");
    // Negative control: the same files in no repository are over the limit.
    const { ".git/HEAD": _, ...plain } = files;
    const off = await project(plain, { maxFiles: 5 });
    await off.store.beginTurn();
    expect(off.store.status.enabled).toBe(false);
  });

  test(
    "a folder in no git repository with more files than the limit is not walked: " + "undo off at once, saying why",
    async () => {
      const files = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`d${i % 3}/f${i}.txt`, "x"]));
      const p = await project(files, { maxFiles: 5 });
      await p.store.beginTurn();
      expect(p.store.takeNotices()).toEqual([
        expect.stringContaining(
          "Undo is off for this session: this folder is in no git repository and holds more than 5 files",
        ),
      ]);
      // No snapshot was taken: the store was never even set up.
      expect(existsSync(snapshotDir(p.home, p.root))).toBe(false);
      // Negative control: under the limit, a folder without a repository has undo.
      const small = await project(files, { maxFiles: 8 });
      await small.store.beginTurn();
      expect(small.store.status).toEqual({ enabled: true });
    },
  );

  test("a project folder deleted under the session: undo says so, not that git is missing", async () => {
    const p = await project({ "a.txt": "x" });
    rmSync(p.root, { recursive: true, force: true });
    await p.store.beginTurn();
    const notices = p.store.takeNotices();
    expect(notices).toEqual([expect.stringContaining(`the project folder ${p.root} no longer exists`)]);
    expect(notices[0]).not.toContain("git is not installed");
  });

  test("a snapshot over its time limit: undo off, one notice", async () => {
    const p = await project({ "a.txt": "x" }, { snapshotTimeoutMs: 1 });
    await p.store.beginTurn();
    expect(p.store.takeNotices()).toEqual([
      expect.stringContaining("a snapshot of the project took more than 0.001 s"),
    ]);
    expect(p.store.status.enabled).toBe(false);
  });

  test("no git: undo off, and the notice says to install git", async () => {
    const p = await project({ "a.txt": "x" }, { env: { PATH: "/nonexistent-bin" } });
    await p.store.beginTurn();
    const notices = p.store.takeNotices();
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain("git is not installed");
    expect(notices[0]).toContain("Install git");
    expect(existsSync(snapshotDir(p.home, p.root))).toBe(false);
  });

  test(
    "after the executor shut down (the session closing), calls resolve and undo " + "goes off with a notice",
    async () => {
      const p = await project({ "a.txt": "x" });
      await p.executor.shutdown();
      await p.store.beginTurn();
      expect(p.store.status.enabled).toBe(false);
      expect(p.store.takeNotices()).toEqual([expect.stringContaining("the executor has been shut down")]);
      expect((await p.store.undoLastTurn()).notes[0]).toStartWith("Undo is off in this session:");
    },
  );

  test("the store survives its folder being removed between sessions", async () => {
    const p = await project({ "a.txt": "v1" });
    await turn(p, () => p.write("a.txt", "v2"));
    rmSync(snapshotDir(p.home, p.root), { recursive: true, force: true });
    const again = createUndoStore({ root: p.root, home: p.home, executor: p.executor });
    await again.beginTurn();
    await again.beforeCommand();
    p.write("a.txt", "v3");
    await again.endTurn();
    expect((await again.undoLastTurn()).restored).toEqual(["a.txt"]);
    expect(p.read("a.txt")).toBe("v2");
    await again.close();
  });
});

test("sessions of one project setting its store up at the same moment all keep undo on", async () => {
  // An editor opening several threads of a project at once: each session's `git init` of the one
  // store meets another's lock on its config.
  const p = await project({ "a.txt": "v1" });
  const stores = Array.from({ length: 16 }, () =>
    createUndoStore({ root: p.root, home: p.home, executor: p.executor }),
  );
  for (const store of stores) store.prepare();
  await Promise.all(stores.map((store) => store.beginTurn()));
  expect(stores.map((store) => store.status)).toEqual(stores.map(() => ({ enabled: true })));
  for (const store of stores) await store.close();
});

test("a config lock left by a git killed during set-up (its session closed) does not keep undo off", async () => {
  const p = await project({ "a.txt": "v1" });
  const store = snapshotDir(p.home, p.root);
  mkdirSync(store, { recursive: true, mode: 0o700 });
  writeFileSync(join(store, "config.lock"), "");
  const old = new Date(Date.now() - 60_000);
  utimesSync(join(store, "config.lock"), old, old);
  await p.store.beginTurn();
  expect(p.store.status).toEqual({ enabled: true });
  expect(existsSync(join(store, "config.lock"))).toBe(false);
});

describe("git that never answers", () => {
  test("a FIFO a command made as .gitignore: a tool's write and the next turn go on, " +
    "undo turns off with a notice", async () => {
    const p = await project({ "a.txt": "a\n" }, { snapshotTimeoutMs: 1_500 });
    await p.sh("git init -q");
    await p.store.beginTurn();
    await p.store.beforeCommand(true); // a background process: every turn's start lists the gitignored files
    await p.sh("mkfifo .gitignore");
    const bounded = <T>(work: Promise<T>) =>
      Promise.race([work.then(() => "done"), Bun.sleep(15_000).then(() => "hung")]);
    // Git blocks opening the FIFO: every call that reads .gitignore waits for a writer that never comes.
    expect(await bounded(p.store.snapshot([join(p.root, "b.txt")]))).toBe("done");
    expect(await bounded(p.store.endTurn())).toBe("done");
    expect(await bounded(p.store.beginTurn())).toBe("done");
    expect(await bounded(p.store.beforeCommand())).toBe("done");
    expect(p.store.status.enabled).toBe(false);
    expect(p.store.takeNotices().join("\n")).toContain("git did not answer");
  }, 60_000);

  test("a FIFO as .gitattributes after the turn: /undo and /diff answer, undo turns off with a notice", async () => {
    const p = await project({ "a.txt": "a\n" }, { snapshotTimeoutMs: 1_500 });
    await p.store.beginTurn();
    await p.store.beforeCommand();
    await p.sh("echo changed > a.txt");
    await p.store.endTurn();
    await p.sh("mkfifo .gitattributes");
    const bounded = <T>(work: Promise<T>) =>
      Promise.race([work.then((value) => value), Bun.sleep(15_000).then(() => "hung")]);
    expect(await bounded(p.store.undoLastTurn())).not.toBe("hung");
    expect(await bounded(p.store.diff())).not.toBe("hung");
    expect(p.store.status.enabled).toBe(false);
  }, 60_000);
});
