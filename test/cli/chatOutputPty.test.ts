// Output as written (issue 34.5), in a real pseudo-terminal: an answer's single newlines kept, a
// table that ends at its last row, a URL and a line of code written whole (the terminal wraps
// them, so copying gives them back), thinking as one collapsed line, and the transcript view
// (Ctrl-O) with the thinking and a command's whole output, left with q.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, chatEnv, KEYS, plain, workspace } from "../support/chatHarness.ts";
import { renderScreen } from "../support/screenModel.ts";
import { NO_STYLE } from "../../src/cli/chat/style.ts";
import { Screen } from "../../src/cli/chat/screen.ts";
import { TranscriptLog } from "../../src/cli/chat/transcriptLog.ts";
import { fitRows, movement } from "../../src/cli/chat/pager.ts";
import type { Key } from "../../src/cli/keys.ts";

const URL = "https://example.com/a/very/long/path/that/goes/on/and/on/past/the/edge/of/the/window/index.html";
const CODE = 'const aVeryLongLineOfCode = "this line is much longer than the sixty columns of the window";';

const ANSWER = [
  "First line of the answer.",
  "Second line, not joined.",
  "",
  "| Name | Size |",
  "|------|-----:|",
  "| a.ts | 12 |",
  "The line after the table.",
  "",
  `See ${URL} for more.`,
  "",
  "```js",
  CODE,
  "```",
  "",
  "The end.",
].join("\n");

describe("the answer as written", () => {
  test("line breaks kept, a table ends at its last row, URLs and code lines not broken", async () => {
    await using mock = startMockAnthropic({
      script: [{ steps: [{ type: "text", text: ANSWER, fragments: 30 }] }],
    });
    using ws = workspace();
    const cols = 60;
    const rows = 40;
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home), cols, rows });
    await chat.prompt();
    chat.type("Show me");
    await chat.waitFor("The end.");
    await chat.prompt();
    const screen = renderScreen(chat.raw, cols, rows);
    const at = (text: string) => screen.findIndex((row) => row.includes(text));
    // A single newline of the answer is a line break on screen, not a blank.
    expect(screen[at("First line of the answer.")]).toBe("First line of the answer.");
    expect(screen[at("First line of the answer.") + 1]).toBe("Second line, not joined.");
    // The table ends at its last row; the line under it is text, not a table row.
    expect(screen[at("a.ts")]).toMatch(/a\.ts\s+│\s+12/);
    expect(screen[at("The line after the table.")]).toBe("The line after the table.");
    // The URL and the line of code were written whole, each on a row of its own: no line break
    // inside them (the terminal wraps them at its edge, so they take two rows on screen).
    expect(chat.text).toContain(`\n${URL}\n`);
    expect(plain(chat.raw)).toContain(CODE);
    expect(screen).toContain(URL.slice(0, cols));
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
  }, 60_000);
});

describe("thinking and the transcript view", () => {
  test("thinking is one collapsed line; Ctrl-O shows it and a command's whole output; q leaves", async () => {
    await using mock = startMockAnthropic({
      script: [
        {
          steps: [
            { type: "thinking", thinking: "Pondering deeply about the numbers.", signature: "sig-1" },
            { type: "tool_use", name: "bash", id: "toolu_seq", input: { command: "seq 101 130" } },
          ],
        },
        { steps: [{ type: "text", text: "Counted to 130." }] },
      ],
    });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home), cols: 80, rows: 45 });
    await chat.prompt();
    chat.type("Count");
    await chat.waitFor("✻ Thinking… (Ctrl-O to show)");
    await chat.waitFor("Counted to 130.");
    await chat.prompt();
    // On the chat's screen: the thinking collapsed, the command's last lines only.
    expect(chat.text).not.toContain("Pondering deeply");
    expect(chat.text).toContain("28 earlier lines not shown");
    expect(chat.text).not.toContain("    101\n");
    const before = chat.raw.length;
    chat.send("\x0f");
    await chat.waitFor(/Transcript · rows \d+–\d+ of \d+/);
    const view = plain(chat.raw.slice(before));
    // The alternate screen: leaving it gives the chat back as it was.
    expect(chat.raw.slice(before)).toContain("\x1b[?1049h");
    expect(view).toContain("› Count");
    expect(view).toContain("✻ Thinking\nPondering deeply about the numbers.");
    expect(view).toContain("● $ seq 101 130");
    for (let n = 101; n <= 130; n++) expect(view).toContain(`  │ ${n}\n`);
    expect(view).toContain("Counted to 130.");
    chat.send("q");
    await chat.waitFor(/› $/m);
    expect(chat.raw.slice(before)).toContain("\x1b[?1049l");
    // The prompt still works after the view.
    chat.type("/exit");
    expect(await chat.exit()).toBe(0);
  }, 60_000);
});

describe("the transcript view while a turn runs", () => {
  test("Ctrl-O opens it over the running turn, which goes on; its output comes after the view is left", async () => {
    await using mock = startMockAnthropic({
      script: [
        {
          steps: [
            { type: "thinking", thinking: "Pondering whether to wait.", signature: "sig-1" },
            { type: "tool_use", name: "bash", id: "toolu_sleep", input: { command: "sleep 1.5; echo rested" } },
          ],
        },
        { steps: [{ type: "text", text: "Slept well." }] },
      ],
    });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home), cols: 80, rows: 30 });
    await chat.prompt();
    chat.type("Wait a little");
    await chat.waitFor("Running $ sleep 1.5; echo rested…");
    const before = chat.raw.length;
    chat.send("\x0f");
    await chat.waitFor(/Transcript \(the turn goes on\) · rows/);
    expect(plain(chat.raw.slice(before))).toContain("✻ Thinking\nPondering whether to wait.");
    // The turn ends meanwhile (the model's request after the command); nothing of it is drawn over the view.
    const deadline = Date.now() + 15_000;
    while (mock.requests.length < 2 && Date.now() < deadline) await Bun.sleep(50);
    await Bun.sleep(500);
    expect(chat.raw.slice(before)).not.toContain("Slept well.");
    chat.send("q");
    await chat.waitFor("Slept well.");
    await chat.prompt();
    const after = chat.raw.slice(before);
    expect(after.indexOf("\x1b[?1049l")).toBeGreaterThan(0);
    expect(after.indexOf("\x1b[?1049l")).toBeLessThan(after.indexOf("Slept well."));
    expect(plain(after)).toContain("⎿ Exit code 0\n    rested");
    chat.type("/exit");
    expect(await chat.exit()).toBe(0);
  }, 60_000);

  test("a question closes the view, so it is seen and answered", async () => {
    await using mock = startMockAnthropic({
      script: [
        {
          steps: [
            { type: "tool_use", name: "read_file", id: "toolu_read", input: { path: "notes.txt" } },
            { type: "tool_use", name: "bash", id: "toolu_sleep", input: { command: "sleep 1" } },
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
        { steps: [{ type: "text", text: "Left as a draft." }] },
      ],
    });
    using ws = workspace();
    writeFileSync(join(ws.root, "notes.txt"), "a draft note\n");
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home), cols: 80, rows: 30 });
    await chat.prompt();
    chat.type("Edit after a nap");
    await chat.waitFor("Running $ sleep 1…");
    chat.send("\x0f");
    await chat.waitFor(/Transcript \(the turn goes on\) · rows/);
    // The edit's question: the view is left for it, and the question drawn after.
    await chat.waitFor("? Allow Edit notes.txt?");
    await chat.waitFor("[n] Deny");
    const shown = chat.raw.lastIndexOf("? Allow Edit notes.txt?");
    expect(chat.raw.lastIndexOf("\x1b[?1049l")).toBeLessThan(shown);
    await chat.answer("n");
    await chat.waitFor("Left as a draft.");
    await chat.prompt();
    chat.type("/exit");
    expect(await chat.exit()).toBe(0);
  }, 60_000);
});

test("the transcript names a call again above its output when other calls came between", () => {
  const log = new TranscriptLog();
  log.prompt("Look");
  log.thinking("First ");
  log.thinking("this.");
  log.call("Read a.txt");
  log.call("$ ls");
  log.output("Read a.txt", "alpha\nbeta\n");
  log.output("$ ls", "a.txt");
  log.answer("Done ");
  log.answer("now.");
  expect(log.lines(NO_STYLE)).toEqual([
    "› Look",
    "",
    "✻ Thinking",
    "First this.",
    "",
    "● Read a.txt",
    "● $ ls",
    "● Read a.txt",
    "  │ alpha",
    "  │ beta",
    "● $ ls",
    "  │ a.txt",
    "",
    "Done now.",
  ]);
});

test("the transcript view's keys: a line, a page, either end, or leave; long lines cut into rows that fit", () => {
  const key = (name: string): Key => (name.length === 1 ? { name: "char", char: name } : ({ name } as Key));
  expect(["up", "k"].map((name) => movement(key(name), 20))).toEqual([-1, -1]);
  expect(["down", "j", "enter"].map((name) => movement(key(name), 20))).toEqual([1, 1, 1]);
  expect(["page-up", "b", "page-down", " "].map((name) => movement(key(name), 20))).toEqual([-20, -20, 20, 20]);
  expect(["home", "g", "end", "G"].map((name) => movement(key(name), 20))).toEqual(["start", "start", "end", "end"]);
  expect(["q", "escape", "transcript", "interrupt"].map((name) => movement(key(name), 20))).toEqual(
    Array(4).fill("leave"),
  );
  expect(movement(key("x"), 20)).toBe(0);
  expect(fitRows(["", "x".repeat(25)], 11)).toEqual(["", "x".repeat(10), "x".repeat(10), "x".repeat(5)]);
});

test(
  "the live region never outgrows the window: wide tail rows are drawn in pieces, " + "the tail's last rows shown",
  () => {
    const cols = 30;
    const rows = 10;
    let raw = "";
    const screen = new Screen({ write: (text: string) => (raw += text), columns: cols, rows }, true);
    const status = ["Plan (0 of 2 done)", "  ▶ one", "  ☐ two", "⠹ Working… 1s"].join("\n");
    const code = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1}:${"x".repeat(50)}`);
    for (let n = 1; n <= 8; n++) {
      screen.tail(code(n));
      screen.status(status);
    }
    screen.tail([]);
    screen.write(`${code(8).join("\n")}\n`);
    screen.status(undefined);
    const lines = renderScreen(raw, cols, rows);
    // Every row of the block is on screen once (written whole, wrapped by the terminal); nothing
    // a redraw could not reach was left behind.
    for (let i = 1; i <= 8; i++) expect(lines.filter((line) => line.startsWith(`${i}:`))).toHaveLength(1);
    expect(lines.filter((line) => line.startsWith("Plan ("))).toHaveLength(0);
  },
);
