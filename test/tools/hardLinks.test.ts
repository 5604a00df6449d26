// A hard-linked file (more than one name) cannot be told from its name: another of its names may
// be a secret. Such a file asks before it is read or attached, and says why; a broad allow rule
// does not skip the question, one that names the file does. A plain file swapped for a hard link
// to a secret after its check is refused, not read. (A hard link of a secret on the list itself is
// refused without a question: tools/secretTwins.test.ts.)
import { describe, expect, test } from "bun:test";
import { linkSync, renameSync } from "node:fs";
import { join } from "node:path";
import { createPermissionEngine } from "../../src/permission/engine.ts";
import type { ApprovalRequest } from "../../src/permission/types.ts";
import { attachMentions } from "../../src/runtime/mentions.ts";
import { tempRoot, writeFiles } from "../support/toolFixtures.ts";
import { approving, KEY, mentionsOf, pipeline, place, userRule } from "../support/toolPipeline.ts";

const WHY = "It has 2 names (hard links): another of them may be a secret file, which this name cannot show.";

/** A project file that is a second name of a file in the home that is not on the secrets list. */
function linkedSecret(where: { root: string; home: string }): void {
  writeFiles(where.home, { "private-notes.txt": `token ${KEY} ANTHROPIC\n` });
  linkSync(join(where.home, "private-notes.txt"), join(where.root, "innocent.txt"));
}

describe("a hard-linked file asks first", () => {
  test("read_file asks with the reason; denied, nothing is read; allowed once, the file is read", async () => {
    using where = place();
    linkedSecret(where);
    const denying = {
      asked: [] as ApprovalRequest[],
      ask: async (request: ApprovalRequest) => (denying.asked.push(request), "deny" as const),
    };
    const denied = await pipeline(where, { approver: denying }).call("read_file", { path: "innocent.txt" });
    expect(denied.status).toBe("denied");
    expect(denied.output).not.toContain(KEY);
    expect(denying.asked[0]?.note).toBe(WHY);
    expect(denying.asked[0]?.choices).toEqual(["once", "deny"]);
    const approver = approving();
    const allowed = await pipeline(where, { approver }).call("read_file", { path: "innocent.txt" });
    expect(allowed.status).toBe("completed");
    expect(allowed.output).toContain(KEY);
  });

  test("negative control: the same file with one name is read without a question", async () => {
    using where = place();
    writeFiles(where.root, { "innocent.txt": "plain\n" });
    const approver = approving();
    const outcome = await pipeline(where, { approver }).call("read_file", { path: "innocent.txt" });
    expect(outcome).toMatchObject({ status: "completed", output: "     1\tplain" });
    expect(approver.asked).toEqual([]);
  });

  test("read(**) does not skip the question; an allow rule naming the file does", async () => {
    using where = place();
    linkedSecret(where);
    const broad = approving();
    await pipeline(where, { approver: broad, rules: [userRule("allow", "read(**)")] }).call("read_file", {
      path: "innocent.txt",
    });
    expect(broad.asked).toHaveLength(1);
    const named = approving();
    const outcome = await pipeline(where, { approver: named, rules: [userRule("allow", "read(innocent.txt)")] }).call(
      "read_file",
      { path: "innocent.txt" },
    );
    expect(outcome.status).toBe("completed");
    expect(named.asked).toEqual([]);
  });

  test("grep named on the file asks, then searches it; symbols and find_definition ask too", async () => {
    using where = place();
    linkedSecret(where);
    const approver = approving();
    const p = pipeline(where, { approver, codeIndex: true });
    const grep = await p.call("grep", { pattern: "ANTHROPIC", path: "innocent.txt" });
    expect(grep.output).toContain(KEY);
    expect(approver.asked.map((request) => request.note)).toEqual([WHY]);
    linkSync(join(where.root, "innocent.txt"), join(where.root, "code.ts"));
    await p.call("symbols", { path: "code.ts" });
    await p.call("find_definition", { name: "x", path: "code.ts" });
    expect(approver.asked.map((request) => request.note)).toEqual([
      WHY,
      WHY.replace("2 names", "3 names"),
      WHY.replace("2 names", "3 names"),
    ]);
  });

  test(
    "a plain file replaced by a hard link to a secret after its check: refused, the " + "secret is not read",
    async () => {
      using where = place();
      writeFiles(where.root, { "f.txt": "harmless\n", "s.ts": "export const harmless = 1;\n" });
      const swap = (name: string) => () => {
        renameSync(join(where.root, name), join(where.root, `${name}.orig`));
        linkSync(join(where.home, ".garuda/credentials"), join(where.root, name));
      };
      // Swapped before the engine decides: the engine sees the secret's identity and refuses.
      const read = await pipeline(where, { pre: swap("f.txt") }).call("read_file", { path: "f.txt" });
      expect(read.status).toBe("denied");
      expect(read.output).toContain("f.txt is the same file as ~/.garuda/credentials");
      expect(read.output).not.toContain(KEY);
      const grep = await pipeline(where, { pre: () => {} }).call("grep", { pattern: "harmless", path: "f.txt.orig" });
      expect(grep.output).toBe("f.txt.orig:1:harmless");
      const symbols = await pipeline(where, { codeIndex: true, pre: swap("s.ts") }).call("symbols", { path: "s.ts" });
      expect(symbols.output).toContain("s.ts is the same file as ~/.garuda/credentials");
      expect(symbols.output).not.toContain(KEY);
    },
  );

  test("@-mention: a hard-linked file asks before it is attached, and says why", async () => {
    using where = place();
    linkedSecret(where);
    writeFiles(where.root, { "plain.txt": "plain text\n" });
    const asked: ApprovalRequest[] = [];
    const approver = { ask: async (request: ApprovalRequest) => (asked.push(request), "deny" as const) };
    const result = await mentionsOf(where, "see @innocent.txt and @plain.txt", approver);
    expect(asked.map((request) => request.note)).toEqual([WHY]);
    expect(result.blocks.map((block) => (block.type === "text" ? block.text : block.type))).toEqual([
      '<attached_file path="plain.txt">\nplain text\n\n</attached_file>',
    ]);
    expect(result.notices).toEqual([
      "@innocent.txt was not attached: The user denied this. Do not retry it or do " +
        "the same thing another way; ask the user how to go on.",
    ]);
    expect(JSON.stringify(result)).not.toContain(KEY);
  });

  test("@-mention of a FIFO is not attached, and says why", async () => {
    using root = tempRoot();
    Bun.spawnSync(["mkfifo", join(root.path, "pipe.txt")]);
    const engine = createPermissionEngine({ root: root.path, home: root.path, sandboxAvailable: true });
    const result = await attachMentions("see @pipe.txt", {
      root: root.path,
      home: root.path,
      engine,
      mode: "build",
      signal: new AbortController().signal,
    });
    expect(result).toEqual({
      blocks: [],
      notices: ["@pipe.txt was not attached: it is not a regular file (a pipe, socket or device)."],
    });
  });
});
