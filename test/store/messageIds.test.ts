// Which blocks of an answer are one message, which ids a kept answer records, and what a file may
// hold as an id (store/messageIds.ts, store/sessionCheck.ts).
import { describe, expect, test } from "bun:test";
import type { AssistantBlock } from "../../src/model/types.ts";
import { isMessageId, keptMessageIds, messageRuns, positionId } from "../../src/store/messageIds.ts";
import { checkRecord } from "../../src/store/sessionCheck.ts";

const text = (t: string): AssistantBlock => ({ type: "text", text: t });
const thinking = (t: string): AssistantBlock => ({ type: "thinking", thinking: t, signature: "s" });
const call: AssistantBlock = { type: "tool_use", id: "toolu_1", name: "read_file", input: {} };

describe("messageRuns", () => {
  test("a run of one kind is one message; a call or another kind starts the next; empty and redacted blocks show none", () => {
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
  });
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
