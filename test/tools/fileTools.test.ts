import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { fileTools } from "../../src/tools/fileTools.ts";
import { isSensitivePath } from "../../src/tools/withheldPaths.ts";
import { sensitivePattern } from "../../src/permission/sensitive.ts";
import { ReadTracker } from "../../src/tools/readTracker.ts";
import { session, tempRoot, writeFiles } from "../support/toolFixtures.ts";

describe("fileTools()", () => {
  test("the tools, their read-only flags, and model-facing size per tool (description + schema ≤ 1.5 KB)", () => {
    const tools = fileTools({ home: "/home/u" });
    expect(tools.map((t) => [t.name, t.readOnly])).toEqual([
      ["read_file", true],
      ["glob", true],
      ["grep", true],
      ["write_file", false],
      ["edit_file", false],
      ["symbols", true],
      ["find_definition", true],
    ]);
    for (const tool of tools) {
      const size = tool.description.length + JSON.stringify(z.toJSONSchema(tool.input as z.ZodType)).length;
      expect({ tool: tool.name, small: size <= 1536 }).toEqual({ tool: tool.name, small: true });
    }
    expect(fileTools({ home: "/home/u", codeIndex: false }).map((t) => t.name)).toEqual([
      "read_file",
      "glob",
      "grep",
      "write_file",
      "edit_file",
    ]);
  });

  test("a shared tracker: a read through one tool set lets another with the same tracker edit", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.txt": "x\n" });
    const reads = new ReadTracker();
    await session(root.path, { reads }).run("read_file", { path: "a.txt" });
    expect(
      (await session(root.path, { reads }).run("edit_file", { path: "a.txt", old_string: "x", new_string: "y" }))
        .isError,
    ).toBeUndefined();
    // Negative control: a fresh tracker has seen nothing.
    expect(
      (await session(root.path).run("edit_file", { path: "a.txt", old_string: "y", new_string: "z" })).isError,
    ).toBe(true);
  });

  test("the fast sensitive-path check agrees with the permission engine's list", () => {
    const paths = [
      "/p/.env",
      "/p/.env.local",
      "/p/.env.example",
      "/p/src/app.ts",
      "/home/u/.ssh/id_ed25519",
      "/home/u/.ssh/config",
      "/p/certs/server.pem",
      "/p/certs/server.PEM",
      "/p/a.key",
      "/p/keyboard.ts",
      "/p/.npmrc",
      "/p/.config/gcloud/creds.db",
      "/p/credentials.json",
      "/p/id_rsa.pub",
      "/p/docs/environment.md",
    ];
    for (const path of paths)
      expect({ path, hidden: isSensitivePath(path) }).toEqual({ path, hidden: sensitivePattern(path) !== undefined });
  });
});
