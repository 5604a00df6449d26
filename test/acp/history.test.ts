// The editor's history against the real server and runtime (FakeModelClient): session/list
// (every front end's sessions, newest first, in pages), titles, session/close and
// session/delete, and what keeps the history safe: ids checked before any path is made, a
// session only in its own project, one writer per session, and damaged files that still load.
import { describe, expect, test } from "bun:test";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { findSession, listSessions as chatSessions, sessionDetails } from "../../src/cli/chat/sessions.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { findSessionFile } from "../../src/store/sessionCatalog.ts";
import { createSessionStore, sessionFolder } from "../../src/store/sessionFile.ts";
import { SessionBusyError } from "../../src/store/sessionLock.ts";
import { testRuntime, turn } from "../support/runtimeHelpers.ts";
import { messageText, ofKind } from "../support/acpHarness.ts";
import { load, machine, rejection } from "../support/acpHistory.ts";
import { running, waitFor } from "../support/processes.ts";
import { makeTempDir } from "../support/tempDir.ts";

const sessionsOf = (home: string) => garudaPaths(home).sessions;

/** A session file as the store writes it, with a prompt and a title, last written at `when`. */
function storedSession(sessionsDir: string, root: string, prompt: string, when: Date): string {
  const journal = createSessionStore({ sessionsDir }).create({ root, version: "0", model: "m", mode: "build" });
  journal.append({ type: "user", prompt, content: [{ type: "text", text: prompt }] });
  journal.append({ type: "title", title: prompt });
  journal.close();
  utimesSync(journal.file as string, when, when);
  return journal.id;
}

/** The code of the last error the server wrote (the SDK's client turns -32002 on close and delete into success). */
function lastErrorCode(lines: readonly string[]): number | undefined {
  return lines
    .map((line) => JSON.parse(line) as { error?: { code: number } })
    .findLast((message) => message.error !== undefined)?.error?.code;
}

describe("session/list", () => {
  test(
    "every session of every front end, newest first, with id, cwd, title and " +
      "updatedAt; cwd narrows it to one project",
    async () => {
      using m = machine();
      const otherRoot = makeTempDir("garuda-history-other-");
      try {
        await using h = m.editor({ models: [new FakeModelClient([fake.text("a"), fake.text("b")])] });
        await h.initialize();
        const { sessionId: editorSession } = await h.newSession();
        await h.prompt(editorSession, "fix the parser");
        // A session of the terminal chat or `garuda run`: the same Runtime, the same store.
        let terminalSession: string;
        {
          await using t = testRuntime({ home: m.home, root: m.root, turns: [fake.text("ok")] });
          await turn(t.runtime, "from the terminal");
          terminalSession = t.runtime.session?.id as string;
        }
        const { sessionId: elsewhere } = await h.newSession({ cwd: otherRoot });
        await h.prompt(elsewhere, "another project");

        const all = await h.agent.request(acp.methods.agent.session.list, {});
        expect(all.sessions.map((s) => s.sessionId)).toEqual([elsewhere, terminalSession, editorSession]);
        expect(all.nextCursor).toBeUndefined();
        const mine = all.sessions.find((s) => s.sessionId === editorSession);
        expect(mine).toEqual({
          sessionId: editorSession,
          cwd: m.root,
          title: "fix the parser",
          updatedAt: expect.any(String),
        });
        expect(new Date(mine?.updatedAt as string).toISOString()).toBe(mine?.updatedAt as string);
        expect(all.sessions.find((s) => s.sessionId === terminalSession)?.title).toBe("from the terminal");

        const here = await h.agent.request(acp.methods.agent.session.list, { cwd: m.root });
        expect(here.sessions.map((s) => s.sessionId)).toEqual([terminalSession, editorSession]);
        const there = await h.agent.request(acp.methods.agent.session.list, { cwd: otherRoot });
        expect(there.sessions.map((s) => [s.sessionId, s.cwd])).toEqual([[elsewhere, otherRoot]]);
        expect(
          (await h.agent.request(acp.methods.agent.session.list, { cwd: join(otherRoot, "none") })).sessions,
        ).toEqual([]);
      } finally {
        rmSync(otherRoot, { recursive: true, force: true });
      }
    },
  );

  test("pages of 50 with an opaque nextCursor, no session twice; a bad cursor is a clear -32602", async () => {
    using m = machine();
    const sessions = sessionsOf(m.home);
    const ids = Array.from({ length: 120 }, (_, n) =>
      storedSession(sessions, m.root, `task ${n}`, new Date(Date.UTC(2026, 0, 1, 0, 0, n))),
    );
    await using h = m.editor();
    await h.initialize();
    const seen: string[] = [];
    let cursor: string | undefined;
    const sizes: number[] = [];
    do {
      const page: acp.ListSessionsResponse = await h.agent.request(acp.methods.agent.session.list, {
        cwd: m.root,
        ...(cursor && { cursor }),
      });
      sizes.push(page.sessions.length);
      seen.push(...page.sessions.map((s) => s.sessionId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(sizes).toEqual([50, 50, 20]);
    expect(seen).toEqual([...ids].reverse());
    for (const bad of ["not-a-cursor", Buffer.from('{"u":"x"}').toString("base64url"), "%%%"]) {
      const error = await rejection(h.agent.request(acp.methods.agent.session.list, { cursor: bad }));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain("this cursor is not one Garuda gave");
    }
    expect((await rejection(h.agent.request(acp.methods.agent.session.list, { cwd: "relative/dir" }))).code).toBe(
      -32602,
    );
  });

  test(
    "unreadable files are left out and the list still answers; an older file's " + "title is its first prompt",
    async () => {
      using m = machine();
      const sessions = sessionsOf(m.home);
      const good = storedSession(sessions, m.root, "the good one", new Date(Date.UTC(2026, 0, 2)));
      const folder = sessionFolder(sessions, m.root);
      writeFileSync(join(folder, "20260101-000000-0000aaaa.jsonl"), "garbage\n");
      writeFileSync(
        join(folder, "20260101-000000-0000bbbb.jsonl"),
        `${JSON.stringify({ t: "x", type: "user", prompt: "no start", content: [] })}\n`,
      );
      writeFileSync(join(folder, "20260101-000000-0000cccc.jsonl"), "");
      mkdirSync(join(folder, "20260101-000000-0000dddd.jsonl"));
      // Format 1 (before titles): the first prompt names it.
      const old = "20251201-101010-0000eeee";
      writeFileSync(
        join(folder, `${old}.jsonl`),
        [
          {
            t: "2025-12-01T10:10:10Z",
            type: "start",
            format: 1,
            sessionId: old,
            root: m.root,
            version: "0.16.0",
            model: "claude-sonnet-5",
            mode: "build",
          },
          {
            t: "2025-12-01T10:10:11Z",
            type: "user",
            prompt: "rename\tthe\nmodule",
            content: [{ type: "text", text: "rename\tthe\nmodule" }],
          },
          {
            t: "2025-12-01T10:10:12Z",
            type: "assistant",
            step: 1,
            stopReason: "end_turn",
            content: [{ type: "text", text: "Done." }],
            usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 },
          },
        ]
          .map((record) => JSON.stringify(record))
          .join("\n") + "\n",
      );
      utimesSync(join(folder, `${old}.jsonl`), new Date(Date.UTC(2026, 0, 1)), new Date(Date.UTC(2026, 0, 1)));
      await using h = m.editor();
      await h.initialize();
      const listed = await h.agent.request(acp.methods.agent.session.list, {});
      expect(listed.sessions.map((s) => [s.sessionId, s.title])).toEqual([
        [good, "the good one"],
        [old, "rename the module"],
      ]);
    },
  );

  test(
    "the index is only a cache: made 0600, rebuilt when damaged, brought up to date " + "when a file changes or goes",
    async () => {
      using m = machine();
      const sessions = sessionsOf(m.home);
      const a = storedSession(sessions, m.root, "first", new Date(Date.UTC(2026, 0, 1)));
      const b = storedSession(sessions, m.root, "second", new Date(Date.UTC(2026, 0, 2)));
      await using h = m.editor();
      await h.initialize();
      const list = async () =>
        (await h.agent.request(acp.methods.agent.session.list, {})).sessions.map((s) => [
          s.sessionId,
          s.title,
          s.updatedAt,
        ]);
      expect((await list()).map(([id]) => id)).toEqual([b, a]);
      const index = join(sessions, "index.sqlite");
      expect(statSync(index).mode & 0o777).toBe(0o600);
      // Damaged: garbage where the database was.
      writeFileSync(index, "this is not a database, it was overwritten".repeat(100));
      expect((await list()).map(([id]) => id)).toEqual([b, a]);
      expect(readFileSync(index).subarray(0, 15).toString()).toBe("SQLite format 3");
      // A file that changed (a new turn) is read again; a file that is gone leaves the list.
      const fileA = findSessionFile(sessions, a) as string;
      appendFileSync(fileA, `${JSON.stringify({ t: "x", type: "end", stopReason: "done", steps: 1 })}\n`);
      utimesSync(fileA, new Date(Date.UTC(2026, 0, 3)), new Date(Date.UTC(2026, 0, 3)));
      expect(await list()).toEqual([
        [a, "first", "2026-01-03T00:00:00.000Z"],
        [b, "second", "2026-01-02T00:00:00.000Z"],
      ]);
      rmSync(findSessionFile(sessions, b) as string);
      expect((await list()).map(([id]) => id)).toEqual([a]);
    },
  );
});

describe("titles", () => {
  test(
    "the first prompt names the session: one visible line of at most 80 characters, " +
      "in the file, the list and a load; updatedAt after each turn",
    async () => {
      using m = machine();
      await using h = m.editor({ models: [new FakeModelClient([fake.text("one"), fake.text("two")])] });
      await h.initialize();
      const { sessionId } = await h.newSession();
      const prompt = `Fix\tthe\nlogin\u202E bug ${"and then some more words ".repeat(6)}`;
      await h.prompt(sessionId, prompt);
      const infos = () => ofKind(h.updatesOf(sessionId), "session_info_update");
      const [titled, time] = infos();
      const title = titled?.title as string;
      expect(title.startsWith("Fix the login⟨U+202E⟩ bug and then some more words")).toBe(true);
      expect([...title].length).toBe(80);
      expect(title.endsWith("…")).toBe(true);
      expect(title).not.toContain("\n");
      expect(time).toEqual({ sessionUpdate: "session_info_update", updatedAt: expect.any(String) });
      expect(Number.isNaN(Date.parse(time?.updatedAt as string))).toBe(false);
      // The title comes first, before the answer; the time after the turn.
      const kinds = h.updatesOf(sessionId).map((u) => u.sessionUpdate);
      expect(kinds.indexOf("session_info_update")).toBeLessThan(kinds.indexOf("agent_message_chunk"));
      expect(kinds.at(-1)).toBe("session_info_update");

      await h.prompt(sessionId, "a second prompt");
      expect(infos().map((u) => Object.keys(u).sort().join(","))).toEqual([
        "sessionUpdate,title",
        "sessionUpdate,updatedAt",
        "sessionUpdate,updatedAt",
      ]);
      const file = findSessionFile(sessionsOf(m.home), sessionId) as string;
      const records = readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string; title?: string });
      expect(records.filter((r) => r.type === "title")).toEqual([
        { t: expect.any(String), type: "title", title } as never,
      ]);
      expect((await h.agent.request(acp.methods.agent.session.list, {})).sessions[0]?.title).toBe(title);
      await h.close();
      await using again = m.editor();
      await again.initialize();
      const { replayed } = await load(again, sessionId);
      expect(ofKind(replayed, "session_info_update")).toEqual([{ sessionUpdate: "session_info_update", title }]);
    },
  );

  test("a title in the file is shown as one visible line whatever wrote it (list and load)", async () => {
    using m = machine();
    const folder = sessionFolder(sessionsOf(m.home), m.root);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const id = "20260101-000000-0000abcd";
    const records = [
      { t: "x", type: "start", format: 2, sessionId: id, root: m.root, version: "0", model: "m", mode: "build" },
      { t: "x", type: "user", prompt: "hi", content: [{ type: "text", text: "hi" }] },
      { t: "x", type: "title", title: `evil\u202Etitle\nsecond line\u001b[31m${"x".repeat(200)}` },
    ];
    writeFileSync(join(folder, `${id}.jsonl`), `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
    await using h = m.editor();
    await h.initialize();
    const listed = (await h.agent.request(acp.methods.agent.session.list, {})).sessions[0]?.title as string;
    expect(listed.startsWith("evil⟨U+202E⟩title second line⟨U+001B⟩[31mxxx")).toBe(true);
    expect([...listed].length).toBe(80);
    const { replayed } = await load(h, id);
    expect(ofKind(replayed, "session_info_update")).toEqual([{ sessionUpdate: "session_info_update", title: listed }]);
  });
});

describe("session/close", () => {
  test("stops the running command (its process gone), closes the runtime, and the id " +
    "is unknown afterwards", async () => {
    using m = machine();
    await using h = m.editor({
      models: [new FakeModelClient([fake.toolCall("bash", { command: "sleep 60" }, { id: "toolu_sleep" })])],
    });
    await h.initialize();
    const { sessionId } = await h.newSession();
    const turn = h.prompt(sessionId, "sleep");
    await h.waitFor((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "toolu_sleep");
    await waitFor(() => running(["sleep", "60"]).length > 0);
    const started = Date.now();
    expect(await h.agent.request(acp.methods.agent.session.close, { sessionId })).toEqual({});
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(running(["sleep", "60"])).toEqual([]);
    expect((await turn).stopReason).toBe("cancelled");
    expect((await rejection(h.prompt(sessionId, "again"))).code).toBe(-32002);
    expect(
      (await rejection(h.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" }))).code,
    ).toBe(-32002);
    // A second close: -32002 on the wire (the SDK's client takes it as done).
    expect(await h.agent.request(acp.methods.agent.session.close, { sessionId })).toEqual({});
    expect(lastErrorCode(h.lines)).toBe(-32002);
    // Its lock is gone with it: another editor may continue it.
    await using other = m.editor();
    await other.initialize();
    expect(messageText((await load(other, sessionId)).replayed)).toContain("Garuda: $ sleep 60 cancelled.");
  }, 30_000);
});

describe("session/delete", () => {
  test("removes the session's file and lock for good; a running session is closed first", async () => {
    using m = machine();
    await using h = m.editor({
      models: [
        new FakeModelClient([fake.text("kept"), fake.toolCall("bash", { command: "sleep 61" }, { id: "toolu_sleep" })]),
      ],
    });
    await h.initialize();
    const { sessionId: idle } = await h.newSession();
    await h.prompt(idle, "one to delete");
    const file = findSessionFile(sessionsOf(m.home), idle) as string;
    expect(readdirSync(dirname(file)).sort()).toEqual([basename(file), basename(file).replace(".jsonl", ".lock")]);
    expect(await h.agent.request(acp.methods.agent.session.delete, { sessionId: idle })).toEqual({});
    expect(readdirSync(dirname(file))).toEqual([]);
    expect((await h.agent.request(acp.methods.agent.session.list, {})).sessions).toEqual([]);
    expect((await rejection(load(h, idle))).code).toBe(-32002);
    await h.agent.request(acp.methods.agent.session.delete, { sessionId: idle });
    expect(lastErrorCode(h.lines)).toBe(-32002);

    const { sessionId: busy } = await h.newSession();
    const turn = h.prompt(busy, "sleep");
    await waitFor(() => running(["sleep", "61"]).length > 0);
    expect(await h.agent.request(acp.methods.agent.session.delete, { sessionId: busy })).toEqual({});
    expect(running(["sleep", "61"])).toEqual([]);
    expect((await turn).stopReason).toBe("cancelled");
    expect(findSessionFile(sessionsOf(m.home), busy)).toBeUndefined();
  }, 30_000);
});

describe("ids, folders and locks", () => {
  test("an id that is not a session id is refused before any path is made of it", async () => {
    using m = machine();
    // A session file planted outside the sessions folder, where a traversal would reach it.
    const victim = join(m.home, ".garuda", "victim");
    const planted = `${victim}.jsonl`;
    const start = {
      t: "x",
      type: "start",
      format: 2,
      sessionId: "v",
      root: m.root,
      version: "0",
      model: "m",
      mode: "build",
    };
    writeFileSync(planted, `${JSON.stringify(start)}\n`);
    mkdirSync(sessionFolder(sessionsOf(m.home), m.root), { recursive: true });
    await using h = m.editor();
    await h.initialize();
    const folderName = basename(sessionFolder(sessionsOf(m.home), m.root));
    for (const id of [
      "../../victim",
      `../${folderName}/../../victim`,
      planted.replace(/\.jsonl$/, ""),
      "20260101-000000-ABCD",
      "20260101-000000-abcd/../../../victim",
      "",
    ]) {
      for (const method of [acp.methods.agent.session.load, acp.methods.agent.session.resume] as const) {
        const error = await rejection(h.agent.request(method, { sessionId: id, cwd: m.root, mcpServers: [] }));
        expect(error.code).toBe(-32602);
        expect(error.message).toContain("is not a Garuda session id");
      }
      expect((await rejection(h.agent.request(acp.methods.agent.session.delete, { sessionId: id }))).code).toBe(-32602);
    }
    expect(existsSync(planted)).toBe(true);
    expect(existsSync(`${victim}.lock`)).toBe(false);
  });

  test("a session loads only in its own project folder; the error names both", async () => {
    using m = machine();
    const other = makeTempDir("garuda-history-other-");
    try {
      await using h = m.editor({ models: [new FakeModelClient([fake.text("hi")])] });
      await h.initialize();
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "hello");
      await h.close();
      await using again = m.editor();
      await again.initialize();
      for (const method of [acp.methods.agent.session.load, acp.methods.agent.session.resume] as const) {
        const error = await rejection(again.agent.request(method, { sessionId, cwd: other, mcpServers: [] }));
        expect(error.code).toBe(-32602);
        expect(error.message).toContain(`belongs to the project ${m.root}, not to ${other}`);
      }
      const relative = await rejection(
        again.agent.request(acp.methods.agent.session.load, { sessionId, cwd: "relative", mcpServers: [] }),
      );
      expect(relative.code).toBe(-32602);
      // Nothing was locked by the refusals: the right folder loads.
      expect(messageText((await load(again, sessionId)).replayed)).toBe("hi");
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  test(
    "a session another Garuda is writing is refused with a clear error, for the " +
      "editor and for the terminal's --resume",
    async () => {
      using m = machine();
      await using writer = m.editor({ models: [new FakeModelClient([fake.text("mine"), fake.text("still mine")])] });
      await writer.initialize();
      const { sessionId } = await writer.newSession();
      await writer.prompt(sessionId, "hold this");

      await using reader = m.editor();
      await reader.initialize();
      const before = reader.updates.length;
      for (const method of [acp.methods.agent.session.load, acp.methods.agent.session.resume] as const) {
        const error = await rejection(reader.agent.request(method, { sessionId, cwd: m.root, mcpServers: [] }));
        expect(error.code).toBe(-32603);
        expect(error.message).toContain(`session ${sessionId} is open in another Garuda now`);
      }
      expect(
        (await rejection(reader.agent.request(acp.methods.agent.session.delete, { sessionId }))).message,
      ).toContain("so it is not deleted");
      expect(reader.updates.length).toBe(before);
      const file = findSessionFile(sessionsOf(m.home), sessionId) as string;
      expect(() => testRuntime({ home: m.home, root: m.root, resume: file })).toThrow(SessionBusyError);
      // The writer goes on; once it closes the session, the other may load it.
      expect((await writer.prompt(sessionId, "again")).stopReason).toBe("end_turn");
      await writer.agent.request(acp.methods.agent.session.close, { sessionId });
      expect(messageText((await load(reader, sessionId)).replayed)).toBe("minestill mine");
    },
  );
});

describe("damaged files", () => {
  /** A session made by an editor, then shut down; its file. */
  async function recorded(m: ReturnType<typeof machine>): Promise<{ sessionId: string; file: string }> {
    await using h = m.editor({
      models: [new FakeModelClient([fake.text("first answer"), fake.text("second answer")])],
    });
    await h.initialize();
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "first");
    await h.prompt(sessionId, "second");
    return { sessionId, file: findSessionFile(sessionsOf(m.home), sessionId) as string };
  }

  for (const [name, damage, says] of [
    [
      "a torn last line (kill -9 in the middle of a write)",
      (file: string) =>
        appendFileSync(file, '{"t":"2026-01-01T00:00:00Z","type":"assistant","step":1,"content":[{"type":"te'),
      "the last line is incomplete",
    ],
    [
      "a garbage line in the middle",
      (file: string) => {
        const lines = readFileSync(file, "utf8").split("\n");
        lines.splice(3, 0, "}}} not json {{{");
        writeFileSync(file, lines.join("\n"));
      },
      "the line is not valid JSON",
    ],
    [
      "a record of a kind this version does not know, and an incomplete one",
      (file: string) => {
        const unknown = JSON.stringify({ t: "x", type: "hologram", data: 1 });
        const incomplete = JSON.stringify({ t: "x", type: "user", prompt: "no content" });
        appendFileSync(file, `${unknown}\n${incomplete}\n`);
      },
      'does not know ("hologram")',
    ],
  ] as const) {
    test(`${name}: loads what it can and says what it skipped`, async () => {
      using m = machine();
      const { sessionId, file } = await recorded(m);
      damage(file);
      await using h = m.editor({ models: [new FakeModelClient([fake.text("third answer")])] });
      await h.initialize();
      const listed = await h.agent.request(acp.methods.agent.session.list, {});
      expect(listed.sessions.map((s) => s.sessionId)).toEqual([sessionId]);
      const { replayed } = await load(h, sessionId);
      const text = messageText(replayed);
      expect(text).toContain("first answer");
      expect(text).toContain("second answer");
      expect(text).toMatch(
        /Garuda: \d lines? of the session file could not be read and (was|were) skipped \(line \d+: /,
      );
      expect(text).toContain(says);
      // The conversation goes on, without the same line a second time.
      expect((await h.prompt(sessionId, "third")).stopReason).toBe("end_turn");
      expect(messageText(h.updatesOf(sessionId)).split("could not be read").length).toBe(2);
    });
  }

  test(
    "an older format (no titles, notices or prompt blocks; a result without status " + "or title) loads what it has",
    async () => {
      using m = machine();
      const folder = sessionFolder(sessionsOf(m.home), m.root);
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      const id = "20251201-101010-0000ffff";
      const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheCreationTokens: 0 };
      writeFileSync(
        join(folder, `${id}.jsonl`),
        [
          {
            t: "2025-12-01T10:10:10Z",
            type: "start",
            format: 1,
            sessionId: id,
            root: m.root,
            version: "0.16.0",
            model: "claude-sonnet-5",
            mode: "plan",
          },
          {
            t: "2025-12-01T10:10:11Z",
            type: "user",
            prompt: "what is in a.txt?",
            content: [{ type: "text", text: "what is in a.txt?" }],
          },
          {
            t: "2025-12-01T10:10:12Z",
            type: "assistant",
            step: 1,
            stopReason: "tool_use",
            content: [{ type: "tool_use", id: "toolu_old", name: "read_file", input: { path: "a.txt" } }],
            usage,
          },
          {
            t: "2025-12-01T10:10:13Z",
            type: "tool_results",
            results: [{ callId: "toolu_old", content: "alpha", isError: false }],
          },
          {
            t: "2025-12-01T10:10:14Z",
            type: "assistant",
            step: 2,
            stopReason: "end_turn",
            content: [{ type: "text", text: "It says alpha." }],
          },
          { t: "2025-12-01T10:10:15Z", type: "end", stopReason: "done", steps: 2 },
        ]
          .map((record) => JSON.stringify(record))
          .join("\n") + "\n",
      );
      const next = new FakeModelClient([fake.text("Still alpha.")]);
      await using h = m.editor({ models: [next] });
      await h.initialize();
      const { response, replayed } = await load(h, id);
      expect(response.modes?.currentModeId).toBe("plan");
      expect(
        replayed.filter((u) => u.sessionUpdate !== "available_commands_update").map((u) => u.sessionUpdate),
      ).toEqual(["user_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"]);
      expect(ofKind(replayed, "tool_call")[0]).toMatchObject({
        toolCallId: "toolu_old",
        title: "read_file",
        kind: "read",
        rawInput: { path: "a.txt" },
      });
      expect(ofKind(replayed, "tool_call_update")[0]?.status).toBe("completed");
      expect(messageText(replayed)).toBe("It says alpha.");
      expect((await h.prompt(id, "and now?")).stopReason).toBe("end_turn");
      expect(JSON.stringify(next.requests[0]?.messages)).toContain("It says alpha.");
      // The next prompt names the older session from its first prompt.
      expect((await h.agent.request(acp.methods.agent.session.list, {})).sessions[0]?.title).toBe("what is in a.txt?");
    },
  );
});

describe("one store for every front end", () => {
  test(
    "a session started in the editor is the terminal's `garuda --resume <id>`: " +
      "listed for its folder, and continued with its turns",
    async () => {
      using m = machine();
      await using h = m.editor({ models: [new FakeModelClient([fake.text("The answer is 42.")])] });
      await h.initialize();
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "what is the answer?");
      await h.close();

      const found = findSession(chatSessions(sessionsOf(m.home), m.root), sessionId);
      if (!found || found === "ambiguous") throw new Error("the chat does not find the editor's session");
      const details = sessionDetails(found);
      expect(details.turns.map((t) => t.prompt)).toEqual(["what is the answer?"]);
      await using t = testRuntime({ home: m.home, root: m.root, resume: found.file, turns: [fake.text("Still 42.")] });
      await turn(t.runtime, "sure?");
      expect(JSON.stringify(t.model.requests[0]?.messages)).toContain("The answer is 42.");
      expect(t.runtime.session?.id).toBe(sessionId);
    },
  );
});
