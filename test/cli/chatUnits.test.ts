// The chat's pure parts: hunks (U0), the line editor's text model and layout, key parsing, the
// command line's chat detection, the transcript's lines for each event, and the stop's lines.
import { describe, expect, test } from "bun:test";
import { isChatInvocation, promptArg, resumeArg } from "../../src/cli/chat/argv.ts";
import { OpenCalls } from "../../src/cli/chat/calls.ts";
import { colourDiff, fitLines, fitNote, wholeDiff } from "../../src/cli/chat/diffView.ts";
import { applyHunks, changeHunks, hunkLines, rejectedNote } from "../../src/tools/hunks.ts";
import { parseKeys, type Key } from "../../src/cli/keys.ts";
import { EditBuffer, layout } from "../../src/cli/chat/lineEditor.ts";
import { Screen } from "../../src/cli/chat/screen.ts";
import { COLOUR_STYLE, NO_STYLE, stripAnsi, styleFor } from "../../src/cli/chat/style.ts";
import { commandOutputLines } from "../../src/cli/chat/text.ts";
import { safeText } from "../../src/text/visible.ts";
import { callTitle } from "../../src/display/callTitle.ts";
import { unifiedDiff } from "../../src/tools/diff.ts";
import { Transcript } from "../../src/cli/chat/transcript.ts";
import { allowRules } from "../../src/cli/runCommand.ts";
import { jsonEvent } from "../../src/cli/run/jsonEvents.ts";

describe("hunks", () => {
  const old = "a\nb\nc\nd\ne\nf\ng\nh\n";
  const next = "a\nB\nc\nd\ne\nf\ng\nH\nnew\n";

  test("all hunks give the new text, none the old, some only theirs", () => {
    const hunks = changeHunks(old, next);
    expect(hunks).toHaveLength(2);
    expect(applyHunks(old, hunks, [true, true])).toBe(next);
    expect(applyHunks(old, hunks, [false, false])).toBe(old);
    expect(applyHunks(old, hunks, [true, false])).toBe("a\nB\nc\nd\ne\nf\ng\nh\n");
    expect(applyHunks(old, hunks, [false, true])).toBe("a\nb\nc\nd\ne\nf\ng\nH\nnew\n");
  });

  test("line ends are kept exactly: CRLF, and no newline at the end", () => {
    const crlf = "one\r\ntwo\r\nthree";
    const changed = "one\r\nTWO\r\nthree\r\nfour";
    const hunks = changeHunks(crlf, changed);
    expect(
      applyHunks(
        crlf,
        hunks,
        hunks.map(() => true),
      ),
    ).toBe(changed);
    expect(
      applyHunks(
        crlf,
        hunks,
        hunks.map(() => false),
      ),
    ).toBe(crlf);
  });

  test("a new file is one hunk; the hunk's lines carry context and a header", () => {
    expect(changeHunks(null, "x\ny\n")).toHaveLength(1);
    const [first] = changeHunks(old, next);
    expect(hunkLines(old, first as NonNullable<typeof first>)).toEqual([
      "@@ -1,4 +1,4 @@",
      " a",
      "-b",
      "+B",
      " c",
      " d",
    ]);
  });

  test("the note for the model names the rejected hunk and what it would have done", () => {
    const hunks = changeHunks(old, next);
    const note = rejectedNote("/p/f.txt", old, hunks, [true, false]);
    expect(note).toContain("1 of 2 hunks were written");
    expect(note).toContain("hunk 2:");
    expect(note).toContain("-h\n+H\n+new");
    expect(note).not.toContain("+B");
  });
});

describe("the line editor", () => {
  const keys = (text: string): Key[] => parseKeys(text).keys;
  const typed = (buffer: EditBuffer, text: string) => keys(text).map((key) => buffer.apply(key));

  test("typing, moving, deleting words and lines", () => {
    const buffer = new EditBuffer();
    typed(buffer, "hello world");
    expect(buffer.text).toBe("hello world");
    typed(buffer, "\x17");
    expect(buffer.text).toBe("hello ");
    typed(buffer, "\x01X\x05Y");
    expect(buffer.text).toBe("Xhello Y");
    typed(buffer, "\x1b[D\x1b[D\x7f");
    expect(buffer.text).toBe("Xhell Y");
    typed(buffer, "\x15");
    expect(buffer.text).toBe(" Y");
    expect(typed(buffer, "\r")).toEqual(["submit"]);
  });

  test("multi-line: Alt-Enter, Ctrl-J, a trailing backslash; a paste keeps its newlines", () => {
    const buffer = new EditBuffer();
    typed(buffer, "one\x1b\rtwo\nthree\\\r");
    expect(buffer.text).toBe("one\ntwo\nthree\n");
    typed(buffer, "\x1b[200~four\r\nfive\x1b[201~");
    expect(buffer.text).toBe("one\ntwo\nthree\nfour\nfive");
  });

  test("Shift-Enter inserts a newline in each form terminals send it; plain Enter still sends", () => {
    for (const shiftEnter of ["\x1b[13;2u", "\x1b[27;2;13~", "\x1b\r"]) {
      const buffer = new EditBuffer();
      expect(typed(buffer, `one${shiftEnter}two`)).not.toContain("submit");
      expect(buffer.text).toBe("one\ntwo");
      expect(typed(buffer, "\r")).toEqual(["submit"]);
    }
    // Another CSI-u key (Ctrl-Enter's 13;5u) is not taken for a newline or for Enter.
    expect(keys("\x1b[13;5u")).toEqual([]);
  });

  test("history with up and down keeps the draft", () => {
    const buffer = new EditBuffer(["first", "second"]);
    typed(buffer, "draft");
    typed(buffer, "\x1b[A");
    expect(buffer.text).toBe("second");
    typed(buffer, "\x1b[A");
    expect(buffer.text).toBe("first");
    typed(buffer, "\x1b[B\x1b[B");
    expect(buffer.text).toBe("draft");
  });

  test("Ctrl-C, Ctrl-D on an empty line, Shift-Tab", () => {
    const buffer = new EditBuffer();
    expect(typed(buffer, "\x03\x04\x1b[Z")).toEqual(["interrupt", "eof", "toggle-mode"]);
  });

  test("a paste split over two chunks waits for its end", () => {
    const first = parseKeys("a\x1b[200~par");
    expect(first.keys).toEqual([{ name: "char", char: "a" }]);
    expect(parseKeys(`${first.rest}t\x1b[201~`).keys).toEqual([{ name: "paste", text: "part" }]);
  });

  test("layout: wrapping, continuation lines, and the cursor", () => {
    expect(layout("› ", "  ", "abc", 3, 20)).toMatchObject({
      output: "› abc",
      cursorRow: 0,
      cursorColumn: 5,
      endRow: 0,
      endColumn: 5,
    });
    expect(layout("› ", "  ", "one\ntwo", 1, 20)).toMatchObject({
      output: "› one\r\n  two",
      cursorRow: 0,
      cursorColumn: 3,
      endRow: 1,
      endColumn: 5,
    });
    // 2 + 8 = 10 columns exactly: the layout adds the line break the terminal would delay.
    expect(layout("› ", "  ", "abcdefgh", 8, 10)).toMatchObject({
      output: "› abcdefgh\r\n",
      cursorRow: 1,
      cursorColumn: 0,
      endRow: 1,
      endColumn: 0,
    });
    expect(layout("› ", "  ", "abcdefghijkl", 12, 10)).toMatchObject({ cursorRow: 1, cursorColumn: 4, endRow: 1 });
    expect(layout("\x1b[1m›\x1b[22m ", "  ", "x", 1, 20)).toMatchObject({ cursorColumn: 3 });
  });
});

describe("the command line", () => {
  const commands = ["acp", "models", "run", "setup"];

  test("no command word is the chat; an id after --resume is not a command", () => {
    expect(isChatInvocation([], commands)).toBe(true);
    expect(isChatInvocation(["--continue", "--model", "x"], commands)).toBe(true);
    expect(isChatInvocation(["--resume", "20261006-1400-ab12"], commands)).toBe(true);
    expect(isChatInvocation(["--resume", "run"], commands)).toBe(false);
    expect(isChatInvocation(["run", "task"], commands)).toBe(false);
    expect(isChatInvocation(["--model", "x", "acp"], commands)).toBe(false);
    // A word that names no command is the chat's first prompt; after `--` even a command's name is.
    expect(isChatInvocation(["fix the failing test"], commands)).toBe(true);
    expect(isChatInvocation(["--plan", "--", "run"], commands)).toBe(true);
    expect(promptArg(["--plan", "fix", "the test"])).toBe("fix the test");
    expect(promptArg(["--resume", "20261006-1400-ab12", "go on"])).toBe("go on");
    expect(promptArg(["-m", "claude-opus-5", "--", "--help me"])).toBe("--help me");
    expect(promptArg(["--continue"])).toBeUndefined();
    expect(isChatInvocation(["bogus"], commands)).toBe(true);
  });

  test("--resume with and without an id; every --allow", () => {
    expect(resumeArg([])).toBeUndefined();
    expect(resumeArg(["--resume"])).toBe("");
    expect(resumeArg(["-r", "--plan"])).toBe("");
    expect(resumeArg(["--resume", "abc"])).toBe("abc");
    expect(resumeArg(["--resume=abc"])).toBe("abc");
    expect(allowRules(["--allow", "bash(a *)", "x", "--allow=edit_file(b)", "--", "--allow", "no"])).toEqual([
      "bash(a *)",
      "edit_file(b)",
    ]);
  });
});

/** A transcript over one recording screen, as in the chat (or two, as in `garuda run`). */
function recorder(live = false) {
  const out: string[] = [];
  const screen = new Screen({ write: (text: string) => out.push(text) }, live, false);
  const calls = new OpenCalls();
  const transcript = new Transcript({ answer: screen, activity: screen, style: NO_STYLE, showThinking: true, calls });
  return { transcript, calls, text: () => out.join("") };
}

describe("the transcript", () => {
  test("text, thinking, a call with its progress and result, and a notice", () => {
    const { transcript, text } = recorder();
    transcript.beginTurn();
    transcript.event({ type: "thinking_delta", text: "Hmm." });
    transcript.event({ type: "text_delta", text: "Let me " });
    transcript.event({ type: "text_delta", text: "look." });
    transcript.event({
      type: "tool_call",
      callId: "c1",
      tool: "bash",
      input: { command: "ls" },
      info: { title: "$ ls\x1b[31m", kind: "execute", locations: [] },
    });
    transcript.event({ type: "tool_progress", callId: "c1", text: "a.txt\nb.txt" });
    transcript.event({ type: "tool_progress", callId: "c1", text: "a.txt\nb.txt" });
    transcript.event({
      type: "tool_result",
      callId: "c1",
      status: "completed",
      output: "a.txt\nb.txt",
      summary: "2 lines",
    });
    transcript.event({ type: "notice", level: "warning", text: "careful" });
    transcript.endTurn();
    expect(text()).toBe(
      "✻ Thinking\nHmm.\n\nLet me look.\n\n● $ ls⟨U+001B⟩[31m\n  │ b.txt\n  ⎿ 2 lines\nGaruda: careful\n",
    );
  });

  test("answer text cannot carry terminal control sequences", () => {
    expect(safeText("ok\x1b]0;title\x07 \u202Eevil\n\tend")).toBe("ok⟨U+001B⟩]0;title⟨U+0007⟩ ⟨U+202E⟩evil\n\tend");
  });

  test("a denied call and a failed one; parallel results name their call", () => {
    const { transcript, text } = recorder();
    transcript.beginTurn();
    transcript.event({
      type: "tool_call",
      callId: "a",
      tool: "read_file",
      input: {},
      info: { title: "Read a.txt", kind: "read", locations: [] },
    });
    transcript.event({
      type: "tool_call",
      callId: "b",
      tool: "edit_file",
      input: {},
      info: { title: "Edit b.txt", kind: "edit", locations: [] },
    });
    transcript.event({ type: "tool_result", callId: "a", status: "failed", output: "Error: no such file" });
    transcript.event({
      type: "tool_result",
      callId: "b",
      status: "denied",
      output: "Permission denied: The user denied this.",
    });
    expect(text()).toContain("  ✗ Read a.txt: Error: no such file\n");
    expect(text()).toContain("  ✗ Edit b.txt: Permission denied: The user denied this.\n");
    expect(transcript.denied).toEqual([{ title: "Edit b.txt", reason: "The user denied this." }]);
  });

  test("after a stop, a call that still returns is shown cancelled", () => {
    const { transcript, calls, text } = recorder();
    transcript.beginTurn();
    transcript.event({
      type: "tool_call",
      callId: "s",
      tool: "bash",
      input: {},
      info: { title: "$ sleep 60", kind: "execute", locations: [] },
    });
    calls.stop();
    transcript.event({ type: "tool_result", callId: "s", status: "completed", output: "Exit code: 143" });
    expect(text()).toContain("  ✗ Cancelled.\n");
    expect(calls.ended().map((call) => call.title)).toEqual(["$ sleep 60"]);
  });

  test("a live screen shows progress and the working hint as a status line, erased by the next line", () => {
    const out: string[] = [];
    const screen = new Screen({ write: (text: string) => out.push(text), columns: 40 }, true, false);
    const calls = new OpenCalls();
    const transcript = new Transcript({
      answer: screen,
      activity: screen,
      style: NO_STYLE,
      showThinking: true,
      calls,
      workingHint: "Working…",
    });
    transcript.beginTurn();
    expect(out.join("")).toBe("\r\x1b[KWorking…");
    transcript.event({
      type: "tool_call",
      callId: "c",
      tool: "bash",
      input: {},
      info: { title: "$ make", kind: "execute", locations: [] },
    });
    transcript.event({
      type: "tool_progress",
      callId: "c",
      text: "compiling a very long file name that does not fit in forty columns",
    });
    // Cut to the terminal's width (one column spare), so the line never wraps.
    expect(out.at(-1)).toBe("\r\x1b[K  │ compiling a very long file name th…");
    expect([...stripAnsi(out.at(-1) as string).slice(1)].length).toBe(39);
    transcript.event({ type: "tool_result", callId: "c", status: "completed", output: "ok" });
    expect(out.join("")).toContain("\r\x1b[K  ⎿ ok\n");
  });

  test("on a terminal, Garuda's lines wrap at words to the window, continuation lines indented", () => {
    const out: string[] = [];
    const screen = new Screen({ write: (text: string) => out.push(text), columns: 40 }, true, false);
    const transcript = new Transcript({
      answer: screen,
      activity: screen,
      style: NO_STYLE,
      showThinking: true,
      calls: new OpenCalls(),
    });
    transcript.beginTurn();
    transcript.notice("the conversation was compacted to make room for the next answer.");
    transcript.event({
      type: "tool_call",
      callId: "r",
      tool: "read_file",
      input: {},
      info: { title: "Read a.txt", kind: "read", locations: [] },
    });
    transcript.event({
      type: "tool_result",
      callId: "r",
      status: "failed",
      output: "Error: the file a.txt does not exist in this project folder",
    });
    const shown = stripAnsi(out.join(""));
    expect(shown).toContain(
      "Garuda: the conversation was compacted\n        to make room for the next\n        answer.\n",
    );
    expect(shown).toContain("  ✗ Error: the file a.txt does not\n    exist in this project folder\n");
    for (const line of shown.split("\n")) expect(line.length).toBeLessThanOrEqual(39);
  });

  test(
    "a command's output: a failure shows its last lines under the result, a success " +
      "its last two, dimmed and made safe",
    () => {
      const out: string[] = [];
      const screen = new Screen({ write: (text: string) => out.push(text), columns: 40 }, true, false);
      const calls = new OpenCalls();
      const transcript = new Transcript({
        answer: screen,
        activity: screen,
        style: COLOUR_STYLE,
        showThinking: true,
        calls,
        commandOutput: true,
      });
      transcript.beginTurn();
      const run = (id: string, status: "completed" | "failed", output: string, summary: string) => {
        transcript.event({
          type: "tool_call",
          callId: id,
          tool: "bash",
          input: {},
          info: { title: `$ ${id}`, kind: "execute", locations: [] },
        });
        transcript.event({ type: "tool_result", callId: id, status, output, summary });
      };
      const lines = Array.from({ length: 9 }, (_, i) => `line ${i + 1}`).join("\n");
      run(
        "make",
        "failed",
        `Exit code: 3\n${lines}\nerror: cannot find module \x1b[31mfoo\x1b[0m and a ` +
          `very long tail that does not fit\n[Garuda: this command ran in the OS sandbox ` +
          `…]`,
        "Exit code 3",
      );
      const failed = stripAnsi(out.join(""));
      expect(failed).toContain(
        "  ✗ Exit code 3\n    … 4 earlier lines not shown\n    line 5\n    line 6\n    " +
          "line 7\n    line 8\n    line 9\n    error: cannot find module ⟨U+001B⟩…\n",
      );
      expect(failed).not.toContain("[Garuda:");
      // Dimmed, and each line within the width (one column spare).
      expect(out.join("")).toContain("\x1b[2m    line 9\x1b[22m");
      for (const line of failed.split("\n")) expect([...line.replace(/^\r?\x1b\[K/, "")].length).toBeLessThan(40);
      out.length = 0;
      run("test", "completed", "Exit code: 0\nrunning\n12 passed\n0 failed", "Exit code 0");
      expect(stripAnsi(out.join(""))).toContain(
        "  ⎿ Exit code 0\n    … 1 earlier line not shown\n    12 passed\n    0 failed\n",
      );
      out.length = 0;
      run("quiet", "completed", "Exit code: 0\n(no output)", "Exit code 0");
      expect(stripAnsi(out.join(""))).toContain("  ⎿ Exit code 0\n");
      expect(stripAnsi(out.join(""))).not.toContain("no output");
    },
  );

  test("a command's output lines: none for a command that did not run", () => {
    expect(commandOutputLines("Exit code: 1\n\nboom\n\n[Garuda: hint]")).toEqual(["boom"]);
    expect(commandOutputLines("The command did not run: no sandbox.")).toEqual([]);
  });

  test("titles are the ACP titles: MCP tools as server/tool, subagents named, one visible line", () => {
    expect(
      callTitle("mcp__github__create_issue", { title: "mcp__github__create_issue", kind: "other", locations: [] }),
    ).toBe("github/create_issue");
    expect(callTitle("explore", { title: "Find the parser", kind: "think", locations: [] })).toBe(
      "Subagent: Find the parser",
    );
    expect(callTitle("todo", { title: "Update the plan", kind: "think", locations: [] })).toBe("Update the plan");
    expect(callTitle("bash", { title: "$ echo a\necho b", kind: "execute", locations: [] })).toBe("$ echo a ↵ echo b");
  });

  test("JSON events leave the change's file contents out and carry the title", () => {
    const line = jsonEvent({
      type: "tool_call",
      callId: "e",
      tool: "edit_file",
      input: { path: "a" },
      info: {
        title: "Edit a",
        kind: "edit",
        locations: [{ path: "/r/a" }],
        change: { path: "/r/a", oldText: "x", newText: "y" },
      },
    });
    expect(line).toEqual({
      type: "tool_call",
      callId: "e",
      tool: "edit_file",
      input: { path: "a" },
      title: "Edit a",
      kind: "edit",
      locations: [{ path: "/r/a" }],
    });
  });

  test("JSON events carry the usage and the plan, not a command's raw output chunks", () => {
    expect(jsonEvent({ type: "tool_output", callId: "b", data: "\u001b]52;c;ZXZpbA==\u0007raw" })).toBeUndefined();
    expect(jsonEvent({ type: "usage", used: 10, size: 100, cost: 0.01 })).toEqual({
      type: "usage",
      used: 10,
      size: 100,
      cost: 0.01,
    });
    expect(jsonEvent({ type: "plan", items: [{ content: "a", status: "pending" }] })).toEqual({
      type: "plan",
      items: [{ content: "a", status: "pending" }],
    });
  });
});

describe("style and previews", () => {
  test("colours only on a terminal without NO_COLOR; diffs coloured line by line", () => {
    expect(styleFor(false, {}).enabled).toBe(false);
    expect(styleFor(true, { NO_COLOR: "1" }).enabled).toBe(false);
    expect(styleFor(true, { TERM: "dumb" }).enabled).toBe(false);
    expect(styleFor(true, {}).enabled).toBe(true);
    const diff = colourDiff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new", COLOUR_STYLE);
    expect(diff).toContain("\x1b[31m-old\x1b[39m");
    expect(diff).toContain("\x1b[32m+new\x1b[39m");
    expect(stripAnsi(diff)).toBe("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new");
  });

  test("a preview fits the rows it gets: the count of what is left out is right, long diff lines are cut", () => {
    const fitted = fitLines("1\n2\n3\n4", 2, 80, true);
    expect(fitted).toEqual({ shown: ["1", "2"], hidden: 2, cut: false });
    expect(fitNote(fitted, "v")).toBe("… 2 more lines not shown ([v] shows all of it)");
    // The tool's own "… N more diff lines not shown" counts too, and is not shown as a line.
    expect(fitLines("a\nb\nc\n… 1910 more diff lines not shown", 2, 80, true).hidden).toBe(1911);
    const long = fitLines(`+${"x".repeat(100)}`, 5, 20, true);
    expect(long.shown).toEqual([`+${"x".repeat(18)}…`]);
    expect(fitNote(long, "v")).toBe("(long lines are cut to fit; [v] shows them whole)");
    // Not cut (a command must be seen whole): a long line takes the rows it wraps to.
    expect(fitLines(`${"x".repeat(50)}\nnext`, 2, 20, false)).toEqual({
      shown: ["x".repeat(50)],
      hidden: 1,
      cut: false,
    });
    expect(fitLines(`${"x".repeat(50)}\nnext`, 4, 20, false)).toEqual({
      shown: ["x".repeat(50), "next"],
      hidden: 0,
      cut: false,
    });
  });

  test("a change the tool's preview stopped early gets its whole diff from the change itself", () => {
    const newText = `${"x".repeat(20_000)}\n`;
    const toolPreview = unifiedDiff("one.txt", null, newText).text;
    // The tool's text stops before the only content line.
    expect(toolPreview).toBe("--- /dev/null\n+++ b/one.txt\n@@ -0,0 +1,1 @@\n… 1 more diff lines not shown");
    const whole = wholeDiff(toolPreview, { path: "/p/one.txt", oldText: null, newText });
    expect(whole.split("\n").slice(0, 3)).toEqual(["--- /dev/null", "+++ b/one.txt", "@@ -0,0 +1,1 @@"]);
    expect(whole.split("\n")[3]).toBe(`+${"x".repeat(20_000)}`);
    const rows = Array.from({ length: 5000 }, (_, i) => `row ${i}`).join("\n");
    const big = wholeDiff(unifiedDiff("big.txt", null, rows).text, {
      path: "/p/big.txt",
      oldText: null,
      newText: rows,
    });
    expect(fitLines(big, 30, 80, true).hidden).toBe(5003 - 30);
    // A preview the tool did not cut is its own.
    expect(wholeDiff("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b", { path: "/p/f", oldText: "a", newText: "b" })).toBe(
      "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b",
    );
  });
});
