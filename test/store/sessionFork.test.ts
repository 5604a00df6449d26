// A fork's session file (store/sessionFork.ts): the parent's conversation under a start record
// of its own that names the parent, a marked title, written whole (no temporary file left) and
// locked; the parent's file is not touched.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { createSessionStore, readSession } from "../../src/store/sessionFile.ts";
import { forkSession } from "../../src/store/sessionFork.ts";
import { lockSession, SessionBusyError } from "../../src/store/sessionLock.ts";
import { tempDir } from "../support/tempDir.ts";

const usage = { inputTokens: 5, outputTokens: 5, cacheReadTokens: 0, cacheCreationTokens: 0 };

function parent(sessionsDir: string, root: string) {
  const journal = createSessionStore({ sessionsDir }).create({ root, version: "0", model: "m", mode: "plan" });
  journal.append({
    type: "user",
    prompt: "the colour is teal",
    content: [{ type: "text", text: "the colour is teal" }],
  });
  journal.append({ type: "title", title: "the colour is teal" });
  journal.append({
    type: "assistant",
    step: 1,
    stopReason: "end_turn",
    content: [{ type: "text", text: "Noted." }],
    usage,
  });
  journal.append({ type: "compaction", stage: 1, beforeTokens: 10, afterTokens: 8, pruned: [] });
  journal.close();
  return journal;
}

describe("a fork's session file", () => {
  test("holds the parent's conversation under its own start record, names the parent, and is locked", () => {
    using dir = tempDir("garuda-fork-");
    const journal = parent(dir.path, dir.path);
    const file = journal.file as string;
    const before = readFileSync(file, "utf8");
    const claimed = forkSession({ parentFile: file, parentId: journal.id, data: readSession(file) });
    try {
      expect(claimed.id).not.toBe(journal.id);
      expect(dirname(claimed.file)).toBe(dirname(file));
      const [start, title, ...rest] = claimed.data.records;
      expect(start).toMatchObject({
        type: "start",
        sessionId: claimed.id,
        root: dir.path,
        mode: "plan",
        forkedFrom: { sessionId: journal.id },
      });
      expect(title).toMatchObject({ type: "title", title: "Fork: the colour is teal" });
      expect(rest.map((record) => record.type)).toEqual(["user", "assistant", "compaction"]);
      expect(claimed.data.messages).toEqual(readSession(file).messages);
      expect(claimed.data.skipped).toEqual([]);
      // Locked for its new writer; no temporary file left; the parent as it was.
      expect(() => lockSession(claimed.file)).toThrow(SessionBusyError);
      expect(readdirSync(dirname(file)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
      expect(readFileSync(file, "utf8")).toBe(before);
      expect(statSync(claimed.file).mode & 0o777).toBe(0o600);
    } finally {
      claimed.lock.release();
    }
  });

  test("a parent without a start record is not forked, and nothing is left behind", () => {
    using dir = tempDir("garuda-fork-");
    const journal = parent(dir.path, dir.path);
    const file = journal.file as string;
    const data = readSession(file);
    const broken = { ...data, records: data.records.filter((record) => record.type !== "start") };
    expect(() => forkSession({ parentFile: file, parentId: journal.id, data: broken })).toThrow("no start record");
    expect(readdirSync(dirname(file)).filter((name) => name.endsWith(".jsonl"))).toEqual([`${journal.id}.jsonl`]);
  });
});
