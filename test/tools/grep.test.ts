import { describe, expect, test } from "bun:test";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTree, planContext, session, tempRoot, writeFiles } from "../support/toolFixtures.ts";

const SOURCE = [
  "import x from 'y';",
  "",
  "function load() {",
  "  return fetchData();",
  "}",
  "",
  "function save() {",
  "  return storeData();",
  "}",
].join("\n");

describe("grep", () => {
  test("content mode lists path:line:text", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "src/a.ts": SOURCE, "src/b.ts": "// no functions here\n" });
    const result = await session(root.path).run("grep", { pattern: "function \\w+" });
    expect(result.output).toBe("src/a.ts:3:function load() {\nsrc/a.ts:7:function save() {");
    expect(result.summary).toBe("2 matches in 1 file");
  });

  test("context lines use '-' and groups are separated by '--'", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.ts": SOURCE });
    const result = await session(root.path).run("grep", { pattern: "return", context: 1 });
    expect(result.output).toBe(
      [
        "a.ts-3-function load() {",
        "a.ts:4:  return fetchData();",
        "a.ts-5-}",
        "--",
        "a.ts-7-function save() {",
        "a.ts:8:  return storeData();",
        "a.ts-9-}",
      ].join("\n"),
    );
    expect(() => session(root.path).tool("grep").input.parse({ pattern: "x", context: 6 })).toThrow();
  });

  test("files and count modes, ignoreCase and a glob filter", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.ts": "TODO one\ntodo two\n", "b.py": "# TODO three\n", "c.md": "nothing\n" });
    const s = session(root.path);
    expect((await s.run("grep", { pattern: "TODO", mode: "files" })).output).toBe("a.ts\nb.py");
    const counted = await s.run("grep", { pattern: "todo", mode: "count", ignoreCase: true });
    expect(counted).toEqual({ output: "a.ts:2\nb.py:1", summary: "3 matching lines in 2 files" });
    expect((await s.run("grep", { pattern: "TODO", glob: "*.py" })).output).toBe("b.py:1:# TODO three");
    expect((await s.run("grep", { pattern: "absent" })).output).toBe("No matches for absent in the project.");
  });

  test("caps results at maxResults with a note on how to see the rest", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "many.txt": Array.from({ length: 150 }, (_, i) => `hit ${i}`).join("\n") });
    const s = session(root.path);
    const byDefault = await s.run("grep", { pattern: "hit" });
    expect(byDefault.output.split("\n")).toHaveLength(101);
    expect(byDefault.output).toEndWith(
      "[Showing 100 of 150 matching lines. Narrow the search with path or glob, use " +
        'mode "count" for totals per file, or raise maxResults (up to 500).]',
    );
    expect((await s.run("grep", { pattern: "hit", maxResults: 500 })).output.split("\n")).toHaveLength(150);
    expect(() => s.tool("grep").input.parse({ pattern: "hit", maxResults: 501 })).toThrow();
  });

  test(
    "plain-text patterns (looked for as bytes first) match exactly what the regular " + "expression matches",
    async () => {
      using root = tempRoot();
      writeFiles(root.path, {
        "a.ts": "Client.send(x)\n",
        "b.ts": "ClientXsend(x)\n",
        "c.ts": "\uFEFFclient.send\r\n",
        "d.ts": "caf\u00e9 = 1\n",
      });
      const s = session(root.path);
      expect((await s.run("grep", { pattern: "Client\\.send", mode: "files" })).output).toBe("a.ts");
      expect((await s.run("grep", { pattern: "Client.send", mode: "files" })).output).toBe("a.ts\nb.ts");
      expect((await s.run("grep", { pattern: "client\\.send", mode: "files", ignoreCase: true })).output).toBe(
        "a.ts\nc.ts",
      );
      expect((await s.run("grep", { pattern: "send$", mode: "files" })).output).toBe("c.ts");
      expect((await s.run("grep", { pattern: "caf\u00e9", mode: "files" })).output).toBe("d.ts");
    },
  );

  test("an invalid regular expression is explained", async () => {
    using root = tempRoot();
    const result = await session(root.path).run("grep", { pattern: "load(" });
    expect(result.isError).toBe(true);
    expect(result.output).toStartWith("The pattern is not a valid JavaScript regular expression (");
    expect(result.output).toEndWith(
      "Escape special characters such as ( ) [ ] { } . * + ? with a backslash to search for them literally.",
    );
  });

  test("skips binary files and files over 1 MB (searchable when named)", async () => {
    using root = tempRoot();
    writeFiles(root.path, {
      "blob.bin": new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 1, 2]),
      "small.txt": "needle\n",
    });
    writeFileSync(join(root.path, "big.log.txt"), `${"x".repeat(1024 * 1024)}\nneedle\n`);
    const s = session(root.path);
    const result = await s.run("grep", { pattern: "needle", mode: "files" });
    expect(result.output).toBe(
      "small.txt\n[Not searched: 1 file over 1.0 MB (big.log.txt). Give one as path to search it (up to 10.0 MB).]",
    );
    expect((await s.run("grep", { pattern: "needle", path: "big.log.txt" })).output).toBe("big.log.txt:2:needle");
    expect((await s.run("grep", { pattern: "needle", path: "blob.bin" })).output).toBe(
      "blob.bin is a binary file; nothing was searched.",
    );
  });

  test("respects .gitignore, skips node_modules and .git, hides sensitive and denied files", async () => {
    using root = tempRoot();
    writeFiles(root.path, {
      ".gitignore": "build/\n",
      "build/out.js": "needle",
      "node_modules/m/index.js": "needle",
      ".git/COMMIT_EDITMSG": "needle",
      ".env": "TOKEN=needle",
      "private/notes.txt": "needle",
      "src/a.js": "needle",
    });
    const s = session(root.path, { withheld: (path) => path.startsWith(join(root.path, "private")) });
    expect((await s.run("grep", { pattern: "needle", mode: "files" })).output).toBe("src/a.js");
    expect((await s.run("grep", { pattern: "needle", mode: "files", path: "node_modules" })).output).toBe(
      "node_modules/m/index.js",
    );
    // Negative control: the same tree without the policy predicate shows the private file.
    expect((await session(root.path).run("grep", { pattern: "needle", mode: "files" })).output).toBe(
      "private/notes.txt\nsrc/a.js",
    );
    const named = await s.run("grep", { pattern: "needle", path: "private/notes.txt" });
    expect(named.isError).toBe(true);
    expect(named.output).toBe("private/notes.txt may not be searched (the policy hides it).");
  });

  test("searches symlinked files inside the root, never ones that lead out of it", async () => {
    using root = tempRoot();
    using outside = tempRoot();
    writeFiles(outside.path, { "far.txt": "needle far" });
    writeFiles(root.path, { "near.txt": "needle near" });
    symlinkSync(join(outside.path, "far.txt"), join(root.path, "far-link.txt"));
    symlinkSync(join(root.path, "near.txt"), join(root.path, "near-link.txt"));
    expect((await session(root.path).run("grep", { pattern: "needle" })).output).toBe(
      "near-link.txt:1:needle near\nnear.txt:1:needle near",
    );
  });

  test("CRLF files: $ anchors at the line end", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "win.txt": "alpha;\r\nbeta\r\n" });
    expect((await session(root.path).run("grep", { pattern: ";$" })).output).toBe("win.txt:1:alpha;");
  });

  test("a cancelled search stops and says so", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.txt": "needle\n" });
    const s = session(root.path);
    const controller = new AbortController();
    controller.abort();
    s.ctx.signal = controller.signal;
    expect(await s.run("grep", { pattern: "needle" })).toEqual({ output: "Cancelled.", isError: true });
  });

  test("describe: Search <pattern>, kind search", () => {
    using root = tempRoot();
    expect(session(root.path).tool("grep").plan({ pattern: "TODO" }, planContext(root.path)).info).toEqual({
      title: "Search TODO",
      kind: "search",
      locations: [{ path: root.path }],
    });
  });

  test("a 5,000-file tree: every marker found, ignored folders skipped", async () => {
    using root = tempRoot();
    const { markers } = makeTree(root.path, { files: 5000, markerEvery: 50, marker: "NEEDLE_5K" });
    const s = session(root.path);
    const started = performance.now();
    const count = await s.run("grep", { pattern: "NEEDLE_5K", mode: "files", maxResults: 500 });
    const grepMs = performance.now() - started;
    expect(count.summary).toBe(`${markers} files`);
    expect(count.output).not.toContain("dist/");
    expect(count.output).not.toContain("node_modules");
    const globbed = await s.run("glob", { pattern: "**/file3.ts" });
    expect(globbed.summary).toBe("500 files");
    expect(grepMs).toBeLessThan(10_000);
  }, 60_000);
});

test("grep stops at 50,000 characters of output and says so", async () => {
  using root = tempRoot();
  writeFiles(
    root.path,
    Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`f${String(i).padStart(3, "0")}.txt`, `hit ${"z".repeat(400)}\n`]),
    ),
  );
  const result = await session(root.path).run("grep", { pattern: "hit", maxResults: 500 });
  const shown = result.output.split("\n").filter((line) => line.includes(":1:hit")).length;
  expect(shown).toBeGreaterThan(100);
  expect(shown).toBeLessThan(130);
  expect(result.output).toEndWith(
    `[Showing ${shown} of 300 matching lines (the output limit is 50,000 ` +
      `characters). Narrow the search with path or glob, use mode "count" for totals ` +
      `per file.]`,
  );
  expect(result.output.length).toBeLessThan(50_500);
});
