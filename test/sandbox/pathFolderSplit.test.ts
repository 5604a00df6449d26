// splitAroundPathFolders (src/sandbox/pathFolderSplit.ts) over a fake tree: a writable folder
// that holds a PATH folder keeps every other folder writable, and the PATH folder, its subfolders
// (what its programs run) but pnpm's store, and the folders on the way read-only; a folder that
// holds none is itself.
import { describe, expect, test } from "bun:test";
import { dirname } from "node:path";
import type { PathKind } from "../../src/sandbox/fsView.ts";
import { splitAroundPathFolders } from "../../src/sandbox/pathFolderSplit.ts";

/** A tree of folders (paths ending in "/") and files. */
function look(entries: string[]) {
  const dirs = new Set(entries.filter((e) => e.endsWith("/")).map((e) => e.slice(0, -1)));
  const files = new Set(entries.filter((e) => !e.endsWith("/")));
  const all = [...dirs, ...files];
  return {
    kind: (path: string): PathKind => (dirs.has(path) ? "dir" : files.has(path) ? "file" : "missing"),
    list: (path: string) =>
      all
        .filter((p) => dirname(p) === path)
        .map((p) => p.slice(path.length + 1))
        .sort(),
  };
}

const tree = look([
  "/h/.cache/",
  "/h/.cache/pip/",
  "/h/.cache/tools/",
  "/h/.cache/tools/bin/",
  "/h/.cache/tools/bin/sub/",
  "/h/.cache/tools/bin/prog",
  "/h/.cache/tools/lib/",
  "/h/.local/share/pnpm/",
  "/h/.local/share/pnpm/store/",
  "/h/.local/share/pnpm/global/",
  "/h/.local/share/pnpm/nodejs/",
  "/h/.local/share/pnpm/pnpm",
  "/h/.npm/",
]);

describe("writable folders split around the PATH folders they hold", () => {
  test("a PATH folder deep in a cache: the folders beside the way, not the PATH folder's own subfolders", () => {
    expect(splitAroundPathFolders(["/h/.cache", "/h/.npm"], ["/h/.cache/tools/bin", "/usr/bin"], tree)).toEqual([
      "/h/.cache/pip",
      "/h/.cache/tools/lib",
      "/h/.npm",
    ]);
  });

  test(
    "a cache that is itself on PATH (pnpm's home): its store only, not global/ or " +
      "nodejs/; two nested PATH folders split twice",
    () => {
      expect(splitAroundPathFolders(["/h/.local/share/pnpm"], ["/h/.local/share/pnpm"], tree)).toEqual([
        "/h/.local/share/pnpm/store",
      ]);
      expect(splitAroundPathFolders(["/h/.cache"], ["/h/.cache/tools/bin/sub", "/h/.cache/tools/bin"], tree)).toEqual([
        "/h/.cache/pip",
        "/h/.cache/tools/lib",
      ]);
    },
  );

  test("negative control: PATH folders outside the writable folders (or /) change nothing", () => {
    expect(splitAroundPathFolders(["/h/.cache", "/h/.npm"], ["/usr/bin", "/h/.local/bin", "/"], tree)).toEqual([
      "/h/.cache",
      "/h/.npm",
    ]);
  });
});
