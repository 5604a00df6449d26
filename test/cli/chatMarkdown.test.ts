// The chat's answer as rendered Markdown and its status rows, in a real pseudo-terminal against
// the mock Anthropic server: headings, emphasis, lists, a table and highlighted code while the
// answer streams; the spinner with its seconds while the model works; the status line (model,
// mode, context, cost) under the prompt, updated after the response; plain text in a pipe and
// with NO_COLOR.
import { describe, expect, test } from "bun:test";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, chatEnv, runPipedIn, workspace } from "../support/chatHarness.ts";
import { renderScreen } from "../support/screenModel.ts";

const ANSWER = [
  "# Plan",
  "",
  "Use **bold** and *italic* words, `code`, and a [link](https://example.com/docs).",
  "",
  "- first item",
  "- second item",
  "",
  "> quoted words",
  "",
  "| Name | Size |",
  "|------|-----:|",
  "| a.ts | 12 |",
  "",
  "```ts",
  "const answer: number = 42;",
  "```",
  "",
  "The end of the answer, with enough words to be wrapped at a word boundary in a window of eighty columns.",
].join("\n");

const script = (delayMs = 0) => [
  {
    delayMs,
    steps: [{ type: "text" as const, text: ANSWER, fragments: 40 }],
    usage: { input_tokens: 30_000, output_tokens: 2_000 },
  },
];

describe("the chat renders Markdown as it streams", () => {
  test("headings, emphasis, lists, quote, table and highlighted code; wrapped at " +
    "words; status line after the response", async () => {
    await using mock = startMockAnthropic({ script: script(20) });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home), cols: 80 });
    await chat.prompt();
    // The status line under the prompt before anything was sent: model, mode, context, cost.
    await chat.waitFor(/claude-sonnet-5 · build mode · context [\d.,KM]+ \/ [\d.KM]+ \(\d+%\) · \$0\.00/);
    chat.type("Show me Markdown");
    // While the model works: the spinner with its seconds and the stop key.
    await chat.waitFor(/Working… \d+s · Ctrl-C to stop/);
    await chat.waitFor("The end of the answer");
    await chat.prompt();
    const raw = chat.raw;
    // The Markdown signs are gone; the text is styled instead.
    expect(raw).toContain("\x1b[1m\x1b[4mPlan\x1b[24m\x1b[22m");
    expect(raw).toContain("\x1b[1mbold\x1b[22m");
    expect(raw).toContain("\x1b[3mitalic\x1b[23m");
    expect(raw).toContain("\x1b[36mcode\x1b[39m");
    expect(raw).toMatch(/\x1b\[4mlink\x1b\[24m\x1b\[39m \x1b\[2m\(https:\/\/example\.com\/docs\)/);
    expect(raw).toMatch(/\x1b\[36m•\x1b\[39m first item/);
    expect(raw).toMatch(/\x1b\[2m│\x1b\[22m quoted words/);
    // Code keywords and numbers coloured by highlight.js.
    expect(raw).toContain("\x1b[35mconst\x1b[39m");
    expect(raw).toContain("\x1b[33m42\x1b[39m");
    const text = chat.text;
    expect(text).not.toContain("**bold**");
    expect(text).not.toContain("# Plan");
    expect(text).toMatch(/Name │ Size\n─+┼─+\na\.ts │ +12/);
    // Wrapped at a word boundary to the 80-column window (79 usable), as the screen shows it.
    expect(renderScreen(raw, 80, 40)).toContain(
      "The end of the answer, with enough words to be wrapped at a word boundary in a",
    );
    // After the response: 30,000 + 2,000 tokens of the 200K window, and its cost, under the prompt.
    await chat.waitFor(/context 32K \/ [\d.KM]+ \(\d+%\) · \$0\.\d+/);
    chat.type("/exit");
    expect(await chat.exit()).toBe(0);
  }, 60_000);

  test("a resized window: the unfinished block is wrapped again to the new width", async () => {
    const long = "word ".repeat(60).trim();
    await using mock = startMockAnthropic({
      script: [{ delayMs: 40, steps: [{ type: "text", text: long, fragments: 60 }] }],
    });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home), cols: 80 });
    await chat.prompt();
    chat.type("Go");
    await chat.waitFor("word word word word");
    const at = chat.raw.length;
    chat.resize(40, 40);
    await chat.prompt();
    // The paragraph, unfinished when the window narrowed, was written at 40 columns: rows of at most 39, the whole
    // text.
    const rows = renderScreen(chat.raw, 80, 40, [{ at, cols: 40 }]).filter((row) => /^(word ?)+$/.test(row));
    // 60 words at 39 columns: 7 rows of 8 words (39 columns) and one of 4. A row drawn above them
    // may be left over in the model: bytes the chat wrote before it heard of the resize (SIGWINCH)
    // are replayed at the new width, as no real terminal would.
    const last = rows.slice(-8);
    expect(last.join(" ")).toBe(long.split(" ").slice(-last.join(" ").split(" ").length).join(" "));
    expect(last.slice(0, -1).every((row) => row.length === 39)).toBe(true);
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(39);
    chat.type("/exit");
    expect(await chat.exit()).toBe(0);
  }, 60_000);

  test("NO_COLOR on a terminal: the answer as written, no colours; the status rows still shown", async () => {
    await using mock = startMockAnthropic({ script: script() });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home, { NO_COLOR: "1" }) });
    await chat.prompt();
    chat.type("Show me Markdown");
    await chat.waitFor("The end of the answer");
    await chat.prompt();
    expect(chat.text).toContain("Use **bold** and *italic* words");
    expect(chat.text).toContain("```ts\nconst answer: number = 42;\n```");
    expect(chat.raw).not.toMatch(/\x1b\[[0-9;]*m/);
    expect(chat.text).toMatch(/claude-sonnet-5 · build mode · context 32K/);
    chat.type("/exit");
    expect(await chat.exit()).toBe(0);
  }, 60_000);

  test("in a pipe: the answer as the model wrote it, no spinner, no status line", async () => {
    await using mock = startMockAnthropic({ script: script() });
    using ws = workspace();
    const result = await runPipedIn([], { cwd: ws.root, env: chatEnv(mock, ws.home), stdin: "Show me Markdown\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(ANSWER);
    expect(result.stdout).not.toContain("Working…");
    expect(result.stdout).not.toMatch(/context [\d.KM]+ \//);
    expect(result.stdout).not.toMatch(/\x1b\[/);
  }, 60_000);
});
