// The undo store on a project whose file system does not report every change to inotify: a FUSE
// mount (bindfs here, as sshfs, a VM's shared folder or a network file system are) sees no event
// for what changes beneath it (the other machine, the host). The user's edits made there must
// never be undone. Needs bindfs (Debian's package) and /dev/fuse; skipped without them.
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import { createUndoStore } from "../../src/store/undo.ts";
import { describeSandbox, testExecutorOptions } from "../support/sandboxSupport.ts";
import { tempDir } from "../support/tempDir.ts";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const bindfs = Bun.which("bindfs");
const fuse = bindfs !== null && existsSync("/dev/fuse");

describeSandbox(
  "undo on a FUSE mount",
  () => {
    test.skipIf(!fuse)("an edit made beneath the mount after a turn is not undone", async () => {
      const dir = tempDir("garuda-undo-fuse-");
      cleanups.push(async () => dir[Symbol.dispose]());
      const base = realpathSync(dir.path);
      const below = join(base, "below");
      const root = join(base, "project");
      const home = join(base, "home");
      mkdirSync(join(below, "src"), { recursive: true });
      mkdirSync(root);
      mkdirSync(home);
      writeFileSync(join(below, "src/a.c"), "int a;\n");
      writeFileSync(join(below, "notes.md"), "mine\n");
      expect(Bun.spawnSync([bindfs as string, "--no-allow-other", below, root]).exitCode).toBe(0);
      cleanups.push(async () => void Bun.spawnSync(["fusermount", "-u", root]));
      const executor = await createExecutor(testExecutorOptions(root, home));
      const store = createUndoStore({ root, home, executor });
      cleanups.push(async () => {
        await store.close();
        await executor.shutdown();
      });
      await store.beginTurn();
      await store.beforeCommand();
      const result = await executor.run({ command: "echo turn > notes.md", cwd: root, sandbox: executor.spec() });
      expect({ exit: result.exitCode, out: result.output }).toEqual({ exit: 0, out: "" });
      await store.endTurn();
      // The user's edit, beneath the mount (as on the other machine): no event on the mount.
      writeFileSync(join(below, "notes.md"), "the user's edit\n");
      const outcome = await store.undoLastTurn();
      expect(readFileSync(join(root, "notes.md"), "utf8")).toBe("the user's edit\n");
      expect(outcome.restored).toEqual([]);
    });
  },
  "bwrap",
);
