// The session's rewind points (runtime/rewind.ts) on a real undo store and a real session file,
// turn by turn as the Runtime drives them: the files of only the newest points are kept (older
// refs deleted, a notice once); a file changed outside Garuda is overwritten after a yes and left
// after a no or with nobody to ask; a session read from a copied file (a fork) pins the points
// it inherited under its own name, and the refs of a deleted session go.
import { afterEach, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Approver } from "../../src/permission/types.ts";
import { Conversation } from "../../src/runtime/conversation.ts";
import { SessionRewinds } from "../../src/runtime/rewind.ts";
import { createExecutor } from "../../src/sandbox/executor.ts";
import { newSessionId, readSession, createSessionStore } from "../../src/store/sessionFile.ts";
import { createUndoStore, snapshotDir } from "../../src/store/undo.ts";
import { SELF_COMMAND } from "../support/sandboxSupport.ts";
import { tempDir } from "../support/tempDir.ts";

const NO_SANDBOX = { availability: { available: false as const, reason: "not needed", fix: "none" } };
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  const dir = tempDir("garuda-rewind-");
  const base = realpathSync(dir.path);
  const root = join(base, "project");
  const home = join(base, "home");
  mkdirSync(root);
  mkdirSync(home);
  const executor = await createExecutor({ root, home, selfCommand: SELF_COMMAND, probe: NO_SANDBOX });
  const undo = createUndoStore({ root, home, executor });
  const sessions = createSessionStore({ sessionsDir: join(home, ".garuda", "sessions") });
  cleanups.push(async () => {
    await undo.close();
    await executor.shutdown();
    dir[Symbol.dispose]();
  });
  const refs = () =>
    Bun.spawnSync(["git", "--git-dir", snapshotDir(home, root), "for-each-ref", "--format=%(refname)"])
      .stdout.toString()
      .trim()
      .split("\n")
      .filter((line) => line !== "");
  /** A session as the Runtime holds it: the conversation with its file, and its points. */
  const session = (options: { approver?: Approver; maxFilePoints?: number; from?: string } = {}) => {
    const records = options.from === undefined ? undefined : readSession(options.from).records;
    const conversation = new Conversation(options.from === undefined ? [] : readSession(options.from).messages);
    const start = { root, version: "0", model: "m", mode: "build" as const };
    conversation.attach(options.from === undefined ? sessions.create(start) : sessions.resume(options.from, start));
    const notices: string[] = [];
    const rewinds = SessionRewinds.fromRecords(
      {
        conversation,
        undo,
        approver: options.approver,
        notes: [],
        signal: new AbortController().signal,
        ...(options.maxFilePoints !== undefined && { maxFilePoints: options.maxFilePoints }),
      },
      records,
    );
    /** One turn: the snapshot, the prompt and its point, what the turn writes, the end. */
    const turn = async (prompt: string, writes: Record<string, string>) => {
      await undo.beginTurn();
      const messageId = `m-${prompt}`;
      conversation.record({ type: "user", prompt, content: [{ type: "text", text: prompt }], messageId });
      rewinds.pointTaken(messageId, prompt, (text) => notices.push(text));
      await undo.snapshot(Object.keys(writes).map((path) => join(root, path)));
      for (const [path, text] of Object.entries(writes)) writeFileSync(join(root, path), text);
      conversation.record({
        type: "assistant",
        step: 1,
        stopReason: "end_turn",
        content: [{ type: "text", text: `did ${prompt}` }],
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
      });
      await undo.endTurn();
      await rewinds.filesSettled("turn");
    };
    return { conversation, rewinds, notices, turn, file: conversation.journal?.file as string };
  };
  const read = (path: string) => readFileSync(join(root, path), "utf8");
  return { root, home, refs, session, read };
}

const answering = (choice: "once" | "deny", asked: string[]): Approver => ({
  ask: async (request) => {
    asked.push(request.preview);
    return choice;
  },
});

test("only the newest points keep their files: older refs are deleted, with a notice once", async () => {
  const { refs, session } = await setup();
  const s = session({ maxFilePoints: 2 });
  await s.turn("one", { "a.txt": "1" });
  await s.turn("two", { "a.txt": "2" });
  await s.turn("three", { "a.txt": "3" });
  await s.turn("four", { "a.txt": "4" });
  const points = await s.rewinds.list();
  expect(points.map((p) => [p.text, p.filesChanged !== undefined])).toEqual([
    ["one", false],
    ["two", false],
    ["three", true],
    ["four", true],
  ]);
  expect(points[0]?.filesNote).toContain("not kept");
  expect(
    refs()
      .filter((ref) => ref.includes("/points/"))
      .map((ref) => ref.split("/").at(-1)),
  ).toEqual(["m-four", "m-three"]);
  expect(s.notices).toHaveLength(1);
  const old = await s.rewinds.rewind({ messageId: "m-one", mode: "files", dryRun: false });
  expect(old.files?.canRewind).toBe(false);
});

test("a file changed outside Garuda: a yes overwrites it, a no or nobody to ask leaves it", async () => {
  for (const [approver, expected] of [
    ["once", "1"],
    ["deny", "yours"],
    [undefined, "yours"],
  ] as const) {
    const { root, session, read } = await setup();
    const asked: string[] = [];
    const s = session(approver === undefined ? {} : { approver: answering(approver, asked) });
    await s.turn("one", { "a.txt": "1", "b.txt": "b" });
    await s.turn("two", { "a.txt": "2", "b.txt": "bb" });
    writeFileSync(join(root, "a.txt"), "yours");
    const result = await s.rewinds.rewind({ messageId: "m-two", mode: "files", dryRun: false });
    expect(read("b.txt")).toBe("b");
    expect(read("a.txt")).toBe(expected);
    expect(result.files?.changedOutside).toEqual(["a.txt"]);
    expect(asked).toEqual(approver === undefined ? [] : ["a.txt"]);
    if (expected === "yours") expect(result.files?.notes.join("\n")).toContain("a.txt");
  }
});

test("a copied session (a fork) pins the points it inherited; a deleted session's refs go", async () => {
  const { refs, session, read } = await setup();
  const first = session();
  await first.turn("one", { "a.txt": "1" });
  await first.turn("two", { "a.txt": "2" });
  const copy = join(dirname(first.file), `${newSessionId()}.jsonl`);
  first.conversation.journal?.close();
  copyFileSync(first.file, copy);
  const fork = session({ from: copy });
  await fork.turn("three", { "a.txt": "3" });
  const forkId = copy.split("/").at(-1)?.replace(".jsonl", "") as string;
  const own = refs().filter((ref) => ref.includes(`/${forkId}/points/`));
  expect(own.map((ref) => ref.split("/").at(-1)).sort()).toEqual(["m-one", "m-three", "m-two"]);
  // The first session is deleted: its refs go at the next session's first point.
  rmSync(first.file);
  const firstId = first.file.split("/").at(-1)?.replace(".jsonl", "") as string;
  expect(refs().some((ref) => ref.includes(`/${firstId}/`))).toBe(true);
  const again = session({ from: copy });
  await again.turn("four", { "a.txt": "4" });
  expect(refs().some((ref) => ref.includes(`/${firstId}/`))).toBe(false);
  // The inherited point still has its files.
  await again.rewinds.rewind({ messageId: "m-two", mode: "files", dryRun: false });
  expect(read("a.txt")).toBe("1");
});
