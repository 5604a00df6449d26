// The chat's smaller findings (issue 34.7): a prompt taller than the window redraws only the rows
// it shows, a resumed turn shows its steps on lines of their own, Bun's own hints stay out of
// error messages (nor in a crash's report), prices have at most 4 decimals, and the spinner says
// what runs.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { OpenCalls } from "../../src/cli/chat/calls.ts";
import type { ToolKind } from "../../src/core-types/callInfo.ts";
import type { AgentEvent } from "../../src/core-types/events.ts";
import { EditBuffer, layout } from "../../src/cli/chat/lineEditor.ts";
import { PromptView } from "../../src/cli/chat/promptView.ts";
import { promptRows, promptWindow } from "../../src/cli/chat/promptWindow.ts";
import { Screen } from "../../src/cli/chat/screen.ts";
import { turnSteps } from "../../src/cli/chat/sessions.ts";
import { Spinner } from "../../src/cli/chat/spinner.ts";
import { NO_STYLE, stripAnsi } from "../../src/cli/chat/style.ts";
import { Transcript } from "../../src/cli/chat/transcript.ts";
import { messageOf, stackOf, withoutRuntimeHints } from "../../src/errors/caught.ts";
import { dollars } from "../../src/text/money.ts";
import { renderScreen } from "../support/screenModel.ts";
import { runPipedIn } from "../support/chatHarness.ts";

/** A tool_call event of the turn's own (no parent call). */
const toolCall = (callId: string, tool: string, title: string, kind: ToolKind): AgentEvent => ({
  type: "tool_call",
  callId,
  tool,
  input: {},
  info: { title, kind, locations: [] },
});

describe("a prompt taller than the window", () => {
  const COLUMNS = 40;
  const ROWS = 10;
  const text = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n");

  test("edits keep each row once on screen: only the rows around the cursor are drawn", () => {
    let raw = "";
    const screen = new Screen({ write: (chunk: string) => (raw += chunk), columns: COLUMNS, rows: ROWS }, true);
    const buffer = new EditBuffer();
    buffer.set(text);
    const view = new PromptView(screen, "› ", "  ", buffer, () => "status line");
    view.draw();
    buffer.set(text, 0);
    view.draw();
    buffer.set(text, text.indexOf("line 17"));
    view.draw();
    buffer.set(`${text}!`);
    view.draw();
    const lines = renderScreen(raw, COLUMNS, ROWS);
    // Scrollback included: no row of the prompt was left behind by a redraw that could not reach it.
    for (let i = 1; i <= 30; i++) expect(lines.filter((line) => line.endsWith(`line ${i}`)).length).toBeLessThan(2);
    const shown = lines.slice(-ROWS);
    expect(shown.at(-2)).toBe("  line 30!");
    expect(shown.at(-1)).toBe("status line");
    expect(shown).toHaveLength(ROWS);
    // Sent: written whole, for good, each line once.
    view.commit();
    const sent = renderScreen(raw, COLUMNS, ROWS);
    for (let i = 1; i <= 29; i++) expect(sent.filter((line) => line.endsWith(`line ${i}`))).toHaveLength(1);
    expect(sent.filter((line) => line.endsWith("line 30!"))).toHaveLength(1);
    expect(sent).not.toContain("status line");
  });

  test("the window keeps its place while the cursor moves inside it and follows it past its edges", () => {
    const prompt = { prompt: "› ", continuation: "  ", text, columns: COLUMNS };
    const at = (cursor: number) => layout("› ", "  ", text, cursor, COLUMNS);
    expect(promptRows(prompt)).toHaveLength(30);
    const end = promptWindow(prompt, at(text.length), 9, 0);
    expect(end.top).toBe(21);
    expect(stripAnsi(end.view.output).split("\r\n")).toEqual(Array.from({ length: 9 }, (_, i) => `  line ${22 + i}`));
    expect(end.view.cursorRow).toBe(8);
    // Up into the window: it stays; above it: it moves just enough.
    expect(promptWindow(prompt, at(text.indexOf("line 25")), 9, end.top).top).toBe(21);
    const up = promptWindow(prompt, at(text.indexOf("line 3\n")), 9, end.top);
    expect(up.top).toBe(2);
    expect(up.view.cursorRow).toBe(0);
  });

  test("a wrapped line counts its rows, and text ending at the margin puts the cursor below", () => {
    const long = "x".repeat(COLUMNS * 2 - 2);
    const rows = promptRows({ prompt: "› ", continuation: "  ", text: long, columns: COLUMNS });
    expect(rows).toEqual([`› ${"x".repeat(COLUMNS - 2)}`, "x".repeat(COLUMNS), ""]);
    expect(layout("› ", "  ", long, long.length, COLUMNS).endRow).toBe(2);
  });
});

describe("a resumed turn", () => {
  test("its steps are parts of their own: texts before and after a call are not run together", () => {
    const steps = turnSteps({
      prompt: "Make the note final",
      events: [
        { type: "text_delta", text: "Reading first." },
        toolCall("r", "read_file", "Read notes.txt", "read"),
        { type: "tool_result", callId: "r", status: "completed", output: "a draft note" },
        { type: "text_delta", text: "The note " },
        { type: "text_delta", text: "is final now." },
      ],
    });
    expect(steps).toEqual(["Reading first.", "● Read notes.txt", "The note is final now."]);
  });
});

describe("Bun's own hints", () => {
  test("a refused connection says what failed, not Bun's question", () => {
    const error = new TypeError("ECONNREFUSED: Unable to connect. Is the computer able to access the url?");
    expect(messageOf(error)).toBe("ECONNREFUSED: Unable to connect.");
    expect(withoutRuntimeHints("FailedToOpenSocket: Was there a typo in the url or port?")).toBe("FailedToOpenSocket:");
    expect(
      withoutRuntimeHints(
        "The socket connection was closed unexpectedly. For more information, pass " +
          "`verbose: true` in the second argument to fetch()",
      ),
    ).toBe("The socket connection was closed unexpectedly.");
  });

  test("a crash report's Bun version and note lines are left out of the stack shown", () => {
    const error = new Error("boom");
    error.stack = "Error: boom\n    at run (src/x.ts:1:1)\n\nBun v1.4.5 (Linux x64)\nnote: missing sourcemaps";
    expect(stackOf(error)).toBe("Error: boom\n    at run (src/x.ts:1:1)");
  });
});

test("prices have at most 4 decimals", () => {
  expect(dollars(0.000003 * 1_000_000)).toBe("3");
  expect(dollars(15.000000000000002)).toBe("15");
  expect(dollars(0.12345678)).toBe("0.1235");
  expect(dollars(0.25)).toBe("0.25");
});

describe("the spinner", () => {
  const setup = () => {
    const screen = new Screen({ write: () => {}, columns: 80 }, true, false);
    const spinner = new Spinner({ screen, style: NO_STYLE, footer: () => undefined, now: () => 0 });
    const transcript = new Transcript({
      answer: screen,
      activity: screen,
      style: NO_STYLE,
      showThinking: false,
      calls: new OpenCalls(),
      spinner,
    });
    const label = () => (spinner.text().split("\n").at(-1) ?? "").replace(/^\S+ /, "").replace(/ \d+s · .*$/, "");
    return { spinner, transcript, label };
  };

  test("says what runs: a command, another tool by its title, Thinking… only while the model thinks", () => {
    const { spinner, transcript, label } = setup();
    transcript.beginTurn();
    expect(label()).toBe("Working…");
    transcript.event({ type: "thinking_delta", text: "Hmm." });
    expect(label()).toBe("Thinking…");
    transcript.event(toolCall("c", "bash", "$ npm test", "execute"));
    expect(label()).toBe("Running $ npm test…");
    transcript.event(toolCall("r", "read_file", "Read a.txt", "read"));
    expect(label()).toBe("Read a.txt…");
    transcript.event({ type: "tool_result", callId: "r", status: "completed", output: "x" });
    expect(label()).toBe("Running $ npm test…");
    transcript.event({ type: "tool_result", callId: "c", status: "completed", output: "ok" });
    expect(label()).toBe("Working…");
    transcript.event({ type: "text_delta", text: "Done." });
    expect(label()).toBe("Working…");
    transcript.endTurn();
    spinner.stop();
  });
});

describe("a crash of the chat", () => {
  const crash = (how: string) =>
    runPipedIn([how], {
      cwd: import.meta.dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      entry: join(import.meta.dir, "../fixtures/chatCrash.ts"),
    });

  test(
    "is reported as Garuda's, the terminal restored first, without Bun's version " + "line or source excerpt",
    async () => {
      for (const [how, message] of [
        ["throw", "Error: a bug in a timer"],
        ["rejection", "Error: a promise nobody awaited"],
      ] as const) {
        const result = await crash(how);
        expect(result.code).toBe(1);
        expect(result.stdout).toBe("terminal restored\n");
        expect(result.stderr).toContain(`garuda: unexpected error (please report it):\n${message}\n`);
        expect(result.stderr).not.toMatch(/Bun v\d/);
        expect(result.stderr).not.toContain("^");
      }
    },
  );
});
