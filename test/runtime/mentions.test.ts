import { describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createPermissionEngine } from "../../src/permission/engine.ts";
import type { ApprovalRequest } from "../../src/permission/types.ts";
import { attachMentions, mentionedPaths } from "../../src/runtime/mentions.ts";
import { tempDir } from "../support/tempDir.ts";
import { writeFiles } from "../support/toolFixtures.ts";
import { approving, KEY, mentionsOf, pipeline, place } from "../support/toolPipeline.ts";

describe("@path mentions", () => {
  test("mentions are found, quoted ones too, trailing punctuation dropped", () => {
    expect(mentionedPaths('see @src/a.ts, and @"my notes.md" or mail me@example.com @src/a.ts.')).toEqual([
      "src/a.ts",
      "my notes.md",
    ]);
    // Inside a fenced block (pasted code, a file the editor sent along) an @ is text, not a mention.
    const pasted =
      "fix @src/a.ts\n```python\n@decorator\nimport @b.ts\n```\nand " +
      "@c.ts\n````file:///p/log.txt\nsee @secret.txt\n```\nstill inside " +
      "@d.ts\n````\n~~~\n@e.ts\n~~~";
    expect(mentionedPaths(pasted)).toEqual(["src/a.ts", "c.ts"]);
    // An unclosed fence runs to the end.
    expect(mentionedPaths("@a.ts\n```\n@b.ts")).toEqual(["a.ts"]);
  });

  test("a file in the root is attached; a sensitive one is not (with a notice); a file outside asks", async () => {
    using root = tempDir();
    using outside = tempDir();
    mkdirSync(join(root.path, "src"));
    writeFileSync(join(root.path, "src", "a.ts"), "export const a = 1;\n");
    writeFileSync(join(root.path, ".env"), "SECRET=hunter2\n");
    writeFileSync(join(outside.path, "b.txt"), "outside text\n");
    const engine = createPermissionEngine({ root: root.path, home: "/nonexistent-home", sandboxAvailable: true });
    const asked: ApprovalRequest[] = [];
    const approver = { ask: async (request: ApprovalRequest) => (asked.push(request), "once" as const) };
    const result = await attachMentions(
      `look at @src/a.ts and @.env and @${join(outside.path, "b.txt")} and ` +
        `@nothing-here and @missing.txt and @types/node`,
      {
        root: root.path,
        home: "/nonexistent-home",
        engine,
        mode: "build",
        approver,
        signal: new AbortController().signal,
      },
    );
    expect(result.blocks.map((b) => (b.type === "text" ? b.text : b.type))).toEqual([
      '<attached_file path="src/a.ts">\nexport const a = 1;\n\n</attached_file>',
      expect.stringContaining("outside text"),
    ]);
    // A name written as a file that is not there is said; "@nothing-here" and "@types/node" stay text.
    expect(result.notices).toHaveLength(2);
    expect(result.notices[0]).toStartWith("@.env was not attached:");
    expect(result.notices[1]).toBe("@missing.txt was not attached: there is no such file (missing.txt).");
    expect(JSON.stringify(result)).not.toContain("hunter2");
    expect(asked).toHaveLength(1);
    expect(asked[0]?.title).toContain("b.txt");
  });

  // A project file with two names asks before it is attached; while the user reads the question,
  // the path becomes a hard link of ~/.garuda/credentials, which has two names then too: the
  // number of names cannot tell, the identity of the file read can.
  function swapDuringQuestion(where: { root: string; home: string }) {
    writeFiles(where.root, { "notes.md": "my notes\n" });
    linkSync(join(where.root, "notes.md"), join(where.root, "notes.bak"));
    return () => {
      renameSync(join(where.root, "notes.md"), join(where.root, "notes.orig"));
      linkSync(join(where.home, ".garuda", "credentials"), join(where.root, "notes.md"));
    };
  }

  test(
    "a mention swapped during its question for a hard link of a secret is not " + "attached (as read_file refuses it)",
    async () => {
      using where = place();
      const approver = approving(swapDuringQuestion(where));
      const result = await mentionsOf(where, "see @notes.md", approver);
      expect(approver.asked).toHaveLength(1);
      expect(JSON.stringify(result.blocks)).not.toContain(KEY);
      expect(result.notices.join("\n")).toContain("is the same file as ~/.garuda/credentials");
      using other = place();
      const read = await pipeline(other, { approver: approving(swapDuringQuestion(other)) }).call("read_file", {
        path: "notes.md",
      });
      expect(read.output).not.toContain(KEY);
    },
  );

  test("negative control: a hard-linked project file, unchanged during its question, is attached", async () => {
    using where = place();
    writeFiles(where.root, { "notes.md": "my notes\n" });
    linkSync(join(where.root, "notes.md"), join(where.root, "notes.bak"));
    const approver = approving();
    const result = await mentionsOf(where, "see @notes.md", approver);
    expect(approver.asked).toHaveLength(1);
    expect(JSON.stringify(result.blocks)).toContain("my notes");
  });
});
