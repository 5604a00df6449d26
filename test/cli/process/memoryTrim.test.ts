// The memory trim (src/cli/process/memoryTrim.ts, issue 19.4): a long-running `garuda acp` gives its
// memory back soon after a session closes and after a quiet spell that follows a turn, never
// while a turn runs, and not again and again while nothing happens. The negative checks use
// waits well short of the quiet spell, so a loaded machine does not make them pass by chance.
import { expect, test } from "bun:test";
import { MemoryTrim } from "../../../src/cli/process/memoryTrim.ts";
import { FakeModelClient, fake } from "../../../src/model/fake.ts";
import { startHarness } from "../../support/acpHarness.ts";
import { eventually } from "../../support/sandboxSupport.ts";

function counted(options: { idleMs: number; closedMs: number }) {
  let trims = 0;
  const trim = new MemoryTrim({
    idleMs: options.idleMs,
    closedMs: options.closedMs,
    trim: () => trims++,
  });
  return { trim, trims: () => trims };
}

test("a close trims soon; a turn's end trims after the quiet spell; a turn begun cancels it", async () => {
  const { trim, trims } = counted({ idleMs: 400, closedMs: 0 });
  trim.sessionClosed();
  await eventually(() => trims() === 1);

  trim.turnStarted();
  trim.turnEnded();
  await Bun.sleep(20);
  trim.turnStarted(); // the next turn came before the quiet spell was over
  await Bun.sleep(600);
  expect(trims()).toBe(1);
  trim.turnEnded();
  await eventually(() => trims() === 2);
});

test("nothing ran since the last trim: no trim again", async () => {
  const { trim, trims } = counted({ idleMs: 10, closedMs: 0 });
  trim.turnStarted();
  trim.turnEnded();
  await eventually(() => trims() === 1);
  trim.turnEnded(); // (a stray end) nothing ran since
  await Bun.sleep(100);
  expect(trims()).toBe(1);
});

test("never while a turn runs in another session; the last turn's end trims later", async () => {
  const { trim, trims } = counted({ idleMs: 20, closedMs: 0 });
  trim.turnStarted();
  trim.turnStarted();
  trim.sessionClosed();
  await Bun.sleep(100);
  expect(trims()).toBe(0);
  trim.turnEnded(); // one of the two turns ended; the other still runs
  await Bun.sleep(100);
  expect(trims()).toBe(0);
  trim.turnEnded();
  await eventually(() => trims() === 1);
});

test("the front end's step runs after each trim, and only then", async () => {
  const steps: string[] = [];
  const trim = new MemoryTrim({
    idleMs: 10,
    closedMs: 0,
    trim: () => steps.push("trim"),
    afterTrim: () => steps.push("after"),
  });
  trim.turnEnded(); // nothing ran: no trim, so no step either
  await Bun.sleep(60);
  expect(steps).toEqual([]);
  trim.sessionClosed();
  await eventually(() => steps.length === 2);
  expect(steps).toEqual(["trim", "after"]);
});

test("stopped (shutdown): a pending trim does not run", async () => {
  const { trim, trims } = counted({ idleMs: 10, closedMs: 10 });
  trim.sessionClosed();
  trim.stop();
  await Bun.sleep(100);
  expect(trims()).toBe(0);
});

test("the ACP server trims after a turn and after session/close, and not during a turn", async () => {
  let trims = 0;
  const model = new FakeModelClient([fake.text("One."), [fake.wait(1_500), ...fake.text("Two.")]]);
  await using h = startHarness({
    models: [model],
    server: { activity: new MemoryTrim({ idleMs: 300, closedMs: 0, trim: () => trims++ }) },
  });
  await h.initialize();
  const { sessionId } = await h.newSession();
  await h.prompt(sessionId, "First.");
  await eventually(() => trims === 1);

  // A turn that runs longer than the quiet spell: no trim until it has ended and the spell passed.
  const second = h.prompt(sessionId, "Second.");
  await Bun.sleep(900);
  expect(trims).toBe(1);
  await second;
  await eventually(() => trims === 2);

  await h.agent.request("session/close", { sessionId });
  await eventually(() => trims === 3);
});

test("the last running turn's end collects its garbage soon, once; not while another turn runs", async () => {
  let collects = 0;
  const trim = new MemoryTrim({ idleMs: 10_000, settleMs: 20, trim: () => {}, collect: () => collects++ });
  trim.turnStarted();
  trim.turnStarted();
  trim.turnEnded(); // the other session's turn still runs
  await Bun.sleep(150);
  expect(collects).toBe(0);
  trim.turnEnded();
  await eventually(() => collects === 1);
  await Bun.sleep(150);
  expect(collects).toBe(1);

  // A turn begun within the settle time: no collection until it has ended too.
  trim.turnStarted();
  trim.turnEnded();
  trim.turnStarted();
  await Bun.sleep(150);
  expect(collects).toBe(1);
  trim.turnEnded();
  await eventually(() => collects === 2);
  trim.stop();
});

test("stopped (shutdown): a pending collection does not run", async () => {
  let collects = 0;
  const trim = new MemoryTrim({ idleMs: 10_000, settleMs: 20, trim: () => {}, collect: () => collects++ });
  trim.turnStarted();
  trim.turnEnded();
  trim.stop();
  await Bun.sleep(150);
  expect(collects).toBe(0);
});

test("the default collection after a turn frees the turn's garbage without waiting for the trim", async () => {
  const trim = new MemoryTrim({ idleMs: 60_000, settleMs: 10 });
  trim.turnStarted();
  // Made in a function of its own, so no frame of this one still points at the turn's garbage.
  const turnGarbage = () => {
    const garbage = Array.from({ length: 1_000 }, (_, i) => ({ i }));
    return garbage.map((item) => new WeakRef(item));
  };
  const refs = turnGarbage();
  Bun.gc(false); // an eden collection, as during a turn: the garbage may be promoted and stay
  trim.turnEnded();
  await Bun.sleep(100);
  // A conservative scan may keep a few alive; the full collection frees nearly all.
  expect(refs.filter((ref) => ref.deref() !== undefined).length).toBeLessThan(100);
  trim.stop();
});

test("the default trim (a full collection and Bun.shrink) runs in this Bun and frees the heap's garbage", async () => {
  const { heapStats } = await import("bun:jsc");
  let garbage: unknown[] | undefined = Array.from({ length: 200_000 }, (_, i) => ({ i }));
  Bun.gc(true);
  const withGarbage = heapStats().objectCount;
  expect(garbage).toHaveLength(200_000);
  garbage = undefined;
  const trim = new MemoryTrim({ idleMs: 10_000, closedMs: 0 });
  trim.sessionClosed();
  await Bun.sleep(50);
  expect(heapStats().objectCount).toBeLessThan(withGarbage - 100_000);
});
