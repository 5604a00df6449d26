// The real chat (`garuda` from source) in a pseudo-terminal, against the mock Anthropic server,
// with the real sandbox: a streamed answer with thinking, an approved edit and /undo, a
// hunk-rejected edit, Ctrl-C during `sleep 60` (the process checked gone) and Ctrl-C twice to
// leave, built-in and custom commands, the project-settings question, resume, and a pipe.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import {
  alive,
  ChatPty,
  chatEnv,
  KEYS,
  lastToolResult,
  runPipedIn,
  startedBelow,
  workspace,
} from "../support/chatHarness.ts";

describe("garuda (the chat) in a terminal", () => {
  test("streams the answer and collapses the thinking to a dim line; --hide-thinking hides it", async () => {
    await using mock = startMockAnthropic({
      script: [
        {
          delayMs: 150,
          steps: [
            { type: "thinking", thinking: "Pondering the greeting.", signature: "sig-1" },
            { type: "text", text: "Hello from the mock, streamed in parts.", fragments: 4 },
          ],
        },
        {
          steps: [
            { type: "thinking", thinking: "A secret musing.", signature: "sig-2" },
            { type: "text", text: "Second answer." },
          ],
        },
      ],
    });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.waitFor("claude-sonnet-5 · build mode");
    await chat.prompt();
    chat.type("Say hello");
    await chat.waitFor("Hello");
    // The first part is on screen before the last one was sent.
    expect(chat.text).not.toContain("in parts.");
    await chat.waitFor("streamed in parts.");
    // Thinking is one dimmed line (SGR 2), its text kept for the transcript view (Ctrl-O); the answer is not dimmed.
    expect(chat.text).toContain("✻ Thinking… (Ctrl-O to show)\n");
    expect(chat.raw).toContain("\x1b[2m✻ Thinking… (Ctrl-O to show)");
    expect(chat.text).not.toContain("Pondering the greeting.");
    // (Not on its own row: the dim status rows drawn before it end with "\r".)
    expect(chat.raw).not.toMatch(/\x1b\[2m[^\n\r]*Hello from/);
    await chat.prompt();
    chat.type("/exit");
    expect(await chat.exit()).toBe(0);
    expect(mock.requests[0]?.body?.stream).toBe(true);

    const hidden = new ChatPty(["--hide-thinking"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await hidden.prompt();
    hidden.type("Again");
    await hidden.waitFor("Second answer.");
    expect(hidden.text).not.toContain("A secret musing.");
    // The thinking block's heading; the spinner's "Thinking… 0s" is not the model's thinking.
    expect(hidden.text).not.toContain("✻ Thinking");
    hidden.send(KEYS.ctrlD);
    expect(await hidden.exit()).toBe(0);
  }, 60_000);

  test("an edit is shown as a question with its coloured diff; y writes it; /diff and /undo", async () => {
    await using mock = startMockAnthropic({
      script: [
        {
          steps: [
            { type: "text", text: "Reading first." },
            { type: "tool_use", name: "read_file", id: "toolu_read", input: { path: "notes.txt" } },
          ],
        },
        {
          steps: [
            {
              type: "tool_use",
              name: "edit_file",
              id: "toolu_edit",
              input: { path: "notes.txt", old_string: "draft", new_string: "final" },
            },
          ],
        },
        { steps: [{ type: "text", text: "The note is final now." }] },
      ],
    });
    using ws = workspace();
    const notes = join(ws.root, "notes.txt");
    writeFileSync(notes, "a draft note\n");
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("Make the note final");
    await chat.waitFor("● Read notes.txt");
    await chat.waitFor("⎿ Read 1 line");
    await chat.waitFor("● Edit notes.txt");
    const question = await chat.waitFor("[n] Deny");
    expect(question).toContain("? Allow Edit notes.txt?");
    expect(question).toContain("-a draft note\n");
    expect(question).toContain("+a final note\n");
    expect(question).toContain("[s] Allow all edits for this session");
    expect(question).toContain("“Allow all edits for this session” allows: edit_file(./**)");
    expect(chat.raw).toContain("\x1b[31m-a draft note");
    expect(chat.raw).toContain("\x1b[32m+a final note");
    expect(readFileSync(notes, "utf8")).toBe("a draft note\n");
    await chat.answer("y");
    await chat.waitFor("→ Allow once");
    await chat.waitFor("⎿ Edit notes.txt: Edited notes.txt (+1 −1)");
    await chat.waitFor("The note is final now.");
    expect(readFileSync(notes, "utf8")).toBe("a final note\n");

    await chat.prompt();
    chat.type("/diff");
    const diff = await chat.waitFor("+a final note");
    expect(diff).toContain("-a draft note");
    await chat.prompt();
    chat.type("/undo");
    await chat.waitFor("Restored notes.txt.");
    expect(readFileSync(notes, "utf8")).toBe("a draft note\n");
    await chat.prompt();
    chat.type("/exit");
    expect(await chat.exit()).toBe(0);
    // /diff and /undo never reached the model.
    expect(mock.requests.length).toBe(3);
  }, 60_000);

  test("hunk by hunk: the file gets only the accepted hunk, and the model hears which one was rejected", async () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
    const old = lines.slice(1, 9).join("\n");
    const next = old.replace("line 2", "LINE TWO").replace("line 9", "LINE NINE");
    await using mock = startMockAnthropic({
      script: [
        { steps: [{ type: "tool_use", name: "read_file", id: "toolu_read", input: { path: "ten.txt" } }] },
        {
          steps: [
            {
              type: "tool_use",
              name: "edit_file",
              id: "toolu_edit",
              input: { path: "ten.txt", old_string: old, new_string: next },
            },
          ],
        },
        { steps: [{ type: "text", text: "Understood." }] },
      ],
    });
    using ws = workspace();
    const file = join(ws.root, "ten.txt");
    writeFileSync(file, `${lines.join("\n")}\n`);
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("Shout lines two and nine");
    await chat.waitFor("[h] Choose hunks (2)");
    await chat.answer("h");
    const first = await chat.waitFor("[d] leave out this one and all the rest");
    expect(first).toContain("Hunk 1 of 2:");
    expect(first).toContain("+LINE TWO");
    await chat.answer("y");
    const second = await chat.waitFor("[d] leave out this one and all the rest");
    expect(second).toContain("Hunk 2 of 2:");
    expect(second).toContain("+LINE NINE");
    await chat.answer("n");
    await chat.waitFor("→ Allowed once: 1 of 2 hunks");
    await chat.waitFor("Understood.");
    expect(readFileSync(file, "utf8")).toBe(`${lines.join("\n").replace("line 2", "LINE TWO")}\n`);
    const told = lastToolResult(mock, 2);
    expect(told).toContain("The user accepted only part of this change");
    expect(told).toContain("-line 9\n+LINE NINE");
    expect(told).not.toContain("+LINE TWO\n+");
    await chat.prompt();
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
  }, 60_000);

  test("Ctrl-C during `sleep 60` stops the turn, kills the command and names it; " +
    "Ctrl-C twice at the prompt leaves", async () => {
    await using mock = startMockAnthropic({
      script: [
        {
          steps: [
            { type: "text", text: "Waiting a minute." },
            { type: "tool_use", name: "bash", id: "toolu_sleep", input: { command: "sleep 60" } },
          ],
        },
        { steps: [{ type: "text", text: "Still here." }] },
      ],
    });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("Wait a minute");
    await chat.waitFor("● $ sleep 60");
    const sleeping = await startedBelow(chat.pid, "sleep 60");
    const started = Date.now();
    chat.send(KEYS.ctrlC);
    await chat.waitFor("✗ Cancelled.");
    await chat.waitFor("Garuda: $ sleep 60 cancelled.");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(sleeping.filter(alive)).toEqual([]);

    // The next prompt works, and the model sees the call as cancelled.
    await chat.prompt();
    chat.type("Are you there?");
    await chat.waitFor("Still here.");
    expect(lastToolResult(mock, 1)).toContain("Cancelled");

    await chat.prompt();
    chat.send(KEYS.ctrlC);
    await chat.waitFor("Ctrl-C again to exit");
    await chat.prompt();
    chat.send(KEYS.ctrlC);
    expect(await chat.exit()).toBe(0);
  }, 60_000);

  test("/help, /mode, /permissions with a session rule revoked, an unknown command, and a custom command", async () => {
    await using mock = startMockAnthropic({
      script: [
        {
          steps: [
            { type: "tool_use", name: "write_file", id: "toolu_write", input: { path: "a.txt", content: "one\n" } },
          ],
        },
        { steps: [{ type: "text", text: "Wrote it." }] },
        { steps: [{ type: "text", text: "Hello, Bob." }] },
      ],
    });
    using ws = workspace();
    mkdirSync(join(ws.home, ".garuda", "commands"), { recursive: true });
    writeFileSync(
      join(ws.home, ".garuda", "commands", "greet.md"),
      "---\ndescription: Greet someone\n---\nSay hello to $ARGUMENTS.\n",
    );
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("/help");
    const help = await chat.waitFor("/exit");
    expect(help).toContain("/undo");
    expect(help).toContain("/permissions");
    await chat.waitFor("Greet someone");

    await chat.prompt();
    chat.type("Write a.txt");
    await chat.waitFor("[s] Allow all file writes for this session");
    await chat.answer("s");
    await chat.waitFor("Wrote it.");
    await chat.prompt();
    chat.type("/permissions");
    const rules = await chat.waitFor("1. write_file(./**)");
    expect(rules).toContain("Rules in force");
    chat.type("/permissions revoke 1");
    await chat.waitFor("Revoked write_file(./**)");

    await chat.prompt();
    chat.type("/mode plan");
    await chat.waitFor("Mode: plan");
    await chat.waitFor(/plan › $/m);
    chat.send(KEYS.shiftTab);
    await chat.waitFor("Mode: build");

    await chat.prompt();
    chat.type("/nosuch");
    await chat.waitFor("/nosuch is not a command.");
    await chat.prompt();
    chat.type("/greet Bob");
    await chat.waitFor("Hello, Bob.");
    const sent = JSON.stringify(mock.requests[2]?.body?.messages?.at(-1));
    expect(sent).toContain("Say hello to Bob.");
    await chat.prompt();
    chat.type("/exit");
    expect(await chat.exit()).toBe(0);
    expect(mock.requests.length).toBe(3);
  }, 60_000);

  test("project settings that loosen safety: the first run shows what and asks; yes is " +
    "pinned in trust.json", async () => {
    await using mock = startMockAnthropic({ script: [] });
    using ws = workspace();
    mkdirSync(join(ws.root, ".garuda"));
    writeFileSync(
      join(ws.root, ".garuda", "settings.json"),
      JSON.stringify({ permissions: { allow: ["edit_file(src/**)"] }, network: { allow: ["registry.npmjs.org"] } }),
    );
    const trust = join(ws.home, ".garuda", "trust.json");

    const refused = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    const question = await refused.waitFor("[n] No, keep the safe defaults");
    expect(question).toContain("permissions.allow (run without asking): edit_file(src/**)");
    expect(question).toContain("network.allow (hosts commands may reach): registry.npmjs.org");
    await refused.answer("n");
    await refused.prompt();
    refused.type("/permissions");
    const without = await refused.waitFor("This session's rules");
    expect(without).not.toContain("edit_file(src/**)");
    refused.type("/exit");
    expect(await refused.exit()).toBe(0);
    expect(() => readFileSync(trust, "utf8")).toThrow();

    const accepted = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await accepted.waitFor("[n] No, keep the safe defaults");
    await accepted.answer("y");
    await accepted.waitFor("Trusted and remembered.");
    await accepted.prompt();
    accepted.type("/permissions");
    await accepted.waitFor(/allow\s+edit_file\(src\/\*\*\)\s+project settings/);
    accepted.type("/exit");
    expect(await accepted.exit()).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(trust, "utf8")).settings ?? {})).toHaveLength(1);

    // Pinned: no question the next time.
    const again = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await again.prompt();
    expect(again.text).not.toContain("Trust them?");
    again.send(KEYS.ctrlD);
    expect(await again.exit()).toBe(0);
  }, 60_000);

  test("project hooks: the first run lists them and asks; yes is pinned in trust.json, no runs none", async () => {
    await using mock = startMockAnthropic({ script: [] });
    using ws = workspace();
    mkdirSync(join(ws.root, ".garuda"));
    writeFileSync(
      join(ws.root, ".garuda", "hooks.json"),
      JSON.stringify({ hooks: { postToolUse: [{ tools: ["edit_file"], command: "npm run lint --silent" }] } }),
    );
    const trust = join(ws.home, ".garuda", "trust.json");

    const refused = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    const question = await refused.waitFor("[n] No, do not run them");
    expect(question).toContain("This project has hooks");
    expect(question).toContain("postToolUse on edit_file (timeout 60s): npm run lint --silent");
    await refused.answer("n");
    await refused.waitFor("The project's hooks do not run in this session.");
    await refused.prompt();
    refused.type("/exit");
    expect(await refused.exit()).toBe(0);
    expect(() => readFileSync(trust, "utf8")).toThrow();

    const accepted = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await accepted.waitFor("[n] No, do not run them");
    await accepted.answer("y");
    await accepted.waitFor("Trusted and remembered.");
    await accepted.prompt();
    accepted.type("/exit");
    expect(await accepted.exit()).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(trust, "utf8")).hooks ?? {})).toHaveLength(1);

    const again = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await again.prompt();
    expect(again.text).not.toContain("This project has hooks");
    again.send(KEYS.ctrlD);
    expect(await again.exit()).toBe(0);
  }, 60_000);

  test("--continue and --resume pick the conversation up from its session file", async () => {
    await using mock = startMockAnthropic({
      script: [
        { steps: [{ type: "text", text: "Noted: kiwi." }] },
        { steps: [{ type: "text", text: "The word was kiwi." }] },
        { steps: [{ type: "text", text: "Still kiwi." }] },
      ],
    });
    using ws = workspace();
    const first = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await first.prompt();
    first.type("Remember the word kiwi.");
    await first.waitFor("Noted: kiwi.");
    await first.prompt();
    first.type("/exit");
    const saved = await first.waitFor(/Conversation (\S+) saved/);
    const id = /Conversation (\S+) saved/.exec(saved)?.[1] as string;
    expect(await first.exit()).toBe(0);

    const continued = new ChatPty(["--continue"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    const shown = await continued.waitFor(`Resumed conversation ${id} (1 turn).`);
    expect(shown).toContain("› Remember the word kiwi.");
    expect(shown).toContain("Noted: kiwi.");
    await continued.prompt();
    continued.type("What was the word?");
    await continued.waitFor("The word was kiwi.");
    const history = JSON.stringify(mock.requests[1]?.body?.messages);
    expect(history).toContain("Remember the word kiwi.");
    expect(history).toContain("Noted: kiwi.");
    continued.send(KEYS.ctrlD);
    expect(await continued.exit()).toBe(0);

    // Without an id: the list of this folder's conversations, then a pick.
    const picked = new ChatPty(["--resume"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    const list = await picked.waitFor("Resume which");
    expect(list).toContain(id);
    expect(list).toContain("2 turns");
    picked.type("1");
    await picked.waitFor(`Resumed conversation ${id} (2 turns).`);
    await picked.prompt();
    picked.type("And now?");
    await picked.waitFor("Still kiwi.");
    expect(JSON.stringify(mock.requests[2]?.body?.messages)).toContain("What was the word?");
    picked.send(KEYS.ctrlD);
    expect(await picked.exit()).toBe(0);

    // With an id that does not exist: an error, exit 1.
    const missing = new ChatPty(["--resume", "nope"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await missing.waitFor('garuda: No conversation "nope" in this folder.');
    expect(await missing.exit()).toBe(1);
    expect(missing.text).not.toContain("unexpected error");
  }, 60_000);

  test("in a pipe: plain lines, no colours or cursor movement, and the answers come from stdin", async () => {
    await using mock = startMockAnthropic({
      script: [
        {
          steps: [
            { type: "thinking", thinking: "Thinking in a pipe.", signature: "sig" },
            { type: "text", text: "Plain answer.", fragments: 3 },
            { type: "tool_use", name: "write_file", id: "toolu_w", input: { path: "b.txt", content: "two\n" } },
          ],
        },
        { steps: [{ type: "text", text: "Written." }] },
      ],
    });
    using ws = workspace();
    const run = await runPipedIn([], { cwd: ws.root, env: chatEnv(mock, ws.home), stdin: "Write b.txt\ny\n/exit\n" });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain("\x1b");
    expect(run.stdout).toContain("› Write b.txt\n");
    expect(run.stdout).toContain("✻ Thinking\nThinking in a pipe.");
    expect(run.stdout).toContain("Plain answer.");
    expect(run.stdout).toContain("● Write b.txt");
    expect(run.stdout).toContain("? Allow Write b.txt?");
    expect(run.stdout).toContain("Written.");
    expect(readFileSync(join(ws.root, "b.txt"), "utf8")).toBe("two\n");
  }, 60_000);

  test("/compact summarizes, /model switches the model (any number of times) and keeps " +
    "the conversation, /clear starts a new one", async () => {
    const answers = ["One.", "Two.", "Three.", "Four.", "Five."].map((text) => ({
      steps: [{ type: "text" as const, text }],
    }));
    await using mock = startMockAnthropic({
      script: [
        ...answers,
        { steps: [{ type: "text", text: "The user counted to five." }] },
        { steps: [{ type: "text", text: "Opus answers." }] },
        { steps: [{ type: "text", text: "Fresh start." }] },
      ],
    });
    using ws = workspace();
    const stdin = [
      "1",
      "2",
      "3",
      "4",
      "5",
      "/compact",
      "/model claude-haiku-4-5",
      "/model claude-nonexistent-9",
      "/model claude-opus-5",
      "Who are you?",
      "/clear",
      "Hello again",
      "/exit",
      "",
    ].join("\n");
    const run = await runPipedIn([], { cwd: ws.root, env: chatEnv(mock, ws.home), stdin });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Compacted the conversation: [\d,K]+ → [\d,K]+ tokens\./);
    expect(run.stdout).toContain("Model: claude-haiku-4-5.");
    expect(run.stdout).toContain('There is no model "claude-nonexistent-9"');
    expect(run.stdout).toContain("The model stays claude-haiku-4-5.");
    expect(run.stdout).toContain("Model: claude-opus-5.");
    expect(run.stdout).toContain("Opus answers.");
    expect(run.stdout).toContain("A new conversation.");
    const [opus, fresh] = mock.requests.slice(-2).map((request) => request.body);
    expect(opus.model).toBe("claude-opus-5");
    // The switched model continues the compacted conversation.
    expect(JSON.stringify(opus.messages)).toContain("The user counted to five.");
    expect(JSON.stringify(opus.messages)).toContain("Who are you?");
    expect(fresh.messages).toHaveLength(1);
    // /clear keeps the model in use.
    expect(fresh.model).toBe("claude-opus-5");
  }, 60_000);

  test("a prompt over several lines; SIGTERM during a command closes the session, " +
    "kills the command, exits 143", async () => {
    await using mock = startMockAnthropic({
      script: [{ steps: [{ type: "tool_use", name: "bash", id: "toolu_sleep", input: { command: "sleep 64" } }] }],
    });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("line one\\");
    chat.send("line two");
    chat.send("\x1b\r");
    chat.type("line three");
    const sleeping = await startedBelow(chat.pid, "sleep 64");
    expect(JSON.stringify(mock.requests[0]?.body?.messages)).toContain("line one\\nline two\\nline three");
    chat.process.kill("SIGTERM");
    expect(await chat.exit()).toBe(143);
    expect(sleeping.filter(alive)).toEqual([]);
    expect(chat.text).toContain("Garuda: $ sleep 64 cancelled.");
  }, 60_000);
});
