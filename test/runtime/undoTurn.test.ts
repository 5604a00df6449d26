// A turn's undo point (runtime/undoTurn.ts): the turn does not wait for its snapshot, and a
// command does (commandsAfterSnapshot), so what the command writes is in no snapshot taken
// before it and /undo puts it back; with the real undo store, git and executor.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beginUndoTurn, commandsAfterSnapshot } from "../../src/runtime/undoTurn.ts";
import type { UndoStore } from "../../src/runtime/services.ts";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ExecRequest, Executor } from "../../src/sandbox/types.ts";
import { createUndoStore } from "../../src/store/undo.ts";
import { SELF_COMMAND } from "../support/sandboxSupport.ts";
import { tempDir } from "../support/tempDir.ts";

const NO_SANDBOX = { availability: { available: false as const, reason: "not needed", fix: "none" } };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function project() {
  const dir = tempDir("garuda-undo-turn-");
  const base = realpathSync(dir.path);
  const root = join(base, "project");
  const home = join(base, "home");
  mkdirSync(root);
  mkdirSync(home);
  writeFileSync(join(root, "a.txt"), "before\n");
  const executor = await createExecutor({ root, home, selfCommand: SELF_COMMAND, probe: NO_SANDBOX });
  const store = createUndoStore({ root, home, executor });
  cleanups.push(async () => {
    await store.close();
    await executor.shutdown();
    dir[Symbol.dispose]();
  });
  /** The executor, noting for each command whether the turn's snapshot was taken when it started. */
  const snapshotTaken = { now: false };
  const started: boolean[] = [];
  const spy: Executor = {
    get sandbox() {
      return executor.sandbox;
    },
    run: (request: ExecRequest) => {
      started.push(snapshotTaken.now);
      return executor.run(request);
    },
    start: (request) => executor.start(request),
    shutdown: () => executor.shutdown(),
  };
  return { root, store, spy, started, snapshotTaken, read: () => readFileSync(join(root, "a.txt"), "utf8") };
}

describe("a turn's commands wait for its snapshot", () => {
  test("a command run as the turn begins starts after the snapshot, and /undo puts back what it wrote", async () => {
    const p = await project();
    // The store's first snapshot sets it up too (several git calls): the turn goes on meanwhile.
    const opened = p.store.beginTurn().then(() => {
      p.snapshotTaken.now = true;
    });
    const tools = commandsAfterSnapshot(p.spy, p.store);
    await tools.run({ command: "echo by the turn > a.txt", cwd: p.root, sandbox: null });
    await opened;
    await p.store.endTurn();
    expect(p.started).toEqual([true]);
    expect(await p.store.undoLastTurn()).toEqual({ restored: ["a.txt"], removed: [], notes: [] });
    expect(p.read()).toBe("before\n");
  });

  test(
    "negative control: the session's executor itself does not wait, and the write " + "slips into the snapshot",
    async () => {
      const p = await project();
      const opened = p.store.beginTurn().then(() => {
        p.snapshotTaken.now = true;
      });
      await p.spy.run({ command: "echo by the turn > a.txt", cwd: p.root, sandbox: null });
      await opened;
      await p.store.endTurn();
      expect(p.started).toEqual([false]);
      expect((await p.store.undoLastTurn()).restored).toEqual([]);
      expect(p.read()).toBe("by the turn\n");
    },
  );

  test(
    "a command stopped while it waits for the snapshot goes on to the executor, " + "which answers it as cancelled",
    async () => {
      const store: UndoStore = {
        beginTurn: async () => {},
        beforeCommand: () => new Promise<void>(() => {}), // a snapshot that never ends
        snapshot: async () => {},
        undoLastTurn: async () => ({ restored: [], removed: [], notes: [] }),
      };
      const seen: boolean[] = [];
      const executor: Executor = {
        sandbox: { available: false, reason: "none here", fix: "none" },
        run: async (request) => {
          seen.push(request.signal?.aborted ?? false);
          return {
            exitCode: null,
            signal: null,
            output: "",
            truncated: false,
            timedOut: false,
            killed: true,
            durationMs: 0,
          };
        },
        start: () => Promise.reject(new Error("not used")),
        shutdown: async () => {},
      };
      const stop = new AbortController();
      const running = commandsAfterSnapshot(executor, store).run({
        command: "true",
        cwd: "/",
        sandbox: null,
        signal: stop.signal,
      });
      stop.abort();
      await running;
      expect(seen).toEqual([true]);
    },
  );

  test("beginUndoTurn does not wait for the snapshot; the store's notices are said once it is taken", async () => {
    let finish = () => {};
    const store: UndoStore = {
      beginTurn: () =>
        new Promise<void>((resolve) => {
          finish = resolve;
        }),
      snapshot: async () => {},
      undoLastTurn: async () => ({ restored: [], removed: [], notes: [] }),
      takeNotices: () => ["Undo is off for this session: a reason"],
    };
    const warned: string[] = [];
    beginUndoTurn(store, new AbortController().signal, (text) => warned.push(text));
    expect(warned).toEqual([]);
    finish();
    await Bun.sleep(0);
    expect(warned).toEqual(["Undo is off for this session: a reason"]);
  });
});
