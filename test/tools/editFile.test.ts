import { describe, expect, test } from "bun:test";
import { chmodSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { planContext, session, tempRoot, writeFiles } from "../support/toolFixtures.ts";

const ctxOf = (root: string) => ({ root, home: "/home/u", sandbox: null, executor: {} as never });
const CODE = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n";

async function readSession(root: string, files: Record<string, string>) {
  writeFiles(root, files);
  const s = session(root);
  for (const path of Object.keys(files)) await s.run("read_file", { path });
  return s;
}

describe("edit_file", () => {
  test("replaces a unique exact match, snapshots first, and shows the result", async () => {
    using root = tempRoot();
    const s = await readSession(root.path, { "a.ts": CODE });
    const result = await s.run("edit_file", { path: "a.ts", old_string: "  return 2;", new_string: "  return 20;" });
    expect(result.isError).toBeUndefined();
    expect(readFileSync(join(root.path, "a.ts"), "utf8")).toBe(CODE.replace("return 2;", "return 20;"));
    expect(result.output).toBe(
      "Edited a.ts at line 6. The file now reads:\n     4\t\n     5\tfunction b() {\n " +
        "    6\t  return 20;\n     7\t}\n     8\t",
    );
    expect(result.summary).toBe("Edited a.ts (+1 −1)");
    expect(s.log.writes).toEqual([[join(root.path, "a.ts")]]);
  });

  test("needs a read first (negative control: the same edit after a read works)", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.ts": CODE });
    const s = session(root.path);
    const unread = await s.run("edit_file", { path: "a.ts", old_string: "return 1;", new_string: "return 10;" });
    expect(unread.isError).toBe(true);
    expect(unread.output).toBe(
      "You have not read a.ts in this session. Read it with read_file first, then " +
        "make the edit against its current text.",
    );
    expect(readFileSync(join(root.path, "a.ts"), "utf8")).toBe(CODE);
    await s.run("read_file", { path: "a.ts" });
    expect(
      (await s.run("edit_file", { path: "a.ts", old_string: "return 1;", new_string: "return 10;" })).isError,
    ).toBeUndefined();
  });

  test("a file changed since the read is stale until read again", async () => {
    using root = tempRoot();
    const s = await readSession(root.path, { "a.ts": CODE });
    writeFileSync(join(root.path, "a.ts"), `${CODE}// formatter was here\n`);
    const stale = await s.run("edit_file", { path: "a.ts", old_string: "return 1;", new_string: "return 10;" });
    expect(stale.output).toBe(
      "a.ts has changed since you last read it (the user, a command or a formatter " +
        "changed it). Read it again with read_file, then redo the edit against the " +
        "current text.",
    );
    await s.run("read_file", { path: "a.ts" });
    expect(
      (await s.run("edit_file", { path: "a.ts", old_string: "return 1;", new_string: "return 10;" })).isError,
    ).toBeUndefined();
    expect(readFileSync(join(root.path, "a.ts"), "utf8")).toEndWith("// formatter was here\n");
  });

  test("a touched but unchanged file is not stale", async () => {
    using root = tempRoot();
    const s = await readSession(root.path, { "a.ts": CODE });
    const later = new Date(Date.now() + 5000);
    utimesSync(join(root.path, "a.ts"), later, later);
    expect(
      (await s.run("edit_file", { path: "a.ts", old_string: "return 1;", new_string: "return 3;" })).isError,
    ).toBeUndefined();
  });

  test("a second edit works without reading again", async () => {
    using root = tempRoot();
    const s = await readSession(root.path, { "a.ts": CODE });
    await s.run("edit_file", { path: "a.ts", old_string: "return 1;", new_string: "return 10;" });
    const second = await s.run("edit_file", { path: "a.ts", old_string: "return 2;", new_string: "return 20;" });
    expect(second.isError).toBeUndefined();
    expect(readFileSync(join(root.path, "a.ts"), "utf8")).toBe(
      CODE.replace("return 1;", "return 10;").replace("return 2;", "return 20;"),
    );
  });

  test("not found: shows the closest lines with numbers and says to copy the exact text", async () => {
    using root = tempRoot();
    const s = await readSession(root.path, { "a.ts": CODE });
    const result = await s.run("edit_file", {
      path: "a.ts",
      old_string: "function bee() {",
      new_string: "function c() {",
    });
    expect(result.isError).toBe(true);
    expect(result.output).toBe(
      "old_string was not found in a.ts. The closest lines are:\n     1\tfunction a() " +
        "{\n--\n     5\tfunction b() {\nCopy the exact text from the file, including " +
        "whitespace and indentation (read_file shows it after the line number and tab), " +
        "or read the file again if it may have changed.",
    );
  });

  test("not found because of whitespace: points at the line", async () => {
    using root = tempRoot();
    const s = await readSession(root.path, { "a.ts": CODE });
    const result = await s.run("edit_file", {
      path: "a.ts",
      old_string: "function b() {\n    return 2;\n}",
      new_string: "x",
    });
    expect(result.output).toStartWith(
      "old_string was not found in a.ts. The same text is at line 5 with different " +
        "whitespace or indentation:\n     5\tfunction b() {\n     6\t  return 2;\n     " +
        "7\t}\n",
    );
  });

  test("not found because read_file's line numbers were copied", async () => {
    using root = tempRoot();
    const s = await readSession(root.path, { "a.ts": CODE });
    const result = await s.run("edit_file", {
      path: "a.ts",
      old_string: "     2\t  return 1;",
      new_string: "  return 5;",
    });
    expect(result.output).toStartWith(
      "old_string was not found in a.ts. It seems to include read_file's line " +
        "numbers: leave out the number and the tab before each line.",
    );
  });

  test("several matches: their lines, and add context or use replace_all", async () => {
    using root = tempRoot();
    const s = await readSession(root.path, { "a.ts": CODE });
    const result = await s.run("edit_file", { path: "a.ts", old_string: "return", new_string: "yield" });
    expect(result.output).toBe(
      "old_string occurs 2 times in a.ts (lines 2, 6). Add surrounding lines to " +
        "old_string so it matches only the one you mean, or set replace_all to true to " +
        "change all of them.",
    );
    const all = await s.run("edit_file", {
      path: "a.ts",
      old_string: "return",
      new_string: "yield",
      replace_all: true,
    });
    expect(all.output).toStartWith("Edited a.ts at 2 places (lines 2, 6).");
    expect(readFileSync(join(root.path, "a.ts"), "utf8")).toBe(CODE.replaceAll("return", "yield"));
  });

  test("old_string equal to new_string, or empty, is refused with advice", async () => {
    using root = tempRoot();
    const s = await readSession(root.path, { "a.ts": CODE });
    expect((await s.run("edit_file", { path: "a.ts", old_string: "return 1;", new_string: "return 1;" })).output).toBe(
      "old_string and new_string are the same, so the edit would change nothing. Give the new text in new_string.",
    );
    expect((await s.run("edit_file", { path: "a.ts", old_string: "", new_string: "x" })).output).toStartWith(
      "old_string is empty.",
    );
    expect((await s.run("edit_file", { path: "missing.ts", old_string: "a", new_string: "b" })).output).toBe(
      "File not found: missing.ts. To create a file, use write_file.",
    );
  });

  test("CRLF files keep CRLF when the model sends LF", async () => {
    using root = tempRoot();
    const crlf = "first line\r\nsecond line\r\nthird line\r\n";
    const s = await readSession(root.path, { "win.txt": crlf });
    const result = await s.run("edit_file", {
      path: "win.txt",
      old_string: "first line\nsecond line",
      new_string: "first line\nnew second\nextra",
    });
    expect(result.isError).toBeUndefined();
    const after = readFileSync(join(root.path, "win.txt"), "utf8");
    expect(after).toBe("first line\r\nnew second\r\nextra\r\nthird line\r\n");
    expect(after.replace(/\r\n/g, "")).not.toContain("\n");
  });

  test("replacement text is literal ($& and $1 are not patterns); a byte-order mark is kept", async () => {
    using root = tempRoot();
    const s = await readSession(root.path, { "a.txt": "\uFEFFprice: X\n" });
    await s.run("edit_file", { path: "a.txt", old_string: "X", new_string: "$& and $1" });
    expect(readFileSync(join(root.path, "a.txt"), "utf8")).toBe("\uFEFFprice: $& and $1\n");
  });

  test("keeps the file mode and leaves no temp files", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "tool.sh": "echo old\n" });
    chmodSync(join(root.path, "tool.sh"), 0o755);
    const s = session(root.path);
    await s.run("read_file", { path: "tool.sh" });
    await s.run("edit_file", { path: "tool.sh", old_string: "old", new_string: "new" });
    expect(statSync(join(root.path, "tool.sh")).mode & 0o777).toBe(0o755);
    expect(readdirSync(root.path)).toEqual(["tool.sh"]);
  });

  test("plan() computes the whole-file change and the line, and previews a diff", async () => {
    using root = tempRoot();
    const s = await readSession(root.path, { "a.ts": CODE });
    const tool = s.tool("edit_file");
    const args = { path: "a.ts", old_string: "return 2;", new_string: "return 22;" };
    expect(tool.plan(args, planContext(root.path)).info).toEqual({
      title: "Edit a.ts",
      kind: "edit",
      locations: [{ path: join(root.path, "a.ts"), line: 6 }],
      change: { path: join(root.path, "a.ts"), oldText: CODE, newText: CODE.replace("return 2;", "return 22;") },
    });
    const request = tool.plan(args, ctxOf(root.path)).permission;
    expect(request.target).toEqual({ kind: "path", path: join(root.path, "a.ts"), access: "write" });
    expect(request.preview).toBe(
      "--- a/a.ts\n+++ b/a.ts\n@@ -3,5 +3,5 @@\n }\n \n function b() {\n-  return 2;\n+  return 22;\n }",
    );
    // An edit that cannot apply has no change and says why in the preview.
    const bad = { path: "a.ts", old_string: "nope", new_string: "x" };
    expect(tool.plan(bad, planContext(root.path)).info.change).toBeUndefined();
    expect(tool.plan(bad, ctxOf(root.path)).permission.preview).toStartWith(
      `Edit ${join(root.path, "a.ts")}\n(This edit cannot be made as asked: old_string was not found in a.ts.`,
    );
    expect(tool.plan(bad, ctxOf(root.path)).cannotRun).toStartWith("old_string was not found in a.ts.");
  });

  test("binary and non-UTF-8 files are refused", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "img.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0]) });
    const s = session(root.path);
    expect((await s.run("edit_file", { path: "img.png", old_string: "a", new_string: "b" })).output).toBe(
      "img.png is a PNG image; edit_file edits UTF-8 text files only.",
    );
  });
});
