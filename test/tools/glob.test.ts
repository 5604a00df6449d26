import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { planContext, session, tempRoot, writeFiles } from "../support/toolFixtures.ts";

function age(root: string, path: string, secondsAgo: number): void {
  const when = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(join(root, path), when, when);
}

describe("glob", () => {
  test("a name pattern matches at any depth, newest first", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.ts": "", "src/b.ts": "", "src/deep/c.ts": "", "src/d.js": "" });
    age(root.path, "a.ts", 300);
    age(root.path, "src/b.ts", 100);
    age(root.path, "src/deep/c.ts", 200);
    const result = await session(root.path).run("glob", { pattern: "*.ts" });
    expect(result.output).toBe("src/b.ts\nsrc/deep/c.ts\na.ts");
    expect(result.summary).toBe("3 files");
  });

  test("a pattern with a slash matches paths from the search folder; braces work", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "src/a.ts": "", "src/x/b.tsx": "", "test/c.ts": "", "src/e.md": "" });
    const s = session(root.path);
    expect((await s.run("glob", { pattern: "src/*.ts" })).output).toBe("src/a.ts");
    expect((await s.run("glob", { pattern: "src/**/*.{ts,tsx}" })).output.split("\n").sort()).toEqual([
      "src/a.ts",
      "src/x/b.tsx",
    ]);
    expect((await s.run("glob", { pattern: "*.ts", path: "test" })).output).toBe("test/c.ts");
    expect((await s.run("glob", { pattern: "nope/**/*.ts" })).output).toBe(
      "No files match nope/**/*.ts in the project (there is no folder nope).",
    );
  });

  test("respects .gitignore, nested .gitignore files and negations", async () => {
    using root = tempRoot();
    writeFiles(root.path, {
      ".gitignore": "dist/\n*.log\n",
      "dist/out.ts": "",
      "app.log": "",
      "src/a.ts": "",
      "src/.gitignore": "generated.ts\n!keep.log\n",
      "src/generated.ts": "",
      "src/keep.log": "",
      "src/drop.log.ts": "",
      "other/generated.ts": "",
    });
    const s = session(root.path);
    const all = (await s.run("glob", { pattern: "*" })).output.split("\n").sort();
    expect(all).toEqual([
      ".gitignore",
      "other/generated.ts",
      "src/.gitignore",
      "src/a.ts",
      "src/drop.log.ts",
      "src/keep.log",
    ]);
  });

  test("a folder named on purpose is searched even when .gitignore excludes it", async () => {
    using root = tempRoot();
    writeFiles(root.path, { ".gitignore": "dist/\n", "dist/out.js": "", "src/a.js": "" });
    const s = session(root.path);
    expect((await s.run("glob", { pattern: "*.js" })).output).toBe("src/a.js");
    expect((await s.run("glob", { pattern: "*.js", path: "dist" })).output).toBe("dist/out.js");
    expect((await s.run("glob", { pattern: "dist/*.js" })).output).toBe("dist/out.js");
  });

  test("never lists .git; node_modules only when the pattern or path names it", async () => {
    using root = tempRoot();
    writeFiles(root.path, {
      ".git/config": "",
      ".git/hooks/pre-commit": "",
      "node_modules/lib/index.js": "",
      "index.js": "",
    });
    const s = session(root.path);
    expect((await s.run("glob", { pattern: "*" })).output).toBe("index.js");
    expect((await s.run("glob", { pattern: "node_modules/**/*.js" })).output).toBe("node_modules/lib/index.js");
    expect((await s.run("glob", { pattern: "*.js", path: "node_modules" })).output).toBe("node_modules/lib/index.js");
  });

  test("hides sensitive files and paths the policy denies", async () => {
    using root = tempRoot();
    writeFiles(root.path, {
      ".env": "K=1",
      ".env.example": "K=",
      "keys/id_rsa": "",
      "secret/plan.md": "",
      "docs/plan.md": "",
    });
    const s = session(root.path, { withheld: (path) => path.startsWith(join(root.path, "secret")) });
    expect((await s.run("glob", { pattern: "*" })).output.split("\n").sort()).toEqual([".env.example", "docs/plan.md"]);
    // Negative control: without the policy predicate the folder shows; the sensitive files never do.
    expect((await session(root.path).run("glob", { pattern: "*" })).output.split("\n").sort()).toEqual([
      ".env.example",
      "docs/plan.md",
      "secret/plan.md",
    ]);
  });

  test("does not follow symlinked folders", async () => {
    using root = tempRoot();
    using outside = tempRoot();
    writeFiles(outside.path, { "far.ts": "" });
    writeFiles(root.path, { "near.ts": "" });
    symlinkSync(outside.path, join(root.path, "out"));
    expect((await session(root.path).run("glob", { pattern: "*.ts" })).output).toBe("near.ts");
  });

  test("shows at most 200 files with a note", async () => {
    using root = tempRoot();
    mkdirSync(join(root.path, "many"));
    writeFiles(root.path, Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`many/f${i}.txt`, ""])));
    const result = await session(root.path).run("glob", { pattern: "*.txt" });
    const out = result.output.split("\n");
    expect(out).toHaveLength(201);
    expect(out[200]).toBe("[Showing the 200 newest of 250 files. Narrow the pattern or the path to see the others.]");
  });

  test("errors say what to do", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.ts": "" });
    const s = session(root.path);
    expect((await s.run("glob", { pattern: "/etc/*.conf" })).output).toBe(
      'The pattern "/etc/*.conf" is a path, not a pattern relative to the search ' +
        'folder. Put the folder in "path" and the file pattern in "pattern".',
    );
    expect((await s.run("glob", { pattern: "../*.ts" })).output).toBe(
      'The pattern "../*.ts" climbs out of the search folder with "..". Put the folder in "path" instead.',
    );
    expect((await s.run("glob", { pattern: "*", path: "a.ts" })).output).toBe(
      'a.ts is a file, not a folder. Give its folder in "path", or use read_file to read it.',
    );
    expect((await s.run("glob", { pattern: "*", path: "missing" })).output).toBe(
      'Folder not found: missing. Give an existing folder in "path", or leave it out to search the whole project.',
    );
    expect((await s.run("glob", { pattern: "*.py" })).output).toBe(
      "No files match *.py in the project. (.git, node_modules and .gitignore'd files are not searched.)",
    );
  });

  test("describe: Search <pattern>, kind search, the folder as location", () => {
    using root = tempRoot();
    const tool = session(root.path).tool("glob");
    expect(tool.plan({ pattern: "**/*.ts", path: "src" }, planContext(root.path)).info).toEqual({
      title: "Search **/*.ts",
      kind: "search",
      locations: [{ path: join(root.path, "src") }],
    });
    expect(
      tool.plan({ pattern: "*.ts" }, { root: root.path, home: "/h", sandbox: null, executor: {} as never }).permission
        .target,
    ).toEqual({ kind: "path", path: root.path, access: "read" });
  });
});
