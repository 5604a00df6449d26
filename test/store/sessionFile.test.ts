// Session files: opened at the first prompt, append-only and private, redacted, resumable,
// replayable, and readable when damaged.
import { describe, expect, test } from "bun:test";
import { setTimeZone } from "bun:jsc";
import { appendFileSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fake } from "../../src/model/fake.ts";
import type { ModelRequest } from "../../src/model/types.ts";
import { createSessionStore, newSessionId, readSession, sessionFolder } from "../../src/store/sessionFile.ts";
import { replayEvents, replayTurns } from "../../src/store/sessionHistory.ts";
import { ofType, readTool, testRuntime, turn } from "../support/runtimeHelpers.ts";
import { tempDir } from "../support/tempDir.ts";

const mode = (path: string) => statSync(path).mode & 0o777;

describe("the session file", () => {
  test("starts at the first prompt, private, under ~/.garuda/sessions/<project>-<hash8>/<id>.jsonl", async () => {
    await using t = testRuntime({ turns: [fake.text("hi")] });
    const sessions = join(t.home, ".garuda", "sessions");
    expect(t.runtime.session).toBeUndefined();
    expect(existsSync(sessions)).toBe(false);
    await turn(t.runtime, "hello");
    const file = t.runtime.session?.file as string;
    expect(dirname(file)).toBe(sessionFolder(sessions, t.root));
    expect(basename(dirname(file))).toMatch(
      new RegExp(`^${basename(t.root).replace(/[^A-Za-z0-9._-]/g, "_")}-[0-9a-f]{8}$`),
    );
    expect(basename(file)).toMatch(/^\d{8}-\d{6}-[0-9a-f]{8}\.jsonl$/);
    expect(mode(file)).toBe(0o600);
    expect(mode(dirname(file))).toBe(0o700);
    const records = readSession(file).records;
    expect(records.map((record) => record.type)).toEqual(["start", "user", "title", "assistant", "end"]);
    expect(records[0]).toMatchObject({
      type: "start",
      format: 2,
      sessionId: t.runtime.session?.id,
      root: t.runtime.root,
      model: "claude-test",
      mode: "build",
    });
    expect(records[2]).toMatchObject({ type: "title", title: "hello" });
    expect(records[4]).toMatchObject({ type: "end", stopReason: "done", steps: 1 });
  });

  test("ids sort by time: the time in UTC, whatever the process's time zone", () => {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    setTimeZone("Asia/Kolkata");
    try {
      // Local getters would give 08:34:05 here (UTC+5:30).
      expect(newSessionId(new Date(Date.UTC(2026, 0, 2, 3, 4, 5)))).toMatch(/^20260102-030405-[0-9a-f]{8}$/);
      expect(newSessionId(new Date(Date.UTC(2026, 0, 2, 23, 59, 59)))).toMatch(/^20260102-235959-/);
    } finally {
      setTimeZone(zone);
    }
  });

  test("secrets are redacted; thinking signatures are kept byte for byte", async () => {
    const key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
    await using t = testRuntime({
      turns: [
        fake.thinking(
          "The key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789.",
          "Done.",
          "sig+/with=sk-ant-api03-abcdefghijklmnopqrstuv",
        ),
      ],
    });
    await turn(t.runtime, `use ${key} please`);
    const text = readFileSync(t.runtime.session?.file as string, "utf8");
    expect(text).not.toContain(`${key} please`);
    expect(text).toContain("use [REDACTED] please");
    expect(text).toContain('"signature":"sig+/with=sk-ant-api03-abcdefghijklmnopqrstuv"');
  });

  test("records every change: tool results with their status and title, mode changes, ends", async () => {
    await using t = testRuntime({
      files: { "a.txt": "alpha" },
      turns: [
        fake.toolCall("read", { path: "a.txt" }, { id: "toolu_1" }),
        fake.text("Read it."),
        fake.text("Planned."),
      ],
    });
    await turn(t.runtime, "read a");
    await t.runtime.setMode("plan");
    await turn(t.runtime, "plan it");
    const records = readSession(t.runtime.session?.file as string).records;
    expect(records.map((record) => record.type)).toEqual([
      "start",
      "user",
      "title",
      "assistant",
      "tool_results",
      "assistant",
      "end",
      "mode",
      "user",
      "assistant",
      "end",
    ]);
    const results = records.find((record) => record.type === "tool_results");
    expect(results).toMatchObject({
      results: [
        {
          callId: "toolu_1",
          tool: "read",
          content: "alpha",
          status: "completed",
          info: { title: "Read a.txt", kind: "read" },
        },
      ],
    });
    expect(records[7]).toMatchObject({ type: "mode", mode: "plan" });
  });
});

describe("resume and replay", () => {
  test("a resumed Runtime continues the conversation in the same file", async () => {
    using home = tempDir("garuda-home-");
    let file: string;
    {
      await using t = testRuntime({
        home: home.path,
        files: { "a.txt": "alpha" },
        turns: [fake.toolCall("read", { path: "a.txt" }), fake.text("It says alpha.")],
      });
      await turn(t.runtime, "what is in a.txt?");
      file = t.runtime.session?.file as string;
    }
    await using again = testRuntime({ resume: file, home: home.path, turns: [fake.text("Yes.")] });
    expect(again.runtime.messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
    await turn(again.runtime, "sure?");
    const request = again.model.requests[0] as ModelRequest;
    expect(request.messages).toHaveLength(5);
    expect(request.messages[0]?.content).toEqual([{ type: "text", text: "what is in a.txt?" }]);
    expect(again.runtime.session?.file).toBe(file);
    const records = readSession(file).records;
    expect(records.map((record) => record.type)).toEqual([
      "start",
      "user",
      "title",
      "assistant",
      "tool_results",
      "assistant",
      "end",
      "resume",
      "user",
      "assistant",
      "end",
    ]);
    expect(readSession(file).messages).toEqual(again.runtime.messages as never);
  });

  test("a resumed session with an open tool call gets a synthetic result before the next request", async () => {
    using dir = tempDir("garuda-sessions-");
    const store = createSessionStore({ sessionsDir: dir.path });
    const journal = store.create({ root: dir.path, version: "0", model: "m", mode: "build" });
    journal.append({ type: "user", prompt: "go", content: [{ type: "text", text: "go" }] });
    journal.append({
      type: "assistant",
      step: 1,
      stopReason: "tool_use",
      content: [{ type: "tool_use", id: "toolu_open", name: "read", input: { path: "a" } }],
      usage: { inputTokens: 5, outputTokens: 5, cacheReadTokens: 0, cacheCreationTokens: 0 },
    });
    journal.close();
    await using t = testRuntime({ resume: journal.file as string, turns: [fake.text("ok")] });
    await turn(t.runtime, "next");
    const sent = (t.model.requests[0] as ModelRequest).messages;
    expect(sent.at(-1)?.content).toEqual([
      { type: "tool_result", toolUseId: "toolu_open", content: "Cancelled by the user.", isError: true },
      { type: "text", text: "next" },
    ]);
    // The earlier usage counts toward the session's budget.
    expect(t.runtime.tokensUsed).toBe(10);
  });

  test("replay gives back the events a front end showed, turn by turn", async () => {
    await using t = testRuntime({
      files: { "a.txt": "alpha" },
      tools: [readTool()],
      turns: [
        fake.reply([
          { type: "thinking", thinking: "Look first.", signature: "s" },
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "toolu_1", name: "read", input: { path: "a.txt" } },
        ]),
        fake.text("alpha it is"),
      ],
    });
    const live = await turn(t.runtime, "read a");
    const records = readSession(t.runtime.session?.file as string).records;
    const turns = replayTurns(records);
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ prompt: "read a", stopReason: "done" });
    const replayed = replayEvents(records);
    const shape = (events: typeof replayed) =>
      events.map((event) =>
        event.type === "tool_call"
          ? [event.type, event.callId, event.info.title]
          : event.type === "tool_result"
            ? [event.type, event.callId, event.status, event.output]
            : [event.type],
      );
    // tool_start is live state (the call runs now); a replayed call comes with its result. usage is
    // live too: a front end showing a replayed session asks the runtime for its usage now.
    expect(shape(replayed)).toEqual(
      shape(live.events.filter((event) => event.type !== "tool_start" && event.type !== "usage")),
    );
    expect(
      ofType(replayed, "text_delta")
        .map((event) => event.text)
        .join(""),
    ).toBe("Reading.alpha it is");
  });
});

describe("damaged files", () => {
  function written(dir: string): string {
    const store = createSessionStore({ sessionsDir: dir });
    const journal = store.create({ root: dir, version: "0", model: "m", mode: "build" });
    journal.append({ type: "user", prompt: "hi", content: [{ type: "text", text: "hi" }] });
    journal.append({
      type: "assistant",
      step: 1,
      stopReason: "end_turn",
      content: [{ type: "text", text: "hello" }],
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 },
    });
    journal.close();
    return journal.file as string;
  }

  test("a torn last line is reported; the records before it are kept", () => {
    using dir = tempDir("garuda-sessions-");
    const file = written(dir.path);
    appendFileSync(file, '{"t":"2026-01-01T00:00:00Z","type":"user","prompt":"cut');
    const session = readSession(file);
    expect(session.damaged).toEqual({ line: 4, reason: "the last line is incomplete (the write was cut off)" });
    expect(session.records.map((record) => record.type)).toEqual(["start", "user", "assistant"]);
    expect(session.messages).toHaveLength(2);
  });

  test("a garbage line in the middle is reported and skipped", () => {
    using dir = tempDir("garuda-sessions-");
    const file = written(dir.path);
    const lines = readFileSync(file, "utf8").split("\n");
    lines.splice(2, 0, "not json at all", '{"type":"bogus"}');
    writeFileSync(file, lines.join("\n"));
    const session = readSession(file);
    expect(session.damaged).toEqual({ line: 3, reason: "the line is not valid JSON" });
    expect(session.records.map((record) => record.type)).toEqual(["start", "user", "assistant"]);
  });

  test("resuming a torn file starts the next record on a line of its own", () => {
    using dir = tempDir("garuda-sessions-");
    const file = written(dir.path);
    appendFileSync(file, '{"t":"x","type":"us');
    const store = createSessionStore({ sessionsDir: dirname(dirname(file)) });
    const journal = store.resume(file, { root: "/", version: "0", model: "m", mode: "plan" });
    journal.append({ type: "end", stopReason: "done", steps: 0 });
    journal.close();
    const session = readSession(file);
    expect(session.damaged?.line).toBe(4);
    expect(session.records.map((record) => record.type)).toEqual(["start", "user", "assistant", "resume", "end"]);
    // The session file and its (empty) lock file, nothing else.
    expect(readdirSync(dirname(file)).sort()).toEqual([basename(file), basename(file).replace(".jsonl", ".lock")]);
  });
});
