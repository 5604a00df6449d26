// "Deny and say why" (issue 34.2) in a real pseudo-terminal against the mock Anthropic server: at
// an edit's question, t reads a line, and the model's tool result carries those words with the
// denial; the file is not written. t then Enter with no words is a plain deny. (Every question the
// permission engine asks offers it: a command's goes the same way, TerminalApprover.askCall.)
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, chatEnv, KEYS, lastToolResult, workspace } from "../support/chatHarness.ts";

describe("deny and say why", () => {
  test("a file write denied with words: the model reads them in the call's result", async () => {
    await using mock = startMockAnthropic({
      script: [
        {
          steps: [
            {
              type: "tool_use",
              name: "write_file",
              id: "toolu_write",
              input: { path: "notes.txt", content: "final\n" },
            },
          ],
        },
        { steps: [{ type: "text", text: "Understood, leaving it." }] },
        { steps: [{ type: "tool_use", name: "write_file", id: "toolu_b", input: { path: "b.txt", content: "b\n" } }] },
        { steps: [{ type: "text", text: "Not removed." }] },
      ],
    });
    using ws = workspace();
    const notes = join(ws.root, "notes.txt");
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("Make the note final");
    const question = await chat.waitFor("[t] Deny and say why");
    expect(question).toContain("notes.txt");
    await chat.answer("t");
    await chat.waitFor("Why? (the model reads it)");
    chat.type("keep it a draft until Friday");
    await chat.waitFor("→ Deny, and the model reads why");
    await chat.waitFor("Understood, leaving it.");
    expect(existsSync(notes)).toBe(false);
    const result = lastToolResult(mock, 1);
    expect(result).toContain('The user denied this and said: "keep it a draft until Friday".');
    expect(result).toStartWith("Permission denied: ");

    // No words is a plain deny.
    await chat.prompt();
    chat.type("Write b");
    await chat.waitFor("[t] Deny and say why");
    await chat.answer("t");
    await chat.waitFor("Why? (the model reads it)");
    chat.send(KEYS.enter);
    await chat.waitFor("Not removed.");
    const plain = lastToolResult(mock, 3);
    expect(plain).toContain("The user denied this.");
    expect(plain).not.toContain("said:");
    await chat.prompt();
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
  }, 60_000);
});
