// garuda acp end to end in one process: the SDK's client drives Garuda's ACP server over NDJSON
// streams; each session's Runtime comes from prepareRuntime (the real permission engine,
// sandbox, tools and audit log) with a FakeModelClient, in a temporary root and home.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { builtinCommands } from "../../src/acp/commands.ts";
import { z } from "zod";
import { protocolOutput, type WriteTarget } from "../../src/cli/acpCommand.ts";
import { HIDDEN_WARNING } from "../../src/cli/approver.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { ProviderKeys } from "../../src/config/providerKeys.ts";
import { createAnthropicClient } from "../../src/model/anthropic.ts";
import { prepareRuntime } from "../../src/compose/prepare.ts";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { ModelError } from "../../src/model/types.ts";
import { createPermissionEngine } from "../../src/permission/engine.ts";
import { Runtime } from "../../src/runtime/runtime.ts";
import type { Tool } from "../../src/tools/types.ts";
import { VERSION } from "../../src/version.ts";
import { fakeExecutor, MODEL } from "../support/runtimeHelpers.ts";
import {
  BRIDGE,
  contentText,
  messageText,
  ofKind,
  realPrepare,
  select,
  setUpHome,
  startHarness,
  testProbe,
} from "../support/acpHarness.ts";
import { mockResponses, startMockAnthropic } from "../support/mockAnthropic.ts";
import { BUN, FIXTURE_SERVER } from "../support/extensionHarness.ts";
import { running, waitFor } from "../support/processes.ts";
import { makeTempDir } from "../support/tempDir.ts";

/** The user message text of a model request (the last user message). */
function userText(model: FakeModelClient, index = 0): string {
  const request = model.requests[index];
  const user = request?.messages.findLast((m) => m.role === "user");
  return (user?.content ?? []).map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

const rejection = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error as acp.RequestError;
  }
  throw new Error("expected an error");
};

describe("initialize", () => {
  test("protocol version 1 and only the capabilities that are on (a missing field is off in ACP)", async () => {
    await using h = startHarness();
    const init = await h.initialize({ fs: { readTextFile: true, writeTextFile: true }, terminal: true });
    // `unknown`: session/fork is in the SDK's unstable schema only.
    expect(init as unknown).toEqual({
      protocolVersion: 1,
      agentInfo: { name: "garuda", title: "Garuda", version: expect.any(String) },
      agentCapabilities: {
        promptCapabilities: { embeddedContext: true, image: true },
        mcpCapabilities: { http: true },
        loadSession: true,
        sessionCapabilities: { list: {}, resume: {}, fork: {}, close: {}, delete: {}, additionalDirectories: {} },
        auth: { logout: {} },
      },
      authMethods: [],
      // The steering extension (test/acp/steering.test.ts), where claude-agent-acp and codex-acp advertise it.
      _meta: { steering: { supported: true }, rewind: { supported: true } },
    });
    expect(init.agentInfo?.version).toBe(VERSION);
    // On the wire too: no field that is false (agent-shell lists a present field as supported).
    const line = h.lines.find((l) => l.includes('"agentCapabilities"')) ?? "";
    expect(line).not.toContain("false");
    for (const off of ["sse", "audio"]) expect(line).not.toContain(off);
    // Only fields the stable schema defines, at every level (no unstable archive, title …), but for
    // session/fork, which Garuda serves (issue 33) and is in the unstable schema.
    const schemaOf = (name: string) =>
      JSON.parse(
        readFileSync(join(import.meta.dir, "../../node_modules/@agentclientprotocol/sdk/schema/v1", name), "utf8"),
      ).$defs;
    const schema = schemaOf("schema.json");
    expect("fork" in schema.SessionCapabilities.properties).toBe(false);
    expect("fork" in schemaOf("schema.unstable.json").SessionCapabilities.properties).toBe(true);
    const sent = (JSON.parse(line) as { result: acp.InitializeResponse }).result.agentCapabilities ?? {};
    expect(Object.keys(sent).every((key) => key in schema.AgentCapabilities.properties)).toBe(true);
    expect(
      Object.keys(sent.sessionCapabilities ?? {}).every(
        (key) => key in schema.SessionCapabilities.properties || key === "fork",
      ),
    ).toBe(true);
    for (const value of Object.values(sent.sessionCapabilities ?? {})) expect(value).toEqual({});
  });

  test(
    "without a sessions folder (no history): no loadSession, and of " +
      "sessionCapabilities only close and additionalDirectories",
    async () => {
      await using h = startHarness({ server: { sessionsDir: undefined } });
      const init = await h.initialize();
      expect(init.agentCapabilities).toEqual({
        promptCapabilities: { embeddedContext: true, image: true },
        mcpCapabilities: { http: true },
        sessionCapabilities: { close: {}, additionalDirectories: {} },
        auth: { logout: {} },
      });
    },
  );

  test(
    "Terminal Auth when the editor can run it: the standard form, and the older " + "_meta form with its command",
    async () => {
      await using h = startHarness();
      const method = {
        type: "terminal",
        id: "garuda-setup",
        name: "Set up Garuda",
        description: "Choose a model and enter its API key.",
        args: ["setup"],
      };
      expect((await h.initialize({ auth: { terminal: true } })).authMethods).toEqual([method]);
      expect((await h.initialize({ _meta: { "terminal-auth": true } })).authMethods).toEqual([
        {
          ...method,
          _meta: { "terminal-auth": { command: "/opt/garuda/garuda", args: ["acp", "setup"], label: "Set up Garuda" } },
        },
      ]);
      expect((await h.initialize({ auth: { terminal: false } })).authMethods).toEqual([]);
      expect(await h.agent.request(acp.methods.agent.authenticate, { methodId: "garuda-setup" })).toEqual({});
    },
  );

  test("no Terminal Auth on native Windows, and session/new says to use WSL", async () => {
    await using h = startHarness({
      server: { platform: "win32", unsupported: "Garuda runs on Linux and macOS. On Windows, run it inside WSL" },
    });
    expect((await h.initialize({ auth: { terminal: true } })).authMethods).toEqual([]);
    const error = await rejection(h.newSession());
    expect(error.code).toBe(-32603);
    expect(error.message).toContain("WSL");
  });
});

describe("session/new", () => {
  test("a relative or missing cwd fails with a clear error", async () => {
    await using h = startHarness();
    await h.initialize();
    const relative = await rejection(h.newSession({ cwd: "relative/dir" }));
    expect(relative.code).toBe(-32602);
    expect(relative.message).toContain('cwd must be an absolute path to an existing folder, not "relative/dir"');
    const missing = await rejection(h.newSession({ cwd: join(h.root, "nope") }));
    expect(missing.code).toBe(-32602);
  });

  test(
    "no model is 'auth required' with the message; a broken models.json is a plain " + "error with its message",
    async () => {
      await using h = startHarness({ setUp: false });
      await h.initialize();
      const noModel = await rejection(h.newSession());
      expect(noModel.code).toBe(-32000);
      expect(noModel.message).toContain("Garuda has no model");
      expect(noModel.message).toContain("garuda setup");

      const paths = garudaPaths(h.home);
      mkdirSync(paths.dir, { recursive: true });
      writeFileSync(paths.models, '{"default": ');
      const broken = await rejection(h.newSession());
      expect(broken.code).toBe(-32603);
      expect(broken.message).toContain(paths.models);

      // Read again for each session: after setup the next session/new works on the same connection.
      setUpHome(h.home);
      const session = await h.newSession();
      expect(session.sessionId).toBeString();
    },
  );

  test("modes, and the / menu after the response", async () => {
    await using h = startHarness();
    await h.initialize();
    const session = await h.newSession();
    expect(session.modes).toEqual({
      currentModeId: "build",
      availableModes: [
        { id: "build", name: "Build", description: "Edits ask first; commands run in the sandbox." },
        { id: "plan", name: "Plan", description: "Reads and plans. No edits; commands cannot write the project." },
      ],
    });
    const update = await h.waitFor((u) => u.sessionUpdate === "available_commands_update");
    // The built-in commands that work in the editor, before any custom command or skill.
    expect(update).toEqual({ sessionUpdate: "available_commands_update", availableCommands: builtinCommands() });
    expect(builtinCommands().map((c) => c.name)).toEqual(["undo", "diff", "compact", "permissions", "mode", "model"]);
    // The update came after the session/new response.
    const responseLine = h.lines.findIndex((line) => line.includes(session.sessionId) && line.includes('"result"'));
    const updateLine = h.lines.findIndex((line) => line.includes("available_commands_update"));
    expect(responseLine).toBeGreaterThanOrEqual(0);
    expect(updateLine).toBeGreaterThan(responseLine);
  });
});

describe("a prompt turn", () => {
  test("streams agent_message_chunks and thoughts, and returns end_turn", async () => {
    const model = new FakeModelClient([
      fake.thinking("Let me think.", "Hello from Garuda, in pieces.", "sig", { chunks: 4 }),
    ]);
    await using h = startHarness({ models: [model] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    expect(await h.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
    const updates = h.updatesOf(sessionId);
    const chunks = ofKind(updates, "agent_message_chunk");
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    expect(messageText(updates)).toContain("Hello from Garuda, in pieces.");
    expect(
      ofKind(updates, "agent_thought_chunk")
        .map((u) => (u.content.type === "text" ? u.content.text : ""))
        .join(""),
    ).toBe("Let me think.");
    expect(userText(model)).toContain("hi");
  });

  test(
    "a tool call: tool_call (title, kind, location, rawInput) then tool_call_update " + "completed with the result",
    async () => {
      const model = new FakeModelClient([
        fake.toolCall("read_file", { path: "notes.txt" }, { id: "toolu_read_1" }),
        fake.text("It says 42."),
      ]);
      await using h = startHarness({ models: [model], files: { "notes.txt": "the answer is 42\n" } });
      await h.initialize();
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "read the notes")).stopReason).toBe("end_turn");
      const updates = h.updatesOf(sessionId);
      const call = ofKind(updates, "tool_call")[0];
      expect(call).toMatchObject({
        toolCallId: "toolu_read_1",
        title: "Read notes.txt",
        kind: "read",
        status: "pending",
        rawInput: { path: "notes.txt" },
      });
      expect(call?.locations).toEqual([{ path: join(h.root, "notes.txt") }]);
      const done = ofKind(updates, "tool_call_update").find(
        (u) => u.toolCallId === "toolu_read_1" && u.status === "completed",
      );
      expect(contentText(done?.content)).toContain("the answer is 42");
      expect(updates.indexOf(call as acp.SessionUpdate)).toBeLessThan(updates.indexOf(done as acp.SessionUpdate));
      expect(h.permissions).toEqual([]);
    },
  );

  test("output keeps its lines in a Markdown editor: a read as a fenced block in the " +
    "file's language, a command's output fenced", async () => {
    const source = "# not a heading\nconst a = 1; // *not* italic\nconst fence = '```';\n";
    const model = new FakeModelClient([
      fake.toolCall("read_file", { path: "a.ts" }, { id: "toolu_read" }),
      fake.toolCall("bash", { command: "printf '* one\\n* two\\n'" }, { id: "toolu_printf" }),
      fake.text("Read **it**.\nDone."),
    ]);
    await using h = startHarness({ models: [model], files: { "a.ts": source } });
    await h.initialize();
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "look")).stopReason).toBe("end_turn");
    const updates = ofKind(h.updatesOf(sessionId), "tool_call_update");
    const read = contentText(updates.find((u) => u.toolCallId === "toolu_read" && u.status === "completed")?.content);
    expect(read.startsWith("````typescript\n")).toBe(true);
    expect(read.endsWith("\n````")).toBe(true);
    expect(read).toContain("     2\tconst a = 1; // *not* italic\n");
    const printed = contentText(
      updates.find((u) => u.toolCallId === "toolu_printf" && u.status === "completed")?.content,
    );
    expect(printed).toStartWith("```\n");
    expect(printed).toContain("* one\n* two");
    expect(printed).toEndWith("\n```");
    // The model's answer (prose) is sent as it is.
    expect(messageText(h.updatesOf(sessionId))).toContain("Read **it**.\nDone.");
  }, 30_000);

  test("a silent command shows as running (in_progress) while it runs, before any " +
    "output, with no question", async () => {
    const model = new FakeModelClient([
      fake.toolCall("bash", { command: "sleep 2" }, { id: "toolu_quiet" }),
      fake.text("slept"),
    ]);
    await using h = startHarness({ models: [model] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    const turn = h.prompt(sessionId, "sleep");
    const started = await h.waitFor(
      (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "toolu_quiet" && u.status === "in_progress",
    );
    expect(started).toEqual({ sessionUpdate: "tool_call_update", toolCallId: "toolu_quiet", status: "in_progress" });
    await waitFor(() => running(["sleep", "2"]).length > 0);
    // Still running: nothing else about the call yet.
    expect(ofKind(h.updatesOf(sessionId), "tool_call_update").filter((u) => u.toolCallId === "toolu_quiet")).toEqual([
      started as Extract<acp.SessionUpdate, { sessionUpdate: "tool_call_update" }>,
    ]);
    expect((await turn).stopReason).toBe("end_turn");
    expect(h.permissions).toEqual([]);
    expect(
      ofKind(h.updatesOf(sessionId), "tool_call_update")
        .filter((u) => u.toolCallId === "toolu_quiet")
        .map((u) => u.status),
    ).toEqual(["in_progress", "completed"]);
  }, 30_000);

  test("stop reasons: refusal, max_tokens and a step limit map to ACP's", async () => {
    const refusal = new FakeModelClient([fake.text("no", { stopReason: "refusal" })]);
    const cut = new FakeModelClient(Array.from({ length: 4 }, () => fake.text("cut", { stopReason: "max_tokens" })));
    const limited = new FakeModelClient([fake.toolCall("read_file", { path: "notes.txt" }), fake.text("never")]);
    await using h = startHarness({ models: [refusal, cut, limited], files: { "notes.txt": "n\n" } });
    await h.initialize();
    expect((await h.prompt((await h.newSession()).sessionId, "a")).stopReason).toBe("refusal");
    expect((await h.prompt((await h.newSession()).sessionId, "b")).stopReason).toBe("max_tokens");
    writeFileSync(garudaPaths(h.home).policy, JSON.stringify({ limits: { maxSteps: 1 } }));
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "c")).stopReason).toBe("max_turn_requests");
    // The editor's user is told why, and what helps.
    expect(messageText(h.updatesOf(sessionId))).toContain(
      "Garuda: The turn reached its step limit. Say “go on” to continue.",
    );
  });

  test("a session past its token budget says so at every prompt, without calling the model", async () => {
    const model = new FakeModelClient([
      fake.text("first", { usage: { inputTokens: 900, outputTokens: 200 } }),
      fake.text("never"),
    ]);
    await using h = startHarness({ models: [model] });
    writeFileSync(garudaPaths(h.home).policy, JSON.stringify({ limits: { tokenBudget: 1000 } }));
    await h.initialize();
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "one")).stopReason).toBe("end_turn");
    expect((await h.prompt(sessionId, "two")).stopReason).toBe("max_turn_requests");
    expect(model.requests).toHaveLength(1);
    expect(messageText(h.updatesOf(sessionId))).toContain("Garuda: This session has used its token budget");
  });
});

describe("approvals", () => {
  test(
    "an edit asks with its own toolCallId, the three options, the ACP diff and the " +
      "hidden-character warning; once writes",
    async () => {
      const content = "safe\u202Etxt.exe\n";
      const model = new FakeModelClient([
        fake.toolCall("write_file", { path: "a.txt", content }, { id: "toolu_write_1" }),
        fake.text("Written."),
      ]);
      await using h = startHarness({ models: [model] });
      await h.initialize();
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "write it")).stopReason).toBe("end_turn");
      expect(h.permissions).toHaveLength(1);
      const asked = h.permissions[0] as acp.RequestPermissionRequest;
      expect(asked.sessionId).toBe(sessionId);
      expect(asked.toolCall.toolCallId).toBe("toolu_write_1");
      expect(asked.toolCall.title).toBe("Write a.txt");
      expect(asked.options).toEqual([
        { optionId: "once", name: "Allow once", kind: "allow_once" },
        { optionId: "session", name: "Allow all file writes for this session", kind: "allow_always" },
        { optionId: "deny", name: "Deny", kind: "reject_once" },
      ]);
      // One diff: the ACP diff, and a text part with only the warning, the line made visible and the scope.
      expect(asked.toolCall.content?.map((c) => c.type)).toEqual(["content", "diff"]);
      const diff = asked.toolCall.content?.find((c) => c.type === "diff");
      expect(diff).toEqual({ type: "diff", path: join(h.root, "a.txt"), oldText: null, newText: content });
      const text = contentText(asked.toolCall.content);
      expect(text).toBe(
        `${HIDDEN_WARNING}\n\n\`\`\`diff\n+safe⟨U+202E⟩txt.exe\n\`\`\`\n\n“Allow all ` +
          `file writes for this session” allows: \`write_file(./**)\``,
      );
      expect(readFileSync(join(h.root, "a.txt"), "utf8")).toBe(content);
      // Allowed, it runs, then it is done: running only after the answer.
      const statuses = ofKind(h.updatesOf(sessionId), "tool_call_update")
        .filter((u) => u.toolCallId === "toolu_write_1")
        .map((u) => u.status);
      expect(statuses).toEqual(["in_progress", "completed"]);
      const questionLine = h.lines.findIndex((l) => l.includes("session/request_permission"));
      const runningLine = h.lines.findIndex((l) => l.includes('"in_progress"') && l.includes("toolu_write_1"));
      expect(questionLine).toBeGreaterThanOrEqual(0);
      expect(runningLine).toBeGreaterThan(questionLine);
    },
  );

  test("an ordinary edit question carries its diff once: no diff lines in the text part", async () => {
    const model = new FakeModelClient([
      fake.toolCall("read_file", { path: "notes.txt" }),
      fake.toolCall("edit_file", { path: "notes.txt", old_string: "draft", new_string: "final" }, { id: "toolu_edit" }),
      fake.text("Done."),
    ]);
    await using h = startHarness({ models: [model], files: { "notes.txt": "a draft note\n" } });
    await h.initialize();
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "make it final")).stopReason).toBe("end_turn");
    const asked = h.permissions[0] as acp.RequestPermissionRequest;
    expect(asked.toolCall.content?.map((c) => c.type)).toEqual(["diff", "content"]);
    expect(contentText(asked.toolCall.content)).toBe("“Allow all edits for this session” allows: `edit_file(./**)`");
    expect(asked.options.find((o) => o.optionId === "session")?.name).toBe("Allow all edits for this session");
  });

  test("deny: no file, the call ends failed, and the model hears the denial", async () => {
    const model = new FakeModelClient([
      fake.toolCall("write_file", { path: "a.txt", content: "x" }, { id: "toolu_w" }),
      fake.text("OK, I will not."),
    ]);
    await using h = startHarness({ models: [model] });
    h.answer = () => select("deny");
    await h.initialize();
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "write")).stopReason).toBe("end_turn");
    expect(existsSync(join(h.root, "a.txt"))).toBe(false);
    const done = ofKind(h.updatesOf(sessionId), "tool_call_update").find((u) => u.toolCallId === "toolu_w");
    expect(done?.status).toBe("failed");
    expect(contentText(done?.content)).toContain("Permission denied");
    expect(JSON.stringify(model.requests[1]?.messages)).toContain("The user denied this");
  });

  for (const [name, answer] of [
    ["a cancelled answer", { outcome: { outcome: "cancelled" } }],
    ["an unknown option", select("allow-everything")],
  ] as const) {
    test(`${name} is a deny`, async () => {
      const model = new FakeModelClient([
        fake.toolCall("write_file", { path: "a.txt", content: "x" }),
        fake.text("fine"),
      ]);
      await using h = startHarness({ models: [model] });
      h.answer = () => answer as acp.RequestPermissionResponse;
      await h.initialize();
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "write")).stopReason).toBe("end_turn");
      expect(h.permissions).toHaveLength(1);
      expect(existsSync(join(h.root, "a.txt"))).toBe(false);
      expect(JSON.stringify(model.requests[1]?.messages)).toContain("Permission denied");
    });
  }

  test(
    "'Allow all edits for this session': every later edit in the project asks no " +
      "question; outside it, .git/ and secrets still ask or are refused",
    async () => {
      const outside = makeTempDir("garuda-acp-outside-");
      const model = new FakeModelClient([
        fake.toolCall("read_file", { path: "a.txt" }),
        fake.toolCall("edit_file", { path: "a.txt", old_string: "one", new_string: "two" }, { id: "toolu_first" }),
        fake.toolCall("read_file", { path: "src/b.txt" }),
        fake.toolCall("edit_file", { path: "src/b.txt", old_string: "b", new_string: "B" }, { id: "toolu_second" }),
        fake.toolCall("read_file", { path: join(outside, "c.txt") }, { id: "toolu_read_outside" }),
        fake.toolCall(
          "edit_file",
          { path: join(outside, "c.txt"), old_string: "c", new_string: "C" },
          { id: "toolu_outside" },
        ),
        fake.toolCall("write_file", { path: ".git/hooks/pre-commit", content: "#!/bin/sh\n" }, { id: "toolu_git" }),
        fake.toolCall("write_file", { path: ".env", content: "KEY=1\n" }, { id: "toolu_env" }),
        fake.text("done"),
      ]);
      await using h = startHarness({ models: [model], files: { "a.txt": "one\n" } });
      try {
        mkdirSync(join(h.root, "src"));
        writeFileSync(join(h.root, "src", "b.txt"), "b\n");
        mkdirSync(join(h.root, ".git", "hooks"), { recursive: true });
        writeFileSync(join(outside, "c.txt"), "c\n");
        const answers: Record<string, string> = { toolu_first: "session", toolu_read_outside: "once" };
        h.answer = (params) => select(answers[params.toolCall.toolCallId] ?? "deny");
        await h.initialize();
        const { sessionId } = await h.newSession();
        expect((await h.prompt(sessionId, "edit them")).stopReason).toBe("end_turn");
        // Asked about the first edit and about the read and the edit outside the project; never about the second edit.
        expect(h.permissions.map((p) => p.toolCall.toolCallId)).toEqual([
          "toolu_first",
          "toolu_read_outside",
          "toolu_outside",
        ]);
        expect(readFileSync(join(h.root, "a.txt"), "utf8")).toBe("two\n");
        expect(readFileSync(join(h.root, "src", "b.txt"), "utf8")).toBe("B\n");
        expect(readFileSync(join(outside, "c.txt"), "utf8")).toBe("c\n");
        expect(existsSync(join(h.root, ".git", "hooks", "pre-commit"))).toBe(false);
        expect(existsSync(join(h.root, ".env"))).toBe(false);
        const ends = ofKind(h.updatesOf(sessionId), "tool_call_update")
          .filter((u) => u.status === "failed")
          .map((u) => u.toolCallId);
        expect(ends).toEqual(["toolu_outside", "toolu_git", "toolu_env"]);
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    },
  );

  test("plan mode: an edit is denied with no question", async () => {
    const model = new FakeModelClient([
      fake.toolCall("write_file", { path: "a.txt", content: "x" }, { id: "toolu_plan" }),
      fake.text("Here is the plan."),
    ]);
    await using h = startHarness({ models: [model] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    expect(await h.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" })).toEqual({});
    expect((await h.prompt(sessionId, "edit it")).stopReason).toBe("end_turn");
    expect(h.permissions).toEqual([]);
    expect(existsSync(join(h.root, "a.txt"))).toBe(false);
    expect(ofKind(h.updatesOf(sessionId), "tool_call_update").find((u) => u.toolCallId === "toolu_plan")?.status).toBe(
      "failed",
    );
    expect(userText(model)).toContain("Plan mode is on");
    const unknown = await rejection(h.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "yolo" }));
    expect(unknown.code).toBe(-32602);
  });

  test(
    "a team policy that allows only plan mode: only plan is offered, and switching " +
      "to build is refused with the reason",
    async () => {
      await using h = startHarness();
      writeFileSync(join(h.home, "no-managed-policy.json"), JSON.stringify({ allowedModes: ["plan"] }));
      await h.initialize();
      const created = await h.agent.request(acp.methods.agent.session.new, { cwd: h.root, mcpServers: [] });
      expect(created.modes?.currentModeId).toBe("plan");
      expect(created.modes?.availableModes.map((mode) => mode.id)).toEqual(["plan"]);
      const refused = await rejection(
        h.agent.request(acp.methods.agent.session.setMode, { sessionId: created.sessionId, modeId: "build" }),
      );
      expect(refused.code).toBe(-32602);
      expect(refused.message).toContain("does not allow build mode, only plan");
    },
  );

  test("a consent that is not a tool call gets its own entry (the network allowlist of " +
    "a sandboxed command)", async () => {
    const model = new FakeModelClient([
      fake.toolCall("bash", { command: "curl -sS -m 20 http://garuda-test.invalid/ || true" }, { id: "toolu_curl" }),
      fake.text("The host is not allowed."),
    ]);
    await using h = startHarness({ models: [model] });
    h.answer = () => select("deny");
    await h.initialize();
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "fetch it")).stopReason).toBe("end_turn");
    expect(h.permissions).toHaveLength(1);
    const asked = h.permissions[0] as acp.RequestPermissionRequest;
    expect(asked.toolCall.toolCallId).toBe("garuda-question-1");
    expect(asked.toolCall.title).toBe("Network: garuda-test.invalid:80");
    expect(contentText(asked.toolCall.content)).toContain("the network allowlist");
    const updates = h.updatesOf(sessionId);
    const entry = ofKind(updates, "tool_call").find((u) => u.toolCallId === "garuda-question-1");
    expect(entry).toMatchObject({ kind: "other", status: "pending", title: "Network: garuda-test.invalid:80" });
    expect(ofKind(updates, "tool_call_update").find((u) => u.toolCallId === "garuda-question-1")?.status).toBe(
      "failed",
    );
    // The entry came before the question.
    const entryLine = h.lines.findIndex((l) => l.includes('"tool_call"') && l.includes("garuda-question-1"));
    const questionLine = h.lines.findIndex((l) => l.includes("session/request_permission"));
    expect(entryLine).toBeLessThan(questionLine);
  }, 60_000);
});

describe("cancel", () => {
  test(
    "during a question: deny at once, nothing written, the turn ends cancelled, and " + "the next prompt works",
    async () => {
      const model = new FakeModelClient([
        fake.toolCall("write_file", { path: "a.txt", content: "x" }, { id: "toolu_q" }),
        fake.text("after the stop"),
      ]);
      await using h = startHarness({ models: [model] });
      let asked: () => void = () => {};
      const questionOpen = new Promise<void>((resolve) => {
        asked = resolve;
      });
      // An editor that never answers: the cancel must still work.
      h.answer = () => {
        asked();
        return new Promise(() => {});
      };
      await h.initialize();
      const { sessionId } = await h.newSession();
      const turn = h.prompt(sessionId, "write");
      await questionOpen;
      await h.agent.notify(acp.methods.agent.session.cancel, { sessionId });
      expect(await turn).toEqual({ stopReason: "cancelled" });
      expect(existsSync(join(h.root, "a.txt"))).toBe(false);
      const updates = h.updatesOf(sessionId);
      expect(ofKind(updates, "tool_call_update").find((u) => u.toolCallId === "toolu_q")?.status).toBe("failed");
      expect(messageText(updates)).toContain("Garuda: Write a.txt cancelled.");

      h.answer = () => select("once");
      expect((await h.prompt(sessionId, "go on")).stopReason).toBe("end_turn");
      expect(messageText(h.updatesOf(sessionId))).toContain("after the stop");
    },
  );

  test("during a command: the process group is killed, the call ends failed and is " +
    "named, and the prompt returns cancelled", async () => {
    const model = new FakeModelClient([
      fake.toolCall("bash", { command: "sleep 60" }, { id: "toolu_sleep" }),
      fake.text("next turn"),
    ]);
    await using h = startHarness({ models: [model] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    const turn = h.prompt(sessionId, "sleep");
    await h.waitFor((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "toolu_sleep");
    await waitFor(() => running(["sleep", "60"]).length > 0);
    const started = Date.now();
    await h.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect(await turn).toEqual({ stopReason: "cancelled" });
    expect(Date.now() - started).toBeLessThan(3_500);
    expect(running(["sleep", "60"])).toEqual([]);
    const updates = h.updatesOf(sessionId);
    const end = ofKind(updates, "tool_call_update").filter(
      (u) => u.toolCallId === "toolu_sleep" && (u.status === "failed" || u.status === "completed"),
    );
    expect(end.map((u) => u.status)).toEqual(["failed"]);
    expect(messageText(updates)).toContain("Garuda: $ sleep 60 cancelled.");
    expect(h.permissions).toEqual([]);
    expect((await h.prompt(sessionId, "again")).stopReason).toBe("end_turn");
  }, 30_000);

  test("while the model writes: 'the turn was cancelled'", async () => {
    const model = new FakeModelClient([
      [{ type: "text_delta", text: "Thinking about it" }, fake.wait(Number.POSITIVE_INFINITY)],
    ]);
    await using h = startHarness({ models: [model] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    const turn = h.prompt(sessionId, "go");
    await h.waitFor((u) => u.sessionUpdate === "agent_message_chunk");
    await h.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect(await turn).toEqual({ stopReason: "cancelled" });
    const text = messageText(h.updatesOf(sessionId));
    expect(text).toContain("Thinking about it\n\nGaruda: the turn was cancelled.");
    // Cancel for an idle or unknown session is ignored.
    await h.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    await h.agent.notify(acp.methods.agent.session.cancel, { sessionId: "no-such-session" });
  });

  test("a second prompt while one runs waits for it; a cancel drops it unrun, with a line", async () => {
    const model = new FakeModelClient([[fake.wait(Number.POSITIVE_INFINITY)]]);
    await using h = startHarness({ models: [model] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    const first = h.prompt(sessionId, "one");
    await waitFor(() => model.requests.length === 1);
    const second = h.prompt(sessionId, "two");
    await h.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await second).stopReason).toBe("cancelled");
    expect((await first).stopReason).toBe("cancelled");
    expect(model.requests).toHaveLength(1);
    expect(messageText(h.updatesOf(sessionId))).toContain(
      "The prompt queued behind this turn was dropped with the stop; it did not run.",
    );
  });
});

describe("prompt content", () => {
  test(
    "a file link in the root becomes @path, one outside stays text, embedded " + "context is a fenced block",
    async () => {
      const model = new FakeModelClient([fake.text("ok")]);
      await using h = startHarness({
        models: [model],
        files: { "a.ts": "export const a = 1;\n", "b.ts": "export const b = 2;\n" },
      });
      await h.initialize();
      const { sessionId } = await h.newSession();
      const outside = join(tmpdir(), "elsewhere.txt");
      await h.prompt(sessionId, [
        { type: "text", text: "Compare" },
        { type: "resource_link", uri: pathToFileURL(join(h.root, "a.ts")).href, name: "a.ts" },
        { type: "text", text: "with" },
        { type: "resource_link", uri: pathToFileURL(outside).href, name: "elsewhere.txt" },
        {
          type: "resource",
          resource: {
            uri: "zed://selection/1",
            text: "const selected = true; // see @b.ts",
            mimeType: "text/typescript",
          },
        },
      ]);
      const text = userText(model);
      expect(text).toContain("Compare @a.ts with elsewhere.txt (file://");
      expect(text).toContain("```zed://selection/1\nconst selected = true; // see @b.ts\n```");
      // The linked file is attached; an @path inside the embedded text is not (it is the editor's text, not the user's
      // pick).
      const sent = JSON.stringify(model.requests[0]?.messages);
      expect(sent).toContain('<attached_file path=\\"a.ts\\">');
      expect(sent).not.toContain('<attached_file path=\\"b.ts\\">');
    },
  );

  test("a huge prompt (10 MB) is read and refused with why (no model could take it); " +
    "1.5 MB goes through; the session goes on", async () => {
    const model = new FakeModelClient([fake.text("that is long"), fake.text("and this is short")]);
    await using h = startHarness({ models: [model] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    const big = "x".repeat(10 * 1024 * 1024);
    expect((await h.prompt(sessionId, big)).stopReason).toBe("end_turn");
    expect(model.requests).toHaveLength(0);
    expect(messageText(h.updatesOf(sessionId))).toContain(
      `Garuda: The prompt is ${big.length.toLocaleString("en-US")} characters, more ` +
        `than the 2,000,000 Garuda sends in one message to this model`,
    );
    const large = "y".repeat(1_500_000);
    expect((await h.prompt(sessionId, large)).stopReason).toBe("end_turn");
    expect(userText(model).length).toBeGreaterThanOrEqual(large.length);
    expect((await h.prompt(sessionId, "short")).stopReason).toBe("end_turn");
    expect(messageText(h.updatesOf(sessionId))).toContain("and this is short");
  }, 60_000);
});

describe("commands", () => {
  test(
    "/name runs a custom command, /diff runs in Garuda and does not reach the " + "model, the / menu lists the command",
    async () => {
      const model = new FakeModelClient([fake.text("Reviewed.")]);
      await using h = startHarness({ models: [model] });
      const commands = garudaPaths(h.home).commands;
      mkdirSync(commands, { recursive: true });
      writeFileSync(
        join(commands, "review.md"),
        "---\ndescription: Review a change\nargument-hint: <what>\n---\nReview this change carefully: $ARGUMENTS\n",
      );
      await h.initialize();
      const { sessionId } = await h.newSession();
      const menu = await h.waitFor((u) => u.sessionUpdate === "available_commands_update");
      expect(menu).toEqual({
        sessionUpdate: "available_commands_update",
        availableCommands: [
          ...builtinCommands(),
          { name: "review", description: "Review a change", input: { hint: "<what>" } },
        ],
      });

      expect((await h.prompt(sessionId, "/diff")).stopReason).toBe("end_turn");
      expect(model.requests).toHaveLength(0);
      expect(messageText(h.updatesOf(sessionId))).toContain("No changes in this session.");
      expect((await h.prompt(sessionId, "/clear")).stopReason).toBe("end_turn");
      expect(messageText(h.updatesOf(sessionId))).toContain(
        "/clear is a terminal command. Start a new thread for a new conversation.",
      );

      expect((await h.prompt(sessionId, "/nosuch thing")).stopReason).toBe("end_turn");
      expect(model.requests).toHaveLength(0);
      expect(messageText(h.updatesOf(sessionId))).toContain(
        "/nosuch is not a command of this project. The commands are: /review.",
      );

      expect((await h.prompt(sessionId, "/review the parser")).stopReason).toBe("end_turn");
      expect(userText(model)).toContain("Review this change carefully: the parser");
    },
  );

  test("a project command asks its consent as a question of its own; denied, the model never sees it", async () => {
    const model = new FakeModelClient([fake.text("never")]);
    await using h = startHarness({ models: [model] });
    mkdirSync(join(h.root, ".garuda", "commands"), { recursive: true });
    writeFileSync(join(h.root, ".garuda", "commands", "fix.md"), "Fix everything: $ARGUMENTS\n");
    h.answer = () => select("deny");
    await h.initialize();
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "/fix now")).stopReason).toBe("end_turn");
    expect(model.requests).toHaveLength(0);
    expect(h.permissions).toHaveLength(1);
    expect(h.permissions[0]?.toolCall.toolCallId).toBe("garuda-question-1");
    expect(contentText(h.permissions[0]?.toolCall.content)).toContain("Fix everything");
    expect(ofKind(h.updatesOf(sessionId), "tool_call").map((u) => [u.toolCallId, u.kind])).toEqual([
      ["garuda-question-1", "other"],
    ]);
  });
});

describe("the / menu after MCP servers start", () => {
  test("a user MCP server's prompts join the menu after the first turn (sent again only when it changed)", async () => {
    const model = new FakeModelClient([fake.text("One."), fake.text("Two.")]);
    await using h = startHarness({ models: [model] });
    const paths = garudaPaths(h.home);
    mkdirSync(paths.dir, { recursive: true });
    writeFileSync(paths.mcp, JSON.stringify({ servers: { fix: { command: BUN, args: [FIXTURE_SERVER] } } }));
    await h.initialize();
    const { sessionId } = await h.newSession();
    const first = await h.waitFor((u) => u.sessionUpdate === "available_commands_update");
    expect(
      first.sessionUpdate === "available_commands_update" &&
        first.availableCommands.some((c) => c.name.startsWith("fix:")),
    ).toBe(false);
    await h.prompt(sessionId, "hello");
    const menus = ofKind(h.updatesOf(sessionId), "available_commands_update");
    expect(menus.length).toBe(2);
    expect(menus[1]?.availableCommands.some((c) => c.name.startsWith("fix:"))).toBe(true);
    await h.prompt(sessionId, "again");
    expect(ofKind(h.updatesOf(sessionId), "available_commands_update").length).toBe(2);
  });
});

describe("notices, errors and sessions", () => {
  test(
    "an editor MCP server is asked about at the first prompt, before the answer, " + "and only once; a no is a line",
    async () => {
      const model = new FakeModelClient([fake.text("Answer."), fake.text("Again.")]);
      await using h = startHarness({ models: [model] });
      h.answer = () => select("deny");
      await h.initialize();
      const { sessionId } = await h.newSession({
        mcpServers: [{ name: "github", command: "/usr/bin/gh-mcp", args: [], env: [] }],
      });
      expect(h.permissions).toEqual([]);
      await h.prompt(sessionId, "hi");
      expect(h.permissions.map((p) => p.toolCall.title)).toEqual(["MCP server: github"]);
      const text = messageText(h.updatesOf(sessionId));
      expect(text.indexOf("Answer.")).toBeGreaterThan(text.indexOf(`The MCP server "github" was not started`));
      await h.prompt(sessionId, "again");
      expect(h.permissions).toHaveLength(1);
    },
  );

  test("a model error is a JSON-RPC error with its message; the session goes on", async () => {
    const model = new FakeModelClient([
      fake.fail(new ModelError("Anthropic API: 401 authentication_error: invalid x-api-key", 401)),
      fake.text("back"),
    ]);
    await using h = startHarness({ models: [model] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    const error = await rejection(h.prompt(sessionId, "hi"));
    expect(error.code).toBe(-32603);
    expect(error.message).toBe("Anthropic API: 401 authentication_error: invalid x-api-key");
    expect((await h.prompt(sessionId, "again")).stopReason).toBe("end_turn");
  });

  test("an unknown session is -32002 for prompt and set_mode, never a fake success", async () => {
    await using h = startHarness();
    await h.initialize();
    for (const request of [
      h.prompt("no-such-session", "hi"),
      h.agent.request(acp.methods.agent.session.setMode, { sessionId: "no-such-session", modeId: "plan" }),
    ]) {
      const error = await rejection(request);
      expect(error.code).toBe(-32002);
      expect(error.data).toEqual({ sessionId: "no-such-session" });
    }
  });

  test("two sessions are independent: own root, own approvals, own mode", async () => {
    const first = new FakeModelClient([fake.toolCall("write_file", { path: "a.txt", content: "1" }), fake.text("one")]);
    const second = new FakeModelClient([
      fake.toolCall("write_file", { path: "a.txt", content: "2" }),
      fake.text("two"),
    ]);
    await using h = startHarness({ models: [first, second] });
    const otherRoot = makeTempDir("garuda-acp-root2-");
    try {
      h.answer = (params) => select(params.sessionId === firstId ? "session" : "deny");
      await h.initialize();
      const firstId = (await h.newSession()).sessionId;
      const secondId = (await h.newSession({ cwd: otherRoot })).sessionId;
      await h.agent.request(acp.methods.agent.session.setMode, { sessionId: secondId, modeId: "plan" });
      await Promise.all([h.prompt(firstId, "write"), h.prompt(secondId, "write")]);
      expect(readFileSync(join(h.root, "a.txt"), "utf8")).toBe("1");
      expect(existsSync(join(otherRoot, "a.txt"))).toBe(false);
      expect(h.permissions.map((p) => p.sessionId)).toEqual([firstId]);
    } finally {
      rmSync(otherRoot, { recursive: true, force: true });
    }
  });
});

describe("stderr stays quiet", () => {
  test("the Anthropic SDK's per-request deprecation warning: once per session as a " +
    "Garuda: line, never on the console", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-warn",
      script: [
        mockResponses.text("one"),
        mockResponses.text("two"),
        mockResponses.text("three"),
        mockResponses.text("other session"),
      ],
    });
    await using h = startHarness({
      prepare: async ({ cwd, approver }, harness) =>
        prepareRuntime({
          root: cwd,
          paths: garudaPaths(harness.home),
          env: { PATH: process.env.PATH, HOME: harness.home },
          keys: new ProviderKeys(),
          modelFlag: "claude-sonnet-4-5",
          managedPolicy: join(harness.home, "no-managed-policy.json"),
          approver,
          selfCommand: BRIDGE,
          probe: await testProbe(),
          openModel: async () => createAnthropicClient({ apiKey: "sk-ant-warn", baseUrl: mock.url }),
        }),
    });
    const printed: string[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => {
      printed.push(args.map(String).join(" "));
    };
    // An older model the catalog no longer lists is named in models.json (issue 20.2: unlisted names are refused).
    mkdirSync(garudaPaths(h.home).dir, { recursive: true, mode: 0o700 });
    writeFileSync(garudaPaths(h.home).models, JSON.stringify({ models: { "claude-sonnet-4-5": {} } }));
    try {
      await h.initialize();
      const { sessionId } = await h.newSession();
      for (const prompt of ["a", "b", "c"]) expect((await h.prompt(sessionId, prompt)).stopReason).toBe("end_turn");
      const other = (await h.newSession()).sessionId;
      expect((await h.prompt(other, "d")).stopReason).toBe("end_turn");
      expect(mock.requests.map((r) => r.body?.model)).toEqual([
        "claude-sonnet-4-5",
        "claude-sonnet-4-5",
        "claude-sonnet-4-5",
        "claude-sonnet-4-5",
      ]);
      const said = (id: string) =>
        messageText(h.updatesOf(id)).split(
          "Garuda: the Anthropic SDK warns: The model 'claude-sonnet-4-5' is deprecated",
        ).length - 1;
      expect(said(sessionId)).toBe(1);
      expect(said(other)).toBe(1);
      expect(messageText(h.updatesOf(sessionId))).toContain("Please migrate to a newer model.");
      expect(printed).toEqual([]);
    } finally {
      console.warn = original;
    }
  }, 30_000);

  test("our own log: a failure that repeats at every turn (listing the / menu) is one line per session", async () => {
    const logged: string[] = [];
    const model = new FakeModelClient([fake.text("one"), fake.text("two"), fake.text("three")]);
    await using h = startHarness({
      models: [model],
      server: { log: (text) => logged.push(text) },
      prepare: async (request, harness) => {
        const runtime = await realPrepare(harness.home, () => model)(request);
        runtime.availableCommands = () => {
          throw new Error("the skills folder is unreadable");
        };
        return runtime;
      },
    });
    await h.initialize();
    const { sessionId } = await h.newSession();
    for (const prompt of ["a", "b", "c"]) expect((await h.prompt(sessionId, prompt)).stopReason).toBe("end_turn");
    expect(logged).toEqual(["garuda acp: listing the commands failed: the skills folder is unreadable"]);
  });
});

describe("the settle window after a stop", () => {
  test(
    "a call with no result within SETTLE_MS ends failed 'Cancelled.' and is named; " + "its late result is dropped",
    async () => {
      const model = new FakeModelClient([fake.toolCall("stubborn", {}, { id: "toolu_stubborn" })]);
      let finished = false;
      const stubborn: Tool<Record<string, never>> = {
        name: "stubborn",
        description: "Ignores cancel for a while.",
        input: z.object({}),
        readOnly: true,
        plan: (input) => ({
          input,
          info: { title: "Stubborn work", kind: "execute", locations: [] },
          permission: { tool: "stubborn", readOnly: true, target: { kind: "input" }, preview: "" },
        }),
        run: async () => {
          await Bun.sleep(600);
          finished = true;
          return { output: "finished late" };
        },
      };
      await using h = startHarness({
        models: [model],
        server: { settleMs: 150 },
        prepare: async ({ cwd, approver }, harness) =>
          Runtime.create({
            root: cwd,
            home: harness.home,
            model: { client: model, info: MODEL },
            tools: [stubborn],
            engine: createPermissionEngine({ root: cwd, home: harness.home, sandboxAvailable: true }),
            executor: fakeExecutor(),
            approver,
            mode: "build",
            sessionStore: false,
          }),
      });
      await h.initialize();
      const { sessionId } = await h.newSession();
      const turn = h.prompt(sessionId, "work");
      await h.waitFor((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "toolu_stubborn");
      await h.agent.notify(acp.methods.agent.session.cancel, { sessionId });
      expect(await turn).toEqual({ stopReason: "cancelled" });
      const updates = h.updatesOf(sessionId);
      const last = ofKind(updates, "tool_call_update").filter((u) => u.toolCallId === "toolu_stubborn");
      expect(last.map((u) => [u.status, contentText(u.content)])).toEqual([
        ["in_progress", ""],
        ["failed", "Cancelled."],
      ]);
      expect(messageText(updates)).toContain("Garuda: Stubborn work cancelled.");
      const count = h.updates.length;
      await waitFor(() => finished);
      await Bun.sleep(50);
      expect(h.updates.length).toBe(count);
    },
  );
});

describe("the stdout guard (protocolOutput)", () => {
  test(
    "every other write to stdout goes to stderr with all its arguments; the " +
      "protocol stream writes to the real stdout",
    async () => {
      const real: unknown[][] = [];
      const err: unknown[][] = [];
      const stdout: WriteTarget = {
        write: (...args: unknown[]) => {
          real.push(args);
          const callback = args.find((a) => typeof a === "function") as (() => void) | undefined;
          callback?.();
          return true;
        },
      };
      let errText = "";
      const stderr = new Writable({
        write(chunk: Buffer, _encoding, done) {
          errText += chunk.toString("utf8");
          done();
        },
      });
      const passThrough = stderr.write.bind(stderr) as (...args: unknown[]) => boolean;
      (stderr as unknown as WriteTarget).write = (...args: unknown[]) => {
        err.push(args);
        return passThrough(...args);
      };
      const fakeConsole = { log: () => {}, info: () => {}, table: () => {}, write: () => {} } as unknown as Console;
      const originalLog = fakeConsole.log;
      const guard = protocolOutput(stdout, stderr as unknown as WriteTarget, fakeConsole);
      const callback = () => {};
      stdout.write("68656c6c6f0a", "hex", callback);
      expect(err[0]).toEqual([Buffer.from("hello\n"), callback]);
      stdout.write("plain\n");
      expect(err[1]).toEqual(["plain\n"]);
      fakeConsole.log("from a library", 42);
      (fakeConsole as unknown as { write(text: string): void }).write("raw\n");
      expect(errText).toContain("hello\nplain\n");
      expect(errText).toContain("from a library 42\n");
      expect(errText).toContain("raw\n");
      expect(real).toEqual([]);
      const writer = guard.protocol.getWriter();
      await writer.write(new TextEncoder().encode('{"jsonrpc":"2.0"}\n'));
      expect(real).toHaveLength(1);
      expect(new TextDecoder().decode(real[0]?.[0] as Uint8Array)).toBe('{"jsonrpc":"2.0"}\n');
      guard.restore();
      expect(fakeConsole.log).toBe(originalLog);
    },
  );

  test(
    "in a real process: console.log, process.stdout.write with an encoding and a " + "callback all land on stderr",
    async () => {
      const entry = join(import.meta.dir, "../../src/cli/acpCommand.ts");
      const script = [
        `import { protocolOutput } from ${JSON.stringify(entry)};`,
        "const guard = protocolOutput(process.stdout, process.stderr);",
        'console.log("log line");',
        'console.info("info line");',
        "console.table([{ a: 1 }]);",
        'process.stdout.write("68656c6c6f0a", "hex", () => process.stderr.write("callback ran\\n"));',
        "const writer = guard.protocol.getWriter();",
        'await writer.write(new TextEncoder().encode("PROTOCOL\\n"));',
      ].join("\n");
      const proc = Bun.spawn([process.execPath, "-e", script], {
        stdout: "pipe",
        stderr: "pipe",
        env: { PATH: process.env.PATH ?? "" },
      });
      const [out, err, code] = await Promise.all([
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
        proc.exited,
      ]);
      expect(code).toBe(0);
      expect(out).toBe("PROTOCOL\n");
      for (const expected of ["log line", "info line", "hello\n", "callback ran", "│ a │"])
        expect(err).toContain(expected);
    },
  );
});

describe("the command", () => {
  const entry = join(import.meta.dir, "../../src/cli/index.ts");
  const run = (args: string[], home: string) => {
    const result = Bun.spawnSync([process.execPath, entry, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: home },
      cwd: home,
      stdin: "ignore",
    });
    return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
  };

  test(
    "`garuda acp <other>` is an error; `garuda acp setup` runs the setup (here: " + "--show, which needs no terminal)",
    () => {
      const home = makeTempDir("garuda-acp-cmd-");
      try {
        const bogus = run(["acp", "bogus"], home);
        expect(bogus.code).toBe(1);
        expect(bogus.stderr).toContain('Unknown argument "bogus". Use: garuda acp [setup]');
        expect(bogus.stdout).toBe("");
        // The same setup as `garuda setup`, with its arguments, its output and its exit code.
        const same = (acpArgs: string[], setupArgs: string[]) => {
          const viaAcp = run(acpArgs, home);
          const direct = run(setupArgs, home);
          expect({ code: viaAcp.code, stdout: viaAcp.stdout }).toEqual({ code: direct.code, stdout: direct.stdout });
          expect(viaAcp.stdout).not.toBe("");
        };
        same(["acp", "setup", "--show"], ["setup", "--show"]);
        setUpHome(home);
        same(["--model", "claude-opus-5", "acp", "setup", "--show"], ["setup", "--show", "--model", "claude-opus-5"]);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
  );

  test("from source, stdin closed right away: exit 0 with nothing on stdout", () => {
    const home = makeTempDir("garuda-acp-cmd-");
    try {
      const result = run(["acp"], home);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe("");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
