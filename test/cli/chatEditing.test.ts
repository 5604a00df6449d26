// The prompt editor's pure parts: long pastes collapsed to a mark and put back when sent, the
// Ctrl-R search, what Tab completes (commands, paths on their level, names anywhere) and the
// project's file index, bounded for a huge tree and keeping to .gitignore.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  complete,
  completionTarget,
  fuzzyFiles,
  fuzzyScore,
  listLines,
  matching,
  menuLines,
} from "../../src/cli/chat/completion.ts";
import { CompletionMenu } from "../../src/cli/chat/completionMenu.ts";
import {
  chatCompletion,
  commandCandidates,
  pathCandidates,
  ProjectFiles,
} from "../../src/cli/chat/completionSource.ts";
import { HistorySearch } from "../../src/cli/chat/historySearch.ts";
import { EditBuffer } from "../../src/cli/chat/lineEditor.ts";
import { expandPastes, pasteMark } from "../../src/cli/chat/pastes.ts";
import { type Key, parseKeys } from "../../src/cli/keys.ts";
import { tempDir } from "../support/tempDir.ts";

const keys = (text: string): Key[] => parseKeys(text).keys;
const typed = (buffer: EditBuffer, text: string) => keys(text).map((key) => buffer.apply(key));
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

describe("long pastes", () => {
  test("a long paste shows as its mark and is sent whole; a short one is typed in", () => {
    const buffer = new EditBuffer();
    typed(buffer, `see \x1b[200~${lines(3000)}\x1b[201~ and \x1b[200~short\x1b[201~`);
    expect(buffer.text).toBe("see [Pasted 3,000 lines] and short");
    expect(buffer.expanded).toBe(`see ${lines(3000)} and short`);
    const long = "x".repeat(5000);
    typed(buffer, `\x1b[200~${long}\x1b[201~`);
    expect(buffer.text).toEndWith("[Pasted 5,000 characters]");
  });

  test("Backspace takes a mark whole; a mark typed by hand, or pasted text that reads like one, stays text", () => {
    const buffer = new EditBuffer();
    typed(buffer, `a \x1b[200~${lines(20)}\x1b[201~`);
    expect(buffer.text).toBe("a [Pasted 20 lines]");
    typed(buffer, "\x7f");
    expect(buffer.text).toBe("a ");
    expect(buffer.expanded).toBe("a ");
    expect(
      expandPastes("[Pasted 2 lines] [Pasted 2 lines]", new Map([["[Pasted 2 lines]", "[Pasted 2 lines]\nx"]])),
    ).toBe("[Pasted 2 lines]\nx [Pasted 2 lines]");
    expect(pasteMark(lines(20), new Set(["[Pasted 20 lines]"]))).toBe("[Pasted 20 lines #2]");
  });

  test("a recalled prompt brings its pastes back", () => {
    const buffer = new EditBuffer([{ text: "old [Pasted 20 lines]", pastes: [["[Pasted 20 lines]", lines(20)]] }]);
    typed(buffer, "\x1b[A");
    expect(buffer.text).toBe("old [Pasted 20 lines]");
    expect(buffer.expanded).toBe(`old ${lines(20)}`);
    expect(buffer.entry).toEqual({ text: "old [Pasted 20 lines]", pastes: [["[Pasted 20 lines]", lines(20)]] });
  });
});

describe("Ctrl-R", () => {
  const history = [{ text: "fix the parser" }, { text: "run the tests" }, { text: "fix the screen" }];

  test("the newest match first, Ctrl-R for older ones, a failing search keeps the last match", () => {
    const search = new HistorySearch(history);
    expect(search.match?.text).toBe("fix the screen");
    for (const key of keys("fix")) search.apply(key);
    expect(search.match?.text).toBe("fix the screen");
    search.apply({ name: "history-search" });
    expect(search.match?.text).toBe("fix the parser");
    for (const key of keys("zzz")) search.apply(key);
    expect(search.label).toBe("(failing reverse-i-search)'fixzzz': ");
    expect(search.match?.text).toBe("fix the parser");
    for (const key of keys("\x7f\x7f\x7f")) search.apply(key);
    expect(search.label).toBe("(reverse-i-search)'fix': ");
  });

  test("Enter takes the match, a movement takes it and moves, Escape or Ctrl-G leaves", () => {
    const search = new HistorySearch(history);
    for (const key of keys("tests")) search.apply(key);
    expect(search.apply({ name: "enter" })).toEqual({ kind: "accept", entry: { text: "run the tests" } });
    expect(search.apply({ name: "left" })).toEqual({
      kind: "accept",
      entry: { text: "run the tests" },
      then: { name: "left" },
    });
    expect(search.apply({ name: "escape" })).toEqual({ kind: "cancel" });
    expect(search.apply({ name: "cancel" })).toEqual({ kind: "cancel" });
  });
});

describe("Tab completion", () => {
  const files = ["README.md", "src/cli/main.ts", "src/cli/chat/chat.ts", "src/config.ts", "docs/my notes.md"];

  test("what Tab completes: a command only at the start, an @path after a blank or at the start", () => {
    expect(completionTarget("/he", 3)).toEqual({ kind: "command", start: 1, word: "he" });
    expect(completionTarget("say /he", 7)).toBeUndefined();
    expect(completionTarget("look at @src/c", 14)).toEqual({ kind: "path", start: 9, word: "src/c" });
    expect(completionTarget("mail me@host", 12)).toBeUndefined();
    expect(completionTarget("plain words", 5)).toBeUndefined();
  });

  test("paths on their own level, folders with their slash; names anywhere when nothing on the level", () => {
    expect(pathCandidates("src/c", files)).toEqual([{ value: "src/cli/", folder: true }, { value: "src/config.ts" }]);
    expect(pathCandidates("", files).map((c) => c.value)).toEqual(["README.md", "docs/", "src/"]);
    expect(pathCandidates("chat", files)).toEqual([{ value: "src/cli/chat/chat.ts" }]);
  });

  test("one candidate goes in whole (a space after a file, none after a folder), several as far as they agree", () => {
    const path = (word: string) => ({ kind: "path" as const, start: 0, word });
    expect(complete(path("src/cl"), [{ value: "src/cli/", folder: true }])).toEqual({ insert: "src/cli/", list: [] });
    expect(complete(path("REA"), [{ value: "README.md" }])).toEqual({ insert: "README.md ", list: [] });
    expect(complete(path("docs/my"), [{ value: "docs/my notes.md" }]).insert).toBe('"docs/my notes.md" ');
    const several = complete(path("src/c"), pathCandidates("src/c", files));
    expect(several.insert).toBeUndefined();
    expect(several.list).toHaveLength(2);
    expect(
      complete(
        { kind: "command", start: 1, word: "m" },
        matching({ kind: "command", start: 1, word: "m" }, commandCandidates([])),
      ),
    ).toMatchObject({ insert: "mode" });
  });

  test("commands: the built-ins with what they do, then custom commands and skills", () => {
    const all = commandCandidates([
      { name: "review", description: "review the change" },
      { name: "help", description: "a shadowed one" },
    ]);
    expect(all.find((c) => c.value === "model")?.description).toContain("switch the model");
    expect(all.filter((c) => c.value === "help")).toHaveLength(1);
    expect(all.at(-1)).toEqual({ value: "review", description: "review the change" });
    expect(matching({ kind: "command", start: 1, word: "REV" }, all).map((c) => c.value)).toEqual(["review"]);
  });

  test("the list under the prompt is cut to its rows and to the width", () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ value: `file${i}.ts` }));
    const shown = listLines(many, "@", 40, 8);
    expect(shown).toHaveLength(8);
    expect(shown.at(-1)).toBe("  … 13 more (type more of the name)");
    expect(
      listLines([{ value: "x", description: "d".repeat(100) }], "/", 40).every((line) => [...line].length <= 39),
    ).toBe(true);
  });

  test("the file index keeps to .gitignore, never shows sensitive files, and stops at its bound", async () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, "src"));
    mkdirSync(join(dir.path, "dist"));
    writeFileSync(join(dir.path, ".gitignore"), "dist/\n*.tmp\n");
    writeFileSync(join(dir.path, "src", "a.ts"), "");
    writeFileSync(join(dir.path, "scratch.tmp"), "");
    writeFileSync(join(dir.path, "dist", "out.js"), "");
    writeFileSync(join(dir.path, ".env"), "KEY=1");
    const index = new ProjectFiles(dir.path, dir.path);
    expect((await index.list()).sort()).toEqual([".gitignore", "src/a.ts"]);
    expect(index.partial).toBe(false);
    for (let i = 0; i < 50; i++) writeFileSync(join(dir.path, "src", `f${i}.ts`), "");
    const bounded = new ProjectFiles(dir.path, dir.path, { files: 10, ms: 5_000 });
    expect(await bounded.list()).toHaveLength(10);
    expect(bounded.partial).toBe(true);
  });

  test("the file index leaves out what the session withholds (the team policy's denied paths)", async () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, "secrets"));
    writeFileSync(join(dir.path, "secrets", "plan.md"), "");
    writeFileSync(join(dir.path, "ok.md"), "");
    const denied = (absPath: string) => absPath.includes("/secrets/");
    expect((await new ProjectFiles(dir.path, dir.path, undefined, () => denied).list()).sort()).toEqual(["ok.md"]);
    // Control: without the session's predicate the file is offered.
    expect((await new ProjectFiles(dir.path, dir.path).list()).sort()).toEqual(["ok.md", "secrets/plan.md"]);
  });
});

describe("the menu as you type", () => {
  const files = ["README.md", "src/cli/chat/promptEditor.ts", "src/cli/chat/promptView.ts", "src/tools/edit.ts"];

  test("fuzzy: the name before the path, a run of letters before scattered ones, any case", () => {
    expect(fuzzyScore("pedit", "src/cli/chat/promptEditor.ts")).toBeDefined();
    expect(fuzzyScore("xyz", "src/cli/chat/promptEditor.ts")).toBeUndefined();
    expect(fuzzyFiles("edit", files, 10).map((file) => file.value)).toEqual([
      "src/tools/edit.ts",
      "src/cli/chat/promptEditor.ts",
    ]);
    expect(fuzzyFiles("PView", files, 10).map((file) => file.value)).toEqual(["src/cli/chat/promptView.ts"]);
    expect(fuzzyFiles("cli", files, 1)).toHaveLength(1);
  });

  test("the menu's rows keep the selected one in view, marked, and say how many there are", () => {
    const list = Array.from({ length: 10 }, (_, i) => ({ value: `c${i}`, description: `does ${i}` }));
    const top = menuLines(list, 0, "/", 80, 3, (line) => `[${line}]`);
    expect(top).toEqual(["[❯ /c0  does 0]", "  /c1  does 1", "  /c2  does 2", "  (1 of 10; ↑↓ to move)"]);
    const down = menuLines(list, 7, "/", 80, 3);
    expect(down.slice(0, 3)).toEqual(["  /c5  does 5", "  /c6  does 6", "❯ /c7  does 7"]);
    expect(menuLines(list.slice(0, 2), 1, "/", 80, 3)).toEqual(["  /c0  does 0", "❯ /c1  does 1"]);
    expect(menuLines([{ value: "x".repeat(50) }], 0, "@", 20, 3)[0]).toHaveLength(19);
  });

  test("opens on / and @, filters, keeps the selection, closes with Esc for that word only", async () => {
    const source = chatCompletion({
      commands: () => [{ name: "review", description: "review the change", kind: "command" } as never],
      files: { list: async () => files, partial: false } as unknown as ProjectFiles,
    });
    const menu = new CompletionMenu({ ...source, menu: source.menu as NonNullable<typeof source.menu> });
    await menu.update("hello", 5);
    expect(menu.open).toBe(false);
    await menu.update("/", 1);
    expect(menu.selected?.value).toBe("help");
    await menu.update("/re", 3);
    expect(menu.items.map((item) => item.value)).toEqual(["rewind", "review"]);
    menu.move(1);
    expect(menu.selected?.value).toBe("review");
    await menu.update("/rev", 4);
    expect(menu.selected?.value).toBe("review");
    // A name typed in full comes first, before names it starts.
    await menu.update("/mode", 5);
    expect(menu.items.map((item) => item.value).slice(0, 2)).toEqual(["mode", "model"]);
    menu.close();
    await menu.update("/model", 6);
    expect(menu.open).toBe(false);
    // Another word opens it again.
    await menu.update("/model @edit", 12);
    expect(menu.items.map((item) => item.value)).toEqual(["src/tools/edit.ts", "src/cli/chat/promptEditor.ts"]);
    expect(menu.lines(80)[0]).toBe("❯ @src/tools/edit.ts");
    await menu.update("@zzz", 4);
    expect(menu.lines(80)).toEqual(["  (no file matches @zzz)"]);
  });
});

describe("Esc Esc", () => {
  test("two Escapes in one write are two Escape keys (the rewind list), not an unknown Alt sequence", () => {
    expect(keys("\x1b\x1b")).toEqual([{ name: "escape" }, { name: "escape" }]);
    expect(keys("\x1b")).toEqual([{ name: "escape" }]);
  });
});
