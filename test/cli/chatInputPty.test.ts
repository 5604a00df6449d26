// The chat's input like the other terminal agents', in a real pseudo-terminal against the mock
// Anthropic server: the prompt history kept across two chats of one project (Up, Ctrl-R), Tab
// completion of a command and of a path (a .gitignore'd file not offered), a long paste shown
// collapsed and sent whole, and @image.png reaching the model as an image block (a text-only
// model says why it did not).
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { garudaPaths } from "../../src/config/paths.ts";
import { type MockAnthropic, startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, chatEnv, KEYS, workspace } from "../support/chatHarness.ts";

const UP = "\x1b[A";
const CTRL_R = "\x12";
const CTRL_U = "\x15";
const TAB = "\t";

type Block = { type: string; text?: string; source?: { type: string; media_type: string; data: string } };

/** The content blocks of the last user message of request `index`. */
function userBlocks(mock: MockAnthropic, index: number): Block[] {
  const messages = mock.requests[index]?.body?.messages as
    | Array<{ role: string; content: string | Block[] }>
    | undefined;
  const last = messages?.filter((message) => message.role === "user").at(-1);
  if (!last) return [];
  return typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
}

const userText = (mock: MockAnthropic, index: number) =>
  userBlocks(mock, index)
    .map((block) => block.text ?? "")
    .join("\n");

const answers = (...texts: string[]) => texts.map((text) => ({ steps: [{ type: "text" as const, text }] }));

/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

describe("the chat's input in a terminal", () => {
  test("the prompt history is kept across two chats of the project: Up recalls, Ctrl-R searches", async () => {
    await using mock = startMockAnthropic({
      script: answers("First answer.", "Second answer.", "Recalled answer.", "Searched answer."),
    });
    using ws = workspace();
    const env = chatEnv(mock, ws.home);
    const first = new ChatPty([], { cwd: ws.root, env });
    await first.prompt();
    first.type("alpha question about parsers");
    await first.waitFor("First answer.");
    await first.prompt();
    first.type("beta question about screens");
    await first.waitFor("Second answer.");
    await first.prompt();
    first.type("/exit");
    expect(await first.exit()).toBe(0);

    // One file per project under ~/.garuda/history, private to the user.
    const historyDir = garudaPaths(ws.home).history;
    const files = readdirSync(historyDir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^project-[0-9a-f]{8}\.json$/);
    expect(statSync(join(historyDir, files[0] as string)).mode & 0o777).toBe(0o600);

    const second = new ChatPty([], { cwd: ws.root, env });
    await second.prompt();
    // Newest first: the /exit that ended the last chat, then the prompt before it.
    second.send(UP);
    await second.waitFor("› /exit");
    second.send(UP);
    await second.waitFor("› beta question about screens");
    second.send(KEYS.enter);
    await second.waitFor("Recalled answer.");
    expect(userText(mock, 2)).toContain("beta question about screens");

    await second.prompt();
    second.send(CTRL_R);
    await second.waitFor("(reverse-i-search)'': ");
    second.send("alpha");
    await second.waitFor("(reverse-i-search)'alpha': alpha question about parsers");
    // Enter takes the match into the prompt; a second Enter sends it.
    second.send(KEYS.enter);
    await second.waitFor("› alpha question about parsers");
    second.send(KEYS.enter);
    await second.waitFor("Searched answer.");
    expect(userText(mock, 3)).toContain("alpha question about parsers");
    await second.prompt();
    second.type("/exit");
    expect(await second.exit()).toBe(0);

    // A chat in another project has none of it.
    const other = join(ws.root, "..", "other");
    mkdirSync(other);
    const third = new ChatPty([], { cwd: other, env });
    await third.prompt();
    third.send(UP);
    await Bun.sleep(300);
    expect(third.text).not.toContain("question about");
    third.type("/exit");
    expect(await third.exit()).toBe(0);
  }, 90_000);

  test("Tab completes a command and a path; a .gitignore'd file is not offered", async () => {
    await using mock = startMockAnthropic({ script: answers("Looked at the notes.") });
    using ws = workspace();
    mkdirSync(join(ws.root, "src"));
    mkdirSync(join(ws.root, "build-output"));
    writeFileSync(join(ws.root, "src", "main.ts"), "export {};\n");
    writeFileSync(join(ws.root, "notes.md"), "the notes\n");
    writeFileSync(join(ws.root, "debug.log"), "ignored\n");
    writeFileSync(join(ws.root, "build-output", "bundle.js"), "ignored\n");
    writeFileSync(join(ws.root, ".gitignore"), "*.log\nbuild-output/\n");
    mkdirSync(garudaPaths(ws.home).commands, { recursive: true });
    writeFileSync(
      join(garudaPaths(ws.home).commands, "review.md"),
      "---\ndescription: review the change\n---\nReview $ARGUMENTS\n",
    );
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();

    // A custom command, completed whole.
    chat.send("/rev");
    chat.send(TAB);
    await chat.waitFor("› /review ");
    chat.send(CTRL_U);
    // "/m": completed as far as /mode and /model agree, both listed with what they do.
    chat.send("/m");
    await chat.waitFor("show or switch the model");
    chat.send(TAB);
    const listed = await chat.waitFor("show or switch the model");
    expect(listed).toContain("› /mode");
    expect(listed).toContain("/mode   show or switch the mode");
    chat.send(CTRL_U);

    // A path: "@" lists the root's files and folders as it is typed; the ignored ones are not there.
    chat.send("look at @");
    const files = await chat.waitFor("@src/");
    expect(files).toContain("@notes.md");
    expect(files).toContain("@.gitignore");
    expect(chat.text).not.toContain("debug.log");
    expect(chat.text).not.toContain("build-output");
    // An ignored file is not offered or completed either.
    chat.send("deb");
    await chat.waitFor("(no file matches @deb)");
    chat.send(TAB);
    await chat.waitFor("(no file starts with @deb)");
    chat.send("\x7f\x7f\x7fno");
    chat.send(TAB);
    await chat.waitFor("› look at @notes.md ");
    chat.send(KEYS.enter);
    await chat.waitFor("Looked at the notes.");
    expect(userText(mock, 0)).toContain('<attached_file path="notes.md">\nthe notes\n');
    // A folder completes to its "/", and Tab goes on inside it.
    await chat.prompt();
    chat.send("@s");
    chat.send(TAB);
    await chat.waitFor("› @src/");
    chat.send(TAB);
    await chat.waitFor("› @src/main.ts ");
    chat.send(CTRL_U);
    chat.type("/exit");
    expect(await chat.exit()).toBe(0);
  }, 60_000);

  test("a long paste shows as one line and reaches the model whole", async () => {
    await using mock = startMockAnthropic({ script: answers("Read the log.") });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    const pasted = Array.from({ length: 3000 }, (_, i) => `log line ${i + 1}`).join("\n");
    chat.send("what is in this? ");
    chat.send(`\x1b[200~${pasted}\x1b[201~`);
    await chat.waitFor("› what is in this? [Pasted 3,000 lines]");
    chat.send(KEYS.enter);
    await chat.waitFor("Read the log.");
    expect(chat.text).not.toContain("log line 2999");
    const sent = userText(mock, 0);
    expect(sent).toContain(`what is in this? ${pasted}`);
    expect(sent).not.toContain("[Pasted");
    await chat.prompt();
    chat.type("/exit");
    expect(await chat.exit()).toBe(0);
  }, 60_000);

  test("@image.png reaches the model as an image block; a text-only model says why not", async () => {
    await using mock = startMockAnthropic({ script: answers("A tiny image.", "Text only.") });
    using ws = workspace();
    writeFileSync(join(ws.root, "shot.png"), PNG);
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("what is @shot.png");
    await chat.waitFor("A tiny image.");
    const image = userBlocks(mock, 0).find((block) => block.type === "image");
    expect(image?.source).toEqual({ type: "base64", media_type: "image/png", data: PNG.toString("base64") });
    await chat.prompt();
    chat.type("/exit");
    expect(await chat.exit()).toBe(0);

    mkdirSync(garudaPaths(ws.home).dir, { recursive: true });
    writeFileSync(
      garudaPaths(ws.home).models,
      JSON.stringify({ default: "claude-sonnet-5", models: { "claude-sonnet-5": { images: false } } }),
    );
    const textOnly = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await textOnly.prompt();
    textOnly.type("and now @shot.png");
    await textOnly.waitFor("@shot.png was not attached: claude-sonnet-5 takes text only");
    await textOnly.waitFor("Text only.");
    expect(userBlocks(mock, 1).some((block) => block.type === "image")).toBe(false);
    await textOnly.prompt();
    textOnly.type("/exit");
    expect(await textOnly.exit()).toBe(0);
  }, 60_000);
});
