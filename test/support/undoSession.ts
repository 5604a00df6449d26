// A session's undo store on its real executor, sandbox and git guard, for the tests of snapshots by
// changed path (test/store/undoWatched*.bwrap.test.ts): a project with src/a.c and notes.md, the
// store's git scripts noted, and a wait until the guard watches the project.
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ExecRequest, ExecResult, ProcessExecutor } from "../../src/sandbox/types.ts";
import { createUndoStore, type UndoStore } from "../../src/store/undo.ts";
import { testExecutorOptions } from "./sandboxSupport.ts";
import { tempDir } from "./tempDir.ts";

export interface UndoSession {
  root: string;
  executor: ProcessExecutor;
  store: UndoStore;
  /** The store's git scripts so far: how each snapshot read the tree. */
  scripts: string[];
  /** Ends the store and the executor and removes the folders. */
  close(): Promise<void>;
}

/** A session whose guard watches the project; `setUp` runs on the project before the executor is made. */
export async function undoSession(prefix: string, setUp?: (root: string) => void): Promise<UndoSession> {
  const dir = tempDir(prefix);
  const base = realpathSync(dir.path);
  const root = join(base, "project");
  const home = join(base, "home");
  mkdirSync(join(root, "src"), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(root, "src/a.c"), "int a;\n");
  writeFileSync(join(root, "notes.md"), "mine\n");
  setUp?.(root);
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
  const session = {
    root,
    executor,
    store,
    scripts,
    async close() {
      await store.close();
      await executor.shutdown();
      dir[Symbol.dispose]();
    },
  };
  try {
    await watching(executor, root);
  } catch (error) {
    await session.close();
    throw error;
  }
  return session;
}

/** Waits for the guard's first walk (it starts shortly after the executor, so session/new answers first). */
async function watching(executor: ProcessExecutor, root: string): Promise<void> {
  for (const until = Date.now() + 10_000; Date.now() < until; await Bun.sleep(50)) {
    const first = await executor.changesSince?.(root, undefined);
    const again = first && (await executor.changesSince?.(root, first.token));
    if (again && again.paths !== "all") return;
  }
  throw new Error("the git guard did not come to watch the project");
}

/** A command in the session's sandbox. */
export const sandboxed = (s: UndoSession, command: string): Promise<ExecResult> =>
  s.executor.run({ command, cwd: s.root, sandbox: s.executor.spec() });

/** Snapshots of the whole tree (`add -A` of it), and of named paths (undoTreeEdit.ts: `add -A` of those only). */
export const wholeTree = (script: string) => script.includes("g add -A") && !script.includes("--pathspec-from-file");
export const byPath = (script: string) => script.includes("g add -A --pathspec-from-file");
