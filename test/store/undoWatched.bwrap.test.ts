// The undo store on a session's real executor, sandbox and git guard: once the guard watches the
// project, a turn's snapshots read only what changed (git's ls-files of those paths, no `add -A`),
// and what sandboxed commands and the user changed is still undone exactly.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ExecRequest, ProcessExecutor } from "../../src/sandbox/types.ts";
import { createUndoStore, type UndoStore } from "../../src/store/undo.ts";
import { describeSandbox, testExecutorOptions } from "../support/sandboxSupport.ts";
import { tempDir } from "../support/tempDir.ts";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

interface Session {
  root: string;
  executor: ProcessExecutor;
  store: UndoStore;
  /** The store's git scripts so far: how each snapshot read the tree. */
  scripts: string[];
}

async function session(): Promise<Session> {
  const dir = tempDir("garuda-undo-watched-");
  const base = realpathSync(dir.path);
  const root = join(base, "project");
  const home = join(base, "home");
  mkdirSync(join(root, "src"), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(root, "src/a.c"), "int a;\n");
  writeFileSync(join(root, "notes.md"), "mine\n");
  const executor = await createExecutor(testExecutorOptions(root, home));
  const scripts: string[] = [];
  // The store's executor: the session's, its change log included, its git calls noted.
  const noted = Object.assign(Object.create(executor) as ProcessExecutor, {
    run: (request: ExecRequest) => {
      scripts.push(request.command);
      return executor.run(request);
    },
  });
  const store = createUndoStore({ root, home, executor: noted });
  cleanups.push(async () => {
    await store.close();
    await executor.shutdown();
    dir[Symbol.dispose]();
  });
  return { root, executor, store, scripts };
}

/** Waits for the guard's first walk (it starts shortly after the executor, so session/new answers first). */
async function watching(s: Session): Promise<void> {
  for (const until = Date.now() + 10_000; Date.now() < until; await Bun.sleep(50)) {
    const first = await s.executor.changesSince?.(s.root, undefined);
    const again = first && (await s.executor.changesSince?.(s.root, first.token));
    if (again && again.paths !== "all") return;
  }
  throw new Error("the git guard did not come to watch the project");
}

const sh = (s: Session, command: string) => s.executor.run({ command, cwd: s.root, sandbox: s.executor.spec() });
/** Snapshots of the whole tree (`add -A` of it), and of named paths (undoTreeEdit.ts: `add -A` of those only). */
const wholeTree = (script: string) => script.includes("g add -A") && !script.includes("--pathspec-from-file");
const whole = (scripts: string[]) => scripts.filter(wholeTree).length;
const byPath = (scripts: string[]) =>
  scripts.filter((script) => script.includes("g add -A --pathspec-from-file")).length;

describeSandbox(
  "undo with the git guard's change log",
  () => {
    test("a turn's snapshots read only what changed, and undo still restores what commands did", async () => {
      const s = await session();
      await watching(s);
      await s.store.beginTurn();
      await s.store.beforeCommand();
      expect((await sh(s, "echo changed > src/a.c && mkdir -p gen/x && echo new > gen/x/b.c")).exitCode).toBe(0);
      await s.store.endTurn();
      const afterFirst = s.scripts.length;
      // The user edits between turns (no command): the next turn's snapshot holds it.
      writeFileSync(join(s.root, "notes.md"), "mine, edited\n");
      await s.store.beginTurn();
      await s.store.beforeCommand();
      expect((await sh(s, "rm -r gen && echo again >> src/a.c && chmod +x notes.md")).exitCode).toBe(0);
      await s.store.endTurn();
      const second = s.scripts.slice(afterFirst);
      expect(whole(second)).toBe(0);
      expect(byPath(second)).toBe(2);
      expect(await s.store.undoLastTurn()).toEqual({
        restored: ["gen/x/b.c", "notes.md", "src/a.c"],
        removed: [],
        notes: [],
      });
      expect(readFileSync(join(s.root, "src/a.c"), "utf8")).toBe("changed\n");
      expect(readFileSync(join(s.root, "notes.md"), "utf8")).toBe("mine, edited\n");
      expect(readFileSync(join(s.root, "gen/x/b.c"), "utf8")).toBe("new\n");
    });
  },
  "bwrap",
);
