// session/load and session/resume against the real server, runtime, sandbox and tools, with a
// FakeModelClient: a conversation made in one editor is loaded by the next (same home, the first
// one shut down), replayed field by field as the first editor saw it live, and continued with
// the model seeing the earlier turns. session/resume continues without a replay.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { messageText, ofKind, select } from "../support/acpHarness.ts";
import { conversation, load, machine, rejection, userChunks } from "../support/acpHistory.ts";
import { running, waitFor } from "../support/processes.ts";

/** The text of every user message the model was sent, in order. */
const userTexts = (model: FakeModelClient, request = 0) =>
  (model.requests[request]?.messages ?? [])
    .filter((m) => m.role === "user")
    .map((m) => m.content.map((b) => (b.type === "text" ? b.text : "")).join(""));

describe("session/load", () => {
  test("a new editor replays the whole conversation as it was shown live, field by " +
    "field, then continues it", async () => {
    const first = new FakeModelClient([
      fake.reply([
        { type: "thinking", thinking: "The notes first.", signature: "sig-1" },
        { type: "text", text: "Let me read the notes." },
        { type: "tool_use", id: "toolu_read", name: "read_file", input: { path: "notes.txt" } },
      ]),
      fake.toolCall(
        "edit_file",
        { path: "notes.txt", old_string: "draft", new_string: "final" },
        { id: "toolu_edit", text: "Now the edit." },
      ),
      fake.toolCall(
        "todo",
        {
          items: [
            { content: "Make the note final", status: "completed" },
            { content: "Tell the user", status: "in_progress" },
          ],
        },
        { id: "toolu_plan" },
      ),
      fake.text("The note now says **final**.", { chunks: 4 }),
      fake.toolCall("write_file", { path: "other.txt", content: "x" }, { id: "toolu_denied" }),
      fake.text("Fine, I left it."),
    ]);
    const notes = join("notes.txt");
    using m = machine();
    await using h = m.editor({ models: [first], files: { [notes]: "a draft note\n" } });
    await h.initialize();
    const { sessionId } = await h.newSession();
    expect(sessionId).toMatch(/^\d{8}-\d{6}-[0-9a-f]{8}$/);
    const sent: acp.ContentBlock[] = [
      { type: "text", text: "Make" },
      { type: "resource_link", uri: pathToFileURL(join(h.root, "notes.txt")).href, name: "notes.txt" },
      { type: "text", text: "final, see the selection:" },
      {
        type: "resource",
        resource: { uri: "untitled:sel.ts", text: "const x = 1;", mimeType: "text/x-typescript" },
      },
    ];
    expect((await h.prompt(sessionId, sent)).stopReason).toBe("end_turn");
    h.answer = () => select("deny");
    expect((await h.prompt(sessionId, "now write other.txt")).stopReason).toBe("end_turn");
    const live = h.updatesOf(sessionId);
    await h.close();

    const next = new FakeModelClient([fake.text("It says final.")]);
    await using again = m.editor({ models: [next] });
    await again.initialize();
    const { response, replayed } = await load(again, sessionId);
    expect(response.modes?.currentModeId).toBe("build");

    // Everything the editor kept of the live turns comes back, in order, field by field, the plan too.
    expect(conversation(replayed)).toEqual(conversation(live));
    // The live updates it leaves out are live state only: the running calls and the session's time.
    expect(
      live.filter(
        (u) => u.sessionUpdate === "tool_call_update" && (u.status === "in_progress" || u.status === "pending"),
      ).length,
    ).toBeGreaterThan(0);
    // Each prompt as the user sent it: text, the file link, the embedded selection.
    expect(userChunks(replayed)).toEqual([...sent, { type: "text", text: "now write other.txt" }]);
    const order = replayed.map((u) => u.sessionUpdate);
    expect(order.indexOf("user_message_chunk")).toBe(0);
    expect(order.lastIndexOf("user_message_chunk")).toBeGreaterThan(order.indexOf("plan"));

    // The parts the issue names, checked on their own too.
    const calls = ofKind(replayed, "tool_call");
    expect(calls.map((c) => [c.toolCallId, c.title, c.kind, c.status])).toEqual([
      ["toolu_read", "Read notes.txt", "read", "pending"],
      ["toolu_edit", "Edit notes.txt", "edit", "pending"],
      ["toolu_plan", "Update the plan", "think", "pending"],
      ["toolu_denied", "Write other.txt", "edit", "pending"],
    ]);
    expect(calls[0]?.locations).toEqual([{ path: join(h.root, "notes.txt") }]);
    expect(calls[1]?.rawInput).toEqual({ path: "notes.txt", old_string: "draft", new_string: "final" });
    const edit = ofKind(replayed, "tool_call_update").find((u) => u.toolCallId === "toolu_edit");
    expect(edit?.status).toBe("completed");
    expect(edit?.content?.[0]).toEqual({
      type: "diff",
      path: join(h.root, "notes.txt"),
      oldText: "a draft note\n",
      newText: "a final note\n",
    });
    expect(ofKind(replayed, "tool_call_update").find((u) => u.toolCallId === "toolu_denied")?.status).toBe("failed");
    expect(ofKind(replayed, "plan")).toEqual([
      {
        sessionUpdate: "plan",
        entries: [
          { content: "Make the note final", priority: "medium", status: "completed" },
          { content: "Tell the user", priority: "medium", status: "in_progress" },
        ],
      },
    ]);
    expect(
      ofKind(replayed, "agent_thought_chunk").map((u) => (u.content.type === "text" ? u.content.text : "")),
    ).toEqual(["The notes first."]);
    expect(ofKind(replayed, "session_info_update")).toEqual([
      { sessionUpdate: "session_info_update", title: "Make notes.txt final, see the selection:" },
    ]);

    // The next prompt continues the conversation: the model sees the earlier turns.
    expect((await again.prompt(sessionId, "what does it say?")).stopReason).toBe("end_turn");
    const texts = userTexts(next);
    expect(texts[0]).toContain("Make @notes.txt final, see the selection:");
    expect(texts[0]).toContain("const x = 1;");
    expect(texts.at(-1)).toContain("what does it say?");
    expect(JSON.stringify(next.requests[0]?.messages)).toContain("The user denied this");
    expect(messageText(again.updatesOf(sessionId))).toContain("It says final.");
  }, 60_000);

  test("a stopped command replays as failed, with the line the stop showed live", async () => {
    const model = new FakeModelClient([
      fake.toolCall("bash", { command: "sleep 60" }, { id: "toolu_sleep" }),
      fake.text("later"),
    ]);
    using m = machine();
    await using h = m.editor({ models: [model] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    const turn = h.prompt(sessionId, "sleep a minute");
    await h.waitFor((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "toolu_sleep");
    await waitFor(() => running(["sleep", "60"]).length > 0);
    await h.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    const live = h.updatesOf(sessionId);
    await h.close();

    await using again = m.editor();
    await again.initialize();
    const { replayed } = await load(again, sessionId);
    // As live, but the stopped call's text: live showed what the killed command returned during
    // the settle window; the file keeps the call as Garuda closed it.
    const withoutText = (updates: acp.SessionUpdate[]) =>
      conversation(updates).map((u) =>
        (u as acp.SessionUpdate).sessionUpdate === "tool_call_update" ? { ...(u as object), content: "…" } : u,
      );
    expect(withoutText(replayed)).toEqual(withoutText(live));
    const end = ofKind(replayed, "tool_call_update").filter((u) => u.toolCallId === "toolu_sleep");
    expect(end).toEqual([
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "toolu_sleep",
        status: "failed",
        content: [{ type: "content", content: { type: "text", text: "Cancelled." } }],
      },
    ]);
    expect(messageText(replayed)).toContain("Garuda: $ sleep 60 cancelled.");
  }, 30_000);

  test("the mode is restored; notices of a turn come back as Garuda: lines; a question is live only", async () => {
    const model = new FakeModelClient([
      fake.toolCall("write_file", { path: "a.txt", content: "x" }, { id: "toolu_plan_write" }),
      fake.text("Planned."),
    ]);
    using m = machine();
    await using h = m.editor({ models: [model], server: {} });
    await h.initialize();
    const { sessionId } = await h.newSession({
      mcpServers: [{ name: "editor-tools", command: "/bin/true", args: [], env: [] }],
    });
    await h.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
    expect((await h.prompt(sessionId, "plan it")).stopReason).toBe("end_turn");
    const live = h.updatesOf(sessionId);
    await h.close();

    await using again = m.editor();
    await again.initialize();
    const { response, replayed } = await load(again, sessionId);
    expect(response.modes?.currentModeId).toBe("plan");
    const notGaruda = (u: unknown) => (u as { text?: string }).text?.includes("Garuda:") !== true;
    const notQuestion = (u: unknown) =>
      !String((u as { toolCallId?: string }).toolCallId ?? "").startsWith("garuda-question-");
    expect(conversation(replayed).filter(notGaruda)).toEqual(conversation(live).filter(notGaruda).filter(notQuestion));
    // The question about the editor's MCP server is live only (an answer, not the conversation).
    expect(live.some((u) => u.sessionUpdate === "tool_call" && u.toolCallId.startsWith("garuda-question-"))).toBe(true);
    // The runtime's notice about it (the server exits at once) is part of the turn, and replayed.
    expect(messageText(replayed)).toContain('Garuda: The MCP server "editor-tools" could not start');
    expect(ofKind(replayed, "tool_call_update").find((u) => u.toolCallId === "toolu_plan_write")?.status).toBe(
      "failed",
    );
  }, 30_000);

  test("a session this process serves is replayed again from its file, and stays the same session", async () => {
    const model = new FakeModelClient([fake.text("one"), fake.text("two")]);
    using m = machine();
    await using h = m.editor({ models: [model] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "first");
    const { replayed } = await load(h, sessionId);
    expect(messageText(replayed)).toBe("one");
    expect((await h.prompt(sessionId, "second")).stopReason).toBe("end_turn");
    expect(model.requests).toHaveLength(2);
  });

  test("an unknown session is -32002; a session with no prompt yet has no file and is unknown elsewhere", async () => {
    using m = machine();
    await using h = m.editor();
    await h.initialize();
    const { sessionId } = await h.newSession();
    await using other = m.editor();
    await other.initialize();
    expect((await rejection(load(other, sessionId))).code).toBe(-32002);
    expect((await rejection(load(other, "20200101-000000-00000000"))).code).toBe(-32002);
  });
});

describe("session/resume", () => {
  test("continues the session with nothing replayed; the model sees the earlier turns", async () => {
    using m = machine();
    await using h = m.editor({ models: [new FakeModelClient([fake.text("Noted: blue.")])] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "my colour is blue");
    await h.close();

    const next = new FakeModelClient([fake.text("Blue.")]);
    await using again = m.editor({ models: [next] });
    await again.initialize();
    const before = again.updates.length;
    const response = await again.agent.request(acp.methods.agent.session.resume, {
      sessionId,
      cwd: h.root,
      mcpServers: [],
    });
    expect(response.modes?.currentModeId).toBe("build");
    await Bun.sleep(50);
    // Nothing of the conversation (the / menu may follow the answer, as for session/new).
    expect(
      again.updates
        .slice(before)
        .map((n) => n.update.sessionUpdate)
        .filter((kind) => kind !== "available_commands_update" && kind !== "usage_update"),
    ).toEqual([]);
    await again.prompt(sessionId, "which colour?");
    expect(userTexts(next)[0]).toContain("my colour is blue");
    expect(JSON.stringify(next.requests[0]?.messages)).toContain("Noted: blue.");
  });

  test("an unknown session is -32002", async () => {
    using m = machine();
    await using h = m.editor();
    await h.initialize();
    const error = await rejection(
      h.agent.request(acp.methods.agent.session.resume, { sessionId: "20200101-000000-00000000", cwd: h.root }),
    );
    expect(error.code).toBe(-32002);
  });
});

describe("the session file", () => {
  test("a loaded session goes on in the same file: a resume record, then the new turn", async () => {
    using m = machine();
    await using h = m.editor({ models: [new FakeModelClient([fake.text("first"), fake.text("second")])] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "hello");
    await h.close();
    await using again = m.editor({ models: [new FakeModelClient([fake.text("again")])] });
    await again.initialize();
    await load(again, sessionId);
    await again.prompt(sessionId, "more");
    const { findSessionFile } = await import("../../src/store/sessionCatalog.ts");
    const file = findSessionFile(join(h.home, ".garuda", "sessions"), sessionId) as string;
    const types = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types.filter((type) => type === "user")).toHaveLength(2);
    expect(types).toContain("resume");
  });
});
