// The hunk review's shared parts (tools/hunks.ts): a hunk's one-line label for a checkbox or a
// title, and the answer a review makes (once, deny, or the PartialApproval with its hunk numbers).
// Splitting and applying are tested with the chat's pure parts (test/cli/chatUnits.test.ts).
import { describe, expect, test } from "bun:test";
import { changeHunks, hunkAnswer, hunkLabel } from "../../src/tools/hunks.ts";

const OLD = "a\nb\nc\nd\ne\nf\n";
const NEW = "a\nB\nc\nd\ne\nF\ng\n";

describe("hunks for a review", () => {
  test("a label is the @@ line and the first removed and added lines, one visible line", () => {
    const hunks = changeHunks(OLD, NEW);
    expect(hunks.map((hunk) => hunkLabel(OLD, hunk))).toEqual(["@@ -2,1 +2,1 @@  -b  +B", "@@ -6,1 +6,2 @@  -f  +F"]);
    // A hidden character is shown, a line break folded, a long line cut.
    const sneaky = changeHunks("x\n", `x\ny\u202e${"z".repeat(300)}\n`);
    const label = hunkLabel("x\n", sneaky[0] as (typeof sneaky)[0]);
    expect(label).toContain("⟨U+202E⟩");
    expect(label).not.toContain("\n");
    expect(label.length).toBeLessThanOrEqual(160);
  });

  test("every hunk is once, none is deny, some is the partial text with which hunks", () => {
    const hunks = changeHunks(OLD, NEW);
    expect(hunkAnswer("/p/a.txt", OLD, hunks, [true, true])).toBe("once");
    expect(hunkAnswer("/p/a.txt", OLD, hunks, [false, false])).toBe("deny");
    const partial = hunkAnswer("/p/a.txt", OLD, hunks, [false, true]);
    expect(partial).toMatchObject({
      change: { path: "/p/a.txt", oldText: OLD, newText: "a\nb\nc\nd\ne\nF\ng\n" },
      hunks: { kept: [2], rejected: [1] },
    });
    expect(typeof partial === "object" && partial.note).toContain("hunk 1:\n@@ -2,1 +2,1 @@\n-b\n+B");
  });
});
