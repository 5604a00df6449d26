import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeTextAtomic } from "../../src/tools/atomicWrite.ts";
import { ReadTracker } from "../../src/tools/readTracker.ts";
import { tempRoot, writeFiles } from "./fixtures.ts";

describe("writeTextAtomic", () => {
  test("a failed rename leaves the target as it was and no temp file", () => {
    using root = tempRoot();
    mkdirSync(join(root.path, "target-is-a-folder"));
    writeFiles(root.path, { "target-is-a-folder/inner.txt": "keep" });
    expect(() => writeTextAtomic(join(root.path, "target-is-a-folder"), "text")).toThrow();
    expect(readdirSync(root.path)).toEqual(["target-is-a-folder"]);
    expect(readFileSync(join(root.path, "target-is-a-folder/inner.txt"), "utf8")).toBe("keep");
  });

  test("new files get 0644 whatever the umask allows; folders are created", () => {
    using root = tempRoot();
    const path = join(root.path, "x/y/z.txt");
    expect(writeTextAtomic(path, "z")).toBe(0o644);
    expect(statSync(path).mode & 0o777).toBe(0o644);
    expect(readdirSync(join(root.path, "x/y"))).toEqual(["z.txt"]);
  });
});

describe("ReadTracker", () => {
  test("fresh, unread and stale by content, not by time", () => {
    const reads = new ReadTracker();
    const bytes = new TextEncoder().encode("one");
    expect(reads.check("/p/a", bytes)).toBe("unread");
    reads.record("/p/a", bytes, 1);
    expect(reads.check("/p/a", new TextEncoder().encode("one"))).toBe("fresh");
    expect(reads.check("/p/a", new TextEncoder().encode("two"))).toBe("stale");
    expect(reads.check("/p/a", new TextEncoder().encode("one!"))).toBe("stale");
    reads.clear();
    expect(reads.check("/p/a", bytes)).toBe("unread");
  });
});
