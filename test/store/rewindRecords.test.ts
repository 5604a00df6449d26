// What a conversation rewind record does to a session's records (store/rewindRecords.ts): the
// conversation from the named prompt on no longer counts — for the messages a resume rebuilds,
// for the replay, and for the points — while the settings stay; ids keep their places; a rewind
// to a message already dropped or unknown changes nothing; the points are the prompts still in
// the conversation (not steering messages), each with its snapshot tree.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { recordedRewinds, rewoundIndexes, withoutRewound } from "../../src/store/rewindRecords.ts";
import { readHistory } from "../../src/store/sessionHistory.ts";
import { readSession } from "../../src/store/sessionFile.ts";
import type { SessionRecord } from "../../src/store/sessionRecords.ts";
import { makeTempDir } from "../support/tempDir.ts";

const T1 = "a".repeat(40);
const T2 = "b".repeat(40);
const T3 = "c".repeat(40);
const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 };

function prompt(text: string, messageId?: string, extra: Partial<SessionRecord> = {}): SessionRecord {
  return {
    t: "2026-12-06T00:00:00.000Z",
    type: "user",
    prompt: text,
    content: [{ type: "text", text }],
    ...(messageId && { messageId }),
    ...extra,
  } as SessionRecord;
}
const answer = (text: string): SessionRecord => ({
  t: "",
  type: "assistant",
  step: 1,
  stopReason: "end_turn",
  content: [{ type: "text", text }],
  usage,
});
const end: SessionRecord = { t: "", type: "end", stopReason: "done", steps: 1 };
const start: SessionRecord = {
  t: "",
  type: "start",
  format: 2,
  sessionId: "20261206-000000-abcd",
  root: "/p",
  version: "0",
  model: "m",
  mode: "build",
};

/** Three turns, each with a point; the second switched the mode. */
const turns: SessionRecord[] = [
  start,
  prompt("one", "m1"),
  { t: "", type: "snapshot", tree: T1, before: "m1" },
  answer("first answer"),
  end,
  prompt("two", "m2"),
  { t: "", type: "snapshot", tree: T2, before: "m2" },
  { t: "", type: "mode", mode: "plan" },
  answer("second answer"),
  prompt("steer me", "s1", { steering: true } as Partial<SessionRecord>),
  end,
  { t: "", type: "snapshot", tree: T3 },
  prompt("three", "m3"),
  answer("third answer"),
  end,
];

const texts = (records: SessionRecord[]) => JSON.stringify(records);

describe("rewind records", () => {
  test("without a rewind, every record counts and every prompt but a steering one is a point", () => {
    expect(rewoundIndexes(turns).size).toBe(0);
    const { points, known } = recordedRewinds(turns);
    expect(points.map((p) => [p.messageId, p.text, p.tree])).toEqual([
      ["m1", "one", T1],
      ["m2", "two", T2],
      ["m3", "three", undefined],
    ]);
    expect(known).toBe(T3);
  });

  test("a rewind drops the conversation from its prompt on, and keeps the settings", () => {
    const records = [...turns, { t: "", type: "rewind", to: "m2" } as SessionRecord];
    const kept = withoutRewound(records);
    expect(texts(kept)).toContain("first answer");
    expect(texts(kept)).not.toContain("second answer");
    expect(texts(kept)).not.toContain("steer me");
    expect(texts(kept)).not.toContain("third answer");
    // The mode switch and the end-of-turn snapshot are settings and facts about the files: kept.
    expect(kept.some((r) => r.type === "mode")).toBe(true);
    expect(kept.some((r) => r.type === "snapshot" && r.tree === T3)).toBe(true);
    expect(recordedRewinds(records).points.map((p) => p.messageId)).toEqual(["m1"]);
    // The replay does not show what was dropped.
    const shown = readHistory(records).flatMap((item) => (item.type === "prompt" ? [item.text] : []));
    expect(shown).toEqual(["one"]);
  });

  test("a later prompt after a rewind counts; a rewind to a dropped or unknown message changes nothing", () => {
    const records: SessionRecord[] = [
      ...turns,
      { t: "", type: "rewind", to: "m2" },
      prompt("four", "m4"),
      answer("fourth answer"),
      end,
      { t: "", type: "rewind", to: "m3" },
      { t: "", type: "rewind", to: "nope" },
    ];
    const kept = texts(withoutRewound(records));
    expect(kept).toContain("fourth answer");
    expect(kept).not.toContain("third answer");
    expect(recordedRewinds(records).points.map((p) => p.text)).toEqual(["one", "four"]);
  });

  test("an older file's prompts (no ids) are named by their place, before and after a rewind", () => {
    const old: SessionRecord[] = [start, prompt("one"), answer("a1"), end, prompt("two"), answer("a2"), end];
    const ids = recordedRewinds(old).points.map((p) => p.messageId);
    expect(ids).toEqual(["r1", "r4"]);
    const records: SessionRecord[] = [...old, { t: "", type: "rewind", to: "r4" }, prompt("three"), answer("a3")];
    expect(recordedRewinds(records).points.map((p) => p.messageId)).toEqual(["r1", "r8"]);
    const history = readHistory(records).flatMap((item) => (item.type === "prompt" ? [item.messageId] : []));
    expect(history).toEqual(["r1", "r8"]);
  });

  test("a session file with a rewind resumes without what it dropped; a bad rewind or snapshot line is skipped", () => {
    const dir = makeTempDir("garuda-rewind-records-");
    const file = join(dir, "s.jsonl");
    const lines = [
      ...turns,
      { t: "", type: "rewind", to: "m2" },
      { t: "", type: "rewind", to: "../../etc" },
      { t: "", type: "snapshot", tree: "not a tree" },
    ];
    writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
    const data = readSession(file);
    expect(data.skipped.map((s) => s.line)).toEqual([17, 18]);
    expect(JSON.stringify(data.messages)).toContain("first answer");
    expect(JSON.stringify(data.messages)).not.toContain("second answer");
    expect(data.messages.length).toBe(2);
  });
});
