import { describe, expect, test } from "bun:test";
import { anchorPattern, escapeGlob, insideRoot, matchPathPattern } from "../../src/permission/pathMatch.ts";

const ctx = { root: "/work/proj", home: "/home/u", caseInsensitive: false };

describe("path patterns are anchored to the root, the home folder, or /", () => {
  const table: [pattern: string, path: string, matches: boolean][] = [
    // Relative with a slash: from the root.
    ["src/**", "/work/proj/src/a/b.ts", true],
    ["src/**", "/work/proj/lib/src/a.ts", false],
    ["src/*.ts", "/work/proj/src/a.ts", true],
    ["src/*.ts", "/work/proj/src/deep/a.ts", false],
    ["./README.md", "/work/proj/README.md", true],
    ["./README.md", "/work/proj/docs/README.md", false],
    // No slash: any depth inside the root, never outside it.
    ["*.pem", "/work/proj/a/b/c.pem", true],
    [".env", "/work/proj/.env", true],
    [".env", "/work/proj/packages/api/.env", true],
    [".env", "/other/.env", false],
    ["*", "/work/proj/.hidden", true],
    // A folder covers what is inside it.
    ["build", "/work/proj/build/out/x.js", true],
    ["src/", "/work/proj/src/a.ts", true],
    // Home.
    ["~/.config/**", "/home/u/.config/x/y", true],
    ["~/.config/**", "/work/proj/.config/x", false],
    // Absolute, in both spellings.
    ["/etc/**", "/etc/passwd", true],
    ["//etc/**", "/etc/passwd", true],
    ["/etc/**", "/work/proj/etc/x", false],
    // Glob features.
    ["src/{a,b}.ts", "/work/proj/src/b.ts", true],
    ["src/?.ts", "/work/proj/src/ab.ts", false],
    // A leading ! is a literal character, not a negation.
    ["!x", "/work/proj/y", false],
  ];
  test.each(table)("%p vs %p → %p", (pattern, path, matches) => {
    expect(matchPathPattern(pattern, path, ctx)).toBe(matches);
  });

  test("case-insensitive where the file system is", () => {
    expect(matchPathPattern("src/**", "/work/proj/SRC/a.ts", ctx)).toBe(false);
    expect(matchPathPattern("src/**", "/work/proj/SRC/a.ts", { ...ctx, caseInsensitive: true })).toBe(true);
  });

  test("anchors", () => {
    expect(anchorPattern("a.ts", "/h")).toEqual({ anchor: "root", glob: "**/a.ts" });
    expect(anchorPattern("./a.ts", "/h")).toEqual({ anchor: "root", glob: "a.ts" });
    expect(anchorPattern("~/x", "/h")).toEqual({ anchor: "absolute", glob: "/h/x" });
    expect(anchorPattern("//x", "/h")).toEqual({ anchor: "absolute", glob: "/x" });
  });

  test("insideRoot and escapeGlob", () => {
    expect(insideRoot("/work/proj/a/b", "/work/proj")).toBe("a/b");
    expect(insideRoot("/work/proj", "/work/proj")).toBe("");
    expect(insideRoot("/work/project2/a", "/work/proj")).toBeUndefined();
    expect(insideRoot("/etc", "/work/proj")).toBeUndefined();
    const escaped = `./${escapeGlob("app/[id].tsx")}`;
    expect(matchPathPattern(escaped, "/work/proj/app/[id].tsx", ctx)).toBe(true);
    expect(matchPathPattern(escaped, "/work/proj/app/i.tsx", ctx)).toBe(false);
  });
});
