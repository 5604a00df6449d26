// Issue 34.6, input as people type, in a real pseudo-terminal against the mock Anthropic server:
// "/" opens the menu of commands (built-ins, a custom command, a skill) with what they do,
// filtered as typed, moved with the arrows, closed with Esc, run with Enter; "@" opens the
// project's files by fuzzy match (a .gitignore'd file and a secret one never offered), picked
// with Enter; the menu is drawn in the rows under the prompt, so the transcript does not scroll;
// Shift-Enter in its CSI-u and modifyOtherKeys forms, and Alt-Enter, insert newlines.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { garudaPaths } from "../../src/config/paths.ts";
import { type MockAnthropic, startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, chatEnv, KEYS, workspace } from "../support/chatHarness.ts";
import { renderScreen } from "../support/screenModel.ts";

const UP = "\x1b[A";
const DOWN = "\x1b[B";
const ESC = "\x1b";
const TAB = "\t";
const COLS = 100;
const ROWS = 30;

const answers = (...texts: string[]) => texts.map((text) => ({ steps: [{ type: "text" as const, text }] }));

/** The text of the last user message of request `index`. */
function userText(mock: MockAnthropic, index: number): string {
  const messages = mock.requests[index]?.body?.messages as Array<{ role: string; content: unknown }> | undefined;
  const last = messages?.filter((message) => message.role === "user").at(-1)?.content;
  if (typeof last === "string") return last;
  return ((last as Array<{ text?: string }> | undefined) ?? []).map((block) => block.text ?? "").join("\n");
}

/** The screen as the terminal shows it now. */
const screenOf = (chat: ChatPty) => renderScreen(chat.raw, COLS, ROWS);

/** Waits until the rendered screen satisfies `check` (the menu's rows are redrawn in place). */
async function screenShows(chat: ChatPty, check: (lines: string[]) => boolean, ms = 10_000): Promise<string[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const lines = screenOf(chat);
    if (check(lines)) return lines;
    if (Date.now() > deadline) throw new Error(`the screen did not show it:\n${lines.join("\n")}`);
    await Bun.sleep(20);
  }
}

describe("menus as you type, and Shift-Enter", () => {
  test('"/" lists the commands with their hints, filtered as typed; arrows, Esc and Enter', async () => {
    await using mock = startMockAnthropic({ script: answers("Reviewed.") });
    using ws = workspace();
    const paths = garudaPaths(ws.home);
    mkdirSync(paths.commands, { recursive: true });
    writeFileSync(join(paths.commands, "review.md"), "---\ndescription: review the change\n---\nReview $ARGUMENTS\n");
    mkdirSync(join(paths.skills, "release-notes"), { recursive: true });
    writeFileSync(
      join(paths.skills, "release-notes", "SKILL.md"),
      "---\nname: release-notes\ndescription: write the release notes\n---\nWrite them.\n",
    );
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home), cols: COLS, rows: ROWS });
    await chat.prompt();
    const banner = screenOf(chat)[0];

    chat.send("/");
    let lines = await screenShows(chat, (rows) => rows.some((row) => row.startsWith("❯ /help")));
    expect(lines.join("\n")).toMatch(/❯ \/help +the commands and keys/);
    // Filtered as typed: the custom command and the skill, each with its description.
    chat.send("re");
    lines = await screenShows(chat, (rows) => rows.some((row) => row.includes("/release-notes")));
    const menu = lines.join("\n");
    expect(menu).toMatch(/\/review +review the change/);
    expect(menu).toMatch(/\/release-notes +write the release notes/);
    expect(menu).not.toContain("the commands and keys");
    // The arrows move the selection (Up goes round to the last one).
    chat.send(DOWN);
    await screenShows(chat, (rows) => rows.some((row) => /^❯ \/\S+/.test(row) && !row.startsWith("❯ /rewind")));
    chat.send(UP);
    chat.send(UP);
    const last = await screenShows(
      chat,
      (rows) => rows.some((row) => row.startsWith("❯ ")) && !rows.some((row) => row.startsWith("❯ /rewind")),
    );
    expect(last.filter((row) => row.startsWith("❯ "))).toHaveLength(1);
    // Esc closes it: the rows under the prompt are empty again, and nothing above has moved.
    chat.send(ESC);
    lines = await screenShows(chat, (rows) => !rows.some((row) => row.includes("/review")));
    expect(lines[0]).toBe(banner);
    expect(lines.some((row) => row.startsWith("› /re"))).toBe(true);
    // Typing on keeps it closed for this word; a new "/" word opens it again, and Enter runs the pick.
    chat.send("\x15/revi");
    await screenShows(chat, (rows) => rows.some((row) => row.startsWith("❯ /review")));
    chat.send(KEYS.enter);
    await chat.waitFor("Reviewed.");
    expect(userText(mock, 0)).toContain("Review");
    // The menu never scrolled the transcript: the banner is still on the first row.
    expect(screenOf(chat)[0]).toBe(banner);
    await chat.prompt();
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
  }, 60_000);

  test('"@" lists files by fuzzy match, never an ignored or a secret one; Enter picks, ' +
    "Tab goes into a folder", async () => {
    await using mock = startMockAnthropic({ script: answers("Looked.") });
    using ws = workspace();
    mkdirSync(join(ws.root, "src", "cli", "chat"), { recursive: true });
    mkdirSync(join(ws.root, "build"));
    writeFileSync(join(ws.root, "src", "cli", "chat", "promptEditor.ts"), "export const editor = 1;\n");
    writeFileSync(join(ws.root, "src", "cli", "chat", "screen.ts"), "export {};\n");
    writeFileSync(join(ws.root, "build", "promptEditor.js"), "ignored\n");
    writeFileSync(join(ws.root, ".gitignore"), "build/\n");
    writeFileSync(join(ws.root, ".env.pedit"), "SECRET=1\n");
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home), cols: COLS, rows: ROWS });
    await chat.prompt();
    chat.send("fix @pedit");
    const lines = await screenShows(chat, (rows) =>
      rows.some((row) => row.startsWith("❯ @src/cli/chat/promptEditor.ts")),
    );
    expect(lines.join("\n")).not.toContain("build/promptEditor.js");
    expect(chat.text).not.toContain(".env.pedit");
    chat.send(KEYS.enter);
    await chat.waitFor("› fix @src/cli/chat/promptEditor.ts ");
    chat.send(KEYS.enter);
    await chat.waitFor("Looked.");
    expect(userText(mock, 0)).toContain("export const editor = 1;");
    await chat.prompt();
    // A folder picked with Tab keeps the menu open inside it.
    chat.send("@sr");
    await screenShows(chat, (rows) => rows.some((row) => row.startsWith("❯ @src/")));
    chat.send(TAB);
    await chat.waitFor("› @src/");
    await screenShows(chat, (rows) => rows.some((row) => row.startsWith("❯ @src/cli/")));
    chat.send("\x15");
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
  }, 60_000);

  test("Shift-Enter (CSI-u, modifyOtherKeys) and Alt-Enter insert newlines; Enter sends", async () => {
    await using mock = startMockAnthropic({ script: answers("Four lines.") });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.send("one\x1b[13;2u");
    chat.send("two\x1b[27;2;13~");
    chat.send("three\x1b\r");
    chat.send("four");
    await chat.waitFor("four");
    expect(mock.requests).toHaveLength(0);
    chat.send(KEYS.enter);
    await chat.waitFor("Four lines.");
    expect(userText(mock, 0)).toContain("one\ntwo\nthree\nfour");
    await chat.prompt();
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
  }, 60_000);
});
