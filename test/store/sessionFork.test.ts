// A fork's session file (store/sessionFork.ts): the parent's conversation under a start record
// of its own that names the parent, a marked title, written whole (no temporary file left) and
// locked; the parent's file is not touched.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { createSessionStore, readSession } from "../../src/store/sessionFile.ts";
import { forkSession, UnknownMessageError } from "../../src/store/sessionFork.ts";
import { readHistory } from "../../src/store/sessionHistory.ts";
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

  test(
    "up to a message: its record is the last kept, an answer's calls keep their " +
      "results; the ids stay the parent's",
    () => {
      using dir = tempDir("garuda-fork-");
      // An older file: no ids recorded, so each message's id is its position (messageIds.ts).
      const journal = createSessionStore({ sessionsDir: dir.path }).create({
        root: dir.path,
        version: "0",
        model: "m",
        mode: "build",
      });
      journal.append({ type: "user", prompt: "read a", content: [{ type: "text", text: "read a" }] });
      journal.append({
        type: "assistant",
        step: 1,
        stopReason: "tool_use",
        content: [
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a" } },
        ],
        usage,
      });
      journal.append({
        type: "tool_results",
        results: [{ callId: "toolu_1", tool: "read_file", content: "A", isError: false, status: "completed" }],
      });
      journal.append({
        type: "user",
        prompt: "later",
        content: [{ type: "text", text: "later" }],
        messageId: "m-later",
      });
      journal.close();
      const file = journal.file as string;
      const data = readSession(file);
      const idsShown = (records: Parameters<typeof readHistory>[0]) =>
        readHistory(records).flatMap((item) => ("messageId" in item && item.messageId ? [item.messageId] : []));

      // "r2.0": the first run of the answer at record 2 (the start record is 0).
      const claimed = forkSession({ parentFile: file, parentId: journal.id, data, upTo: "r2.0" });
      try {
        expect(claimed.data.records.map((record) => record.type)).toEqual([
          "start",
          "user",
          "assistant",
          "tool_results",
        ]);
        expect(claimed.data.records[1]).toMatchObject({ type: "user", messageId: "r1" });
        expect(claimed.data.records[2]).toMatchObject({ type: "assistant", messageIds: ["r2.0"] });
        expect(claimed.data.records[0]).toMatchObject({ forkedFrom: { sessionId: journal.id, messageId: "r2.0" } });
        // A replay of the fork shows the parent's ids for what it kept.
        expect(idsShown(claimed.data.records)).toEqual(["r1", "r2.0"]);
        expect(idsShown(data.records).slice(0, 2)).toEqual(["r1", "r2.0"]);
      } finally {
        claimed.lock.release();
      }
      expect(() => forkSession({ parentFile: file, parentId: journal.id, data, upTo: "nope" })).toThrow(
        UnknownMessageError,
      );
      const atPrompt = forkSession({ parentFile: file, parentId: journal.id, data, upTo: "m-later" });
      atPrompt.lock.release();
      expect(atPrompt.data.records.at(-1)).toMatchObject({ type: "user", messageId: "m-later" });
    },
  );

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
