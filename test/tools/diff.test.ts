import { describe, expect, test } from "bun:test";
import { unifiedDiff } from "../../src/tools/diff.ts";

describe("unifiedDiff", () => {
  test("a change in the middle, with three lines of context", () => {
    const before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
    const after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
    expect(unifiedDiff("f.txt", before, after)).toEqual({
      text: "--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8",
      added: 1,
      removed: 1,
    });
  });

  test("a new file, and changes far apart in two hunks", () => {
    expect(unifiedDiff("n.txt", null, "a\nb\n").text).toBe("--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b");
    const before = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join("\n");
    const after = before.replace("l2\n", "L2\n").replace("l19", "L19");
    const diff = unifiedDiff("g.txt", before, after);
    expect(diff.text.match(/^@@/gm)).toHaveLength(2);
    expect(diff).toMatchObject({ added: 2, removed: 2 });
  });

  test("CRLF and LF versions of the same text do not differ; long diffs are cut with a count", () => {
    expect(unifiedDiff("w.txt", "a\r\nb\r\n", "a\nb\n").text).toBe("--- a/w.txt\n+++ b/w.txt");
    const big = unifiedDiff("big.txt", null, "x\n".repeat(5000), { maxChars: 1000 });
    expect(big.text.length).toBeLessThan(1100);
    expect(big.text).toMatch(/… \d+ more diff lines not shown$/);
  });
});
