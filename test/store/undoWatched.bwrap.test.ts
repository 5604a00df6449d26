// The undo store on a session's real executor, sandbox and git guard: once the guard watches the
// project, a turn's snapshots read only what changed (`add -A` of those paths, not of the tree),
// and what sandboxed commands and the user changed is still undone exactly.
import { afterEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeSandbox } from "../support/sandboxSupport.ts";
import { byPath, sandboxed, type UndoSession, undoSession, wholeTree } from "../support/undoSession.ts";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function session(): Promise<UndoSession> {
  const s = await undoSession("garuda-undo-watched-");
  cleanups.push(() => s.close());
  return s;
}

const sh = sandboxed;
const whole = (scripts: string[]) => scripts.filter(wholeTree).length;
const paths = (scripts: string[]) => scripts.filter(byPath).length;

describeSandbox(
  "undo with the git guard's change log",
  () => {
    test("a turn's snapshots read only what changed, and undo still restores what commands did", async () => {
      const s = await session();
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
      expect(paths(second)).toBe(2);
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
