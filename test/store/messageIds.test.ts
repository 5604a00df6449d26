// Which blocks of an answer are one message, which ids a kept answer records, what a file may
// hold as an id (store/messageIds.ts, store/sessionCheck.ts), and a compaction's id read back.
import { describe, expect, test } from "bun:test";
import type { AssistantBlock } from "../../src/model/types.ts";
import { isMessageId, keptMessageIds, messageRuns, positionId } from "../../src/store/messageIds.ts";
import { checkRecord } from "../../src/store/sessionCheck.ts";
import { readHistory } from "../../src/store/sessionHistory.ts";
import { shownSummary, summaryText } from "../../src/store/sessionRecords.ts";

const text = (t: string): AssistantBlock => ({ type: "text", text: t });
const thinking = (t: string): AssistantBlock => ({ type: "thinking", thinking: t, signature: "s" });
const call: AssistantBlock = { type: "tool_use", id: "toolu_1", name: "read_file", input: {} };

describe("messageRuns", () => {
  test(
    "a run of one kind is one message; a call or another kind starts the next; " +
      "empty and redacted blocks show none",
    () => {
      const runs = messageRuns([
        thinking("a"),
        { type: "redacted_thinking", data: "x" },
        thinking("b"),
        text("cited "),
        text("answer"),
        text(""),
        call,
        text("after the call"),
      ]);
      expect(runs.map((r) => (r ? `${r.kind}${r.run}` : "-"))).toEqual([
        "thinking0",
        "-",
        "thinking0",
        "text1",
        "text1",
        "-",
        "-",
        "text2",
      ]);
    },
  );
});

describe("keptMessageIds", () => {
  test("each kept message takes the id it streamed with", () => {
    const streamed = [
      { kind: "thinking" as const, id: "t" },
      { kind: "text" as const, id: "a" },
      { kind: "text" as const, id: "b" },
    ];
    expect(keptMessageIds([thinking("x"), text("y"), call, text("z")], streamed)).toEqual(["t", "a", "b"]);
  });

  test("thinking a provider does not return is skipped; a message never streamed gets a new id", () => {
    const ids = keptMessageIds(
      [text("y"), call, text("z")],
      [
        { kind: "thinking", id: "t" },
        { kind: "text", id: "a" },
      ],
    );
    expect(ids[0]).toBe("a");
    expect(ids[1]).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("ids read from a file", () => {
  test("a plain token is kept; anything else is dropped and the message gets its position's id", () => {
    expect(isMessageId(positionId(3, 1))).toBe(true);
    expect(isMessageId("0f1e2d3c-aaaa-bbbb-cccc-000011112222")).toBe(true);
    const user = (messageId: unknown) =>
      checkRecord({ type: "user", prompt: "p", content: [{ type: "text", text: "p" }], messageId });
    expect(user("m-1")).toMatchObject({ messageId: "m-1" });
    for (const bad of ["", "a b", "x".repeat(101), "<script>", 5, { id: 1 }])
      expect(user(bad)).not.toHaveProperty("messageId");
    const answer = (messageIds: unknown) =>
      checkRecord({ type: "assistant", content: [{ type: "text", text: "t" }], messageIds });
    expect(answer(["a", "b"])).toMatchObject({ messageIds: ["a", "b"] });
    expect(answer(["a", "\u202e"])).not.toHaveProperty("messageIds");
    expect(answer("a")).not.toHaveProperty("messageIds");
  });
});

describe("a compaction read back (store/sessionHistory.ts)", () => {
  const t = "";
  const stage1 = { t, type: "compaction" as const, stage: 1 as const, beforeTokens: 90_000, afterTokens: 70_000 };
  const pruned = [{ message: 2, block: 0, content: "cut" }];
  const stage2 = {
    t,
    type: "compaction" as const,
    stage: 2 as const,
    beforeTokens: 70_000,
    afterTokens: 9_000,
    keptFrom: 3,
    summary: summaryText("What was done.", undefined),
  };

  test(
    "both stages of one compaction are one item with its id, the cut results and " + "the summary without its tags",
    () => {
      const items = readHistory([
        { ...stage1, id: "c1", pruned },
        { ...stage2, id: "c1" },
      ]);
      expect(items).toEqual([
        {
          type: "compaction",
          id: "c1",
          beforeTokens: 90_000,
          afterTokens: 9_000,
          pruned: 1,
          summary: shownSummary(summaryText("What was done.", undefined)),
        },
      ]);
      expect((items[0] as { summary: string }).summary).toStartWith("Earlier messages of this conversation");
      expect((items[0] as { summary: string }).summary).toEndWith("What was done.");
    },
  );

  test("an older file's stages, without ids, stay two items with ids of their positions", () => {
    expect(readHistory([stage1, stage2]).map((item) => (item as { id: string }).id)).toEqual(["r0", "r1"]);
  });
});
