// Issue 20.1 over ACP: a network question whose command ends (curl gives up) before the editor
// answers is withdrawn: its session/request_permission is cancelled, its entry says why, the turn
// goes on, and the next question reaches the editor.
import { describe, expect, test } from "bun:test";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { contentText, ofKind, select, startHarness } from "../support/acpHarness.ts";

describe("a question whose command ended", () => {
  test("is cancelled at the editor, its entry says why, and the next question is asked", async () => {
    const model = new FakeModelClient([
      fake.toolCall(
        "bash",
        { command: "curl -sS -m 3 http://garuda-test.invalid/; echo curl-exit=$?" },
        { id: "toolu_curl" },
      ),
      fake.toolCall("write_file", { path: "a.txt", content: "x\n" }, { id: "toolu_write" }),
      fake.text("done"),
    ]);
    await using h = startHarness({ models: [model] });
    // An editor that never answers the first question, and answers yes after.
    h.answer = (params) =>
      params.toolCall.toolCallId === "garuda-question-1" ? new Promise(() => {}) : select("once");
    await h.initialize();
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "fetch, then write")).stopReason).toBe("end_turn");
    expect(h.permissions.map((p) => p.toolCall.title)).toEqual(["Network: garuda-test.invalid:80", "Write a.txt"]);
    // The first request was cancelled ($/cancel_request names its id).
    const asked = h.lines.find(
      (line) => line.includes("session/request_permission") && line.includes("garuda-question-1"),
    );
    const id = asked && (JSON.parse(asked) as { id: number | string }).id;
    expect(
      h.lines.some((line) => line.includes("$/cancel_request") && line.includes(`"requestId":${JSON.stringify(id)}`)),
    ).toBe(true);
    const updates = h.updatesOf(sessionId);
    const entryEnd = ofKind(updates, "tool_call_update").find((u) => u.toolCallId === "garuda-question-1");
    expect(entryEnd?.status).toBe("failed");
    expect(contentText(entryEnd?.content ?? [])).toContain("the command ended; not asked");
  }, 60_000);
});
