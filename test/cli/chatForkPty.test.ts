// The chat's /fork in a real pseudo-terminal against the mock Anthropic server (issue 33, item
// 3): the chat goes on in a copy of the conversation, says how to get back, and the original,
// resumed with the command it named, lacks what the fork said after the fork.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { garudaPaths } from "../../src/config/paths.ts";
import { findSessionFile } from "../../src/store/sessionCatalog.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, chatEnv, KEYS, workspace } from "../support/chatHarness.ts";

const answers = (...texts: string[]) => texts.map((text) => ({ steps: [{ type: "text" as const, text }] }));

describe("/fork in the terminal chat", () => {
  test("the chat goes on in a fork; `garuda --resume <parent>` goes back to the original", async () => {
    await using mock = startMockAnthropic({
      script: answers("Noted: the word is lantern.", "Fork answer.", "Original answer."),
    });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("Remember the word lantern.");
    await chat.waitFor("Noted: the word is lantern.");
    await chat.prompt();
    chat.type("/fork");
    const said = await chat.waitFor(/to go back to it: garuda --resume \S+/);
    const fork = /goes on in session (\S+), a copy/.exec(said)?.[1] as string;
    const parent = /garuda --resume (\S+)/.exec(said)?.[1] as string;
    expect(fork).toMatch(/^\d{8}-\d{6}-[0-9a-f]+$/);
    expect(parent).toMatch(/^\d{8}-\d{6}-[0-9a-f]+$/);
    expect(fork).not.toBe(parent);

    await chat.prompt();
    chat.type("A question in the fork.");
    await chat.waitFor("Fork answer.");
    const forkSent = JSON.stringify(mock.requests[1]?.body?.messages);
    expect(forkSent).toContain("Remember the word lantern.");
    expect(forkSent).toContain("Noted: the word is lantern.");
    expect(forkSent).toContain("A question in the fork.");
    await chat.prompt();
    chat.type("/exit");
    const saved = await chat.waitFor(/Conversation (\S+) saved/);
    expect(saved).toContain(`Conversation ${fork} saved`);
    expect(await chat.exit()).toBe(0);

    const back = new ChatPty(["--resume", parent], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await back.waitFor(`Resumed conversation ${parent} (1 turn).`);
    await back.prompt();
    back.type("A question in the original.");
    await back.waitFor("Original answer.");
    const parentSent = JSON.stringify(mock.requests[2]?.body?.messages);
    expect(parentSent).toContain("Remember the word lantern.");
    expect(parentSent).toContain("A question in the original.");
    expect(parentSent).not.toContain("A question in the fork.");
    back.send(KEYS.ctrlD);
    expect(await back.exit()).toBe(0);

    // Two files, the fork's naming its parent.
    const sessions = garudaPaths(ws.home).sessions;
    const forkFile = findSessionFile(sessions, fork) as string;
    expect(JSON.parse(readFileSync(forkFile, "utf8").split("\n")[0] as string).forkedFrom).toEqual({
      sessionId: parent,
    });
    expect(readFileSync(findSessionFile(sessions, parent) as string, "utf8")).not.toContain("A question in the fork.");
  }, 60_000);

  test("before any prompt there is nothing to fork", async () => {
    await using mock = startMockAnthropic({ script: [] });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("/fork");
    await chat.waitFor("Nothing to fork yet: this conversation has no messages.");
    await chat.prompt();
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
    expect(mock.requests).toHaveLength(0);
  }, 30_000);
});
