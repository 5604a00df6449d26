// No file and no pattern can freeze `garuda acp`: two sessions of one server in one process
// (the SDK's client, the real runtime and tools), the first meeting a named pipe (a FIFO called
// notes.txt, with no writer) and a pattern that backtracks for about a second a line, the second
// answering meanwhile; cancel ends the first one's search at once. Before the fix a FIFO blocked
// the whole process until something wrote to it, and the pattern held every session for ~14 s.
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { contentText, messageText, ofKind, startHarness } from "../support/acpHarness.ts";

/** Files of one line on which `(a+)+$` backtracks to the regex engine's own limit: about a second each. */
const CRAFTED = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`crafted${i}.txt`, `${"a".repeat(40)}!\n`]));

/** How long the second session may take to answer a prompt while the first one searches. */
const ANSWER_MS = 2_000;

function finished(updates: readonly acp.SessionUpdate[], id: string): acp.ToolCallUpdate | undefined {
  return ofKind(updates, "tool_call_update").find(
    (u) => u.toolCallId === id && (u.status === "completed" || u.status === "failed"),
  );
}

describe("one session's search does not hold up another", () => {
  test("grep and find_definition meet a FIFO: skipped with a line that says why; the " +
    "other session answered meanwhile", async () => {
    const first = new FakeModelClient([
      fake.toolCall("grep", { pattern: "needle" }, { id: "toolu_grep" }),
      fake.toolCall("find_definition", { name: "needle" }, { id: "toolu_def" }),
      fake.toolCall("grep", { pattern: "needle", path: "notes.txt" }, { id: "toolu_named" }),
      fake.text("done"),
    ]);
    const second = new FakeModelClient([fake.text("pong")]);
    await using h = startHarness({ models: [first, second], files: { "a.ts": "export function needle() {}\n" } });
    execFileSync("mkfifo", [join(h.root, "notes.txt")]);
    execFileSync("mkfifo", [join(h.root, "notes.ts")]);
    await h.initialize();
    const a = await h.newSession();
    const b = await h.newSession();
    const turn = h.prompt(a.sessionId, "search");
    await h.waitFor((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "toolu_grep");
    const asked = Date.now();
    const answer = await h.prompt(b.sessionId, "ping");
    expect(answer.stopReason).toBe("end_turn");
    expect(messageText(h.updatesOf(b.sessionId))).toBe("pong");
    expect(Date.now() - asked).toBeLessThan(ANSWER_MS);
    expect((await turn).stopReason).toBe("end_turn");
    const updates = h.updatesOf(a.sessionId);
    const grep = contentText(finished(updates, "toolu_grep")?.content);
    expect(grep).toBe(
      "```\na.ts:1:export function needle() {}\n[Not searched: 2 paths that are not a " +
        "regular file (a pipe, socket or device, which reading could hang on): " +
        "notes.ts, notes.txt.]\n```",
    );
    const def = contentText(finished(updates, "toolu_def")?.content);
    expect(def).toBe(
      "```\na.ts:1  function needle — export function needle()\n[Not searched: 1 path " +
        "that is not a regular file (a pipe, socket or device, which reading could hang " +
        "on): notes.ts.]\n```",
    );
    const named = finished(updates, "toolu_named");
    expect(named?.status).toBe("failed");
    expect(contentText(named?.content)).toBe(
      "```\nnotes.txt is not a regular file (a device, socket or pipe); grep searches files and folders only.\n```",
    );
  }, 60_000);

  test("a pattern that backtracks for seconds: the other session answers at once, and " +
    "cancel ends the search at once", async () => {
    const first = new FakeModelClient([
      fake.toolCall("grep", { pattern: "(a+)+$" }, { id: "toolu_slow" }),
      fake.text("next turn"),
    ]);
    const second = new FakeModelClient([fake.text("pong"), fake.text("pong again")]);
    await using h = startHarness({ models: [first, second], files: CRAFTED });
    await h.initialize();
    const a = await h.newSession();
    const b = await h.newSession();
    const turn = h.prompt(a.sessionId, "search");
    await h.waitFor((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "toolu_slow");
    await Bun.sleep(500);
    const asked = Date.now();
    expect((await h.prompt(b.sessionId, "ping")).stopReason).toBe("end_turn");
    expect(Date.now() - asked).toBeLessThan(ANSWER_MS);
    // The search was still running when the other session answered.
    expect(finished(h.updatesOf(a.sessionId), "toolu_slow")).toBeUndefined();
    const cancelled = Date.now();
    await h.agent.notify(acp.methods.agent.session.cancel, { sessionId: a.sessionId });
    expect(await turn).toEqual({ stopReason: "cancelled" });
    expect(Date.now() - cancelled).toBeLessThan(1_000);
    expect(finished(h.updatesOf(a.sessionId), "toolu_slow")?.status).toBe("failed");
    // And the other session still answers right after.
    const again = Date.now();
    expect((await h.prompt(b.sessionId, "ping")).stopReason).toBe("end_turn");
    expect(Date.now() - again).toBeLessThan(ANSWER_MS);
  }, 60_000);
});
