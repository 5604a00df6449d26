import { describe, expect, test } from "bun:test";
import { Screen } from "../../src/cli/chat/screen.ts";
import { displayWidth, wrapLine, hangingWrap, wrapWords } from "../../src/cli/wrap.ts";

describe("wrapping the terminal's own lines", () => {
  test("wrapWords breaks at blanks and cuts only a word wider than the line", () => {
    expect(wrapWords("the models you can use: claude-opus-5, claude-sonnet-5", 20)).toEqual([
      "the models you can",
      "use: claude-opus-5,",
      "claude-sonnet-5",
    ]);
    expect(wrapWords("x".repeat(25), 10)).toEqual(["x".repeat(10), "x".repeat(10), "x".repeat(5)]);
  });

  test("hangingWrap indents the continuation lines", () => {
    expect(hangingWrap("one two three four five", 12, "• ", "  ")).toBe("• one two\n  three four\n  five");
  });

  test("wrapLine leaves a line that fits as it is, spacing and all", () => {
    expect(wrapLine("  1  allow   bash(git *)", 40)).toBe("  1  allow   bash(git *)");
  });

  test("wrapLine breaks a long line at words, continuation indented past the line's own indent", () => {
    const line = "  There is no model in the catalog; the models you can use: claude-opus-5, claude-sonnet-5.";
    const rows = wrapLine(line, 40).split("\n");
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) expect(displayWidth(row)).toBeLessThanOrEqual(40);
    expect(rows[0]?.startsWith("  There")).toBe(true);
    for (const row of rows.slice(1)) expect(row.startsWith("    ")).toBe(true);
    // No word was cut: every word of the line is whole in one row.
    for (const word of line.trim().split(" ")) expect(rows.some((row) => row.includes(word))).toBe(true);
  });

  test("a line coloured as a whole keeps its indent when it wraps", () => {
    const dim = `\x1b[2m  ${"word ".repeat(10).trim()}\x1b[22m`;
    expect(wrapLine(dim, 30).split("\n")).toEqual([
      "  \x1b[2mword word word word word",
      "    word word word word word\x1b[22m",
    ]);
  });

  test("colour codes do not count toward the width", () => {
    const red = `\x1b[31m${"word ".repeat(7).trim()}\x1b[39m`;
    expect(wrapLine(red, 40)).toBe(red);
  });

  test("Screen.line fits each line to a terminal's width, and leaves a pipe's lines whole", () => {
    const long =
      'There is no model "claude-nonexistent-9" in the catalog or ' +
      "~/.garuda/models.json. The models you can use: claude-opus-5, claude-sonnet-5, " +
      "claude-haiku-4-5.";
    const terminal: string[] = [];
    new Screen({ write: (text: string) => terminal.push(text), columns: 50, rows: 20 }, true, false).line(long);
    const rows = terminal
      .join("")
      .split("\n")
      .filter((row) => row !== "");
    expect(rows.length).toBeGreaterThan(2);
    for (const row of rows) expect(displayWidth(row)).toBeLessThanOrEqual(49);
    expect(rows.join(" ").replace(/ +/g, " ")).toBe(long);
    const pipe: string[] = [];
    new Screen({ write: (text: string) => pipe.push(text), columns: 50 }, false, false).line(long);
    expect(pipe.join("")).toBe(`${long}\n`);
  });
});
