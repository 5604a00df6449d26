import { describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { planContext, session, tempRoot, writeFiles } from "../support/toolFixtures.ts";

const ctxOf = (root: string) => ({ root, home: "/home/u", sandbox: null, executor: {} as never });

describe("write_file", () => {
  test("creates a file and its folders, after an undo snapshot of the real path", async () => {
    using root = tempRoot();
    const s = session(root.path);
    const target = join(root.path, "a/b/new.ts");
    let existedAtSnapshot: boolean | undefined;
    s.ctx.beforeWrite = async (paths) => {
      s.log.writes.push(paths);
      existedAtSnapshot = existsSync(target);
    };
    const result = await s.run("write_file", { path: "a/b/new.ts", content: "one\ntwo\n" });
    expect(result).toEqual({
      output: "Wrote 2 lines to a/b/new.ts (new file).",
      summary: "Wrote 2 lines to a/b/new.ts",
    });
    expect(readFileSync(target, "utf8")).toBe("one\ntwo\n");
    expect(s.log.writes).toEqual([[target]]);
    expect(existedAtSnapshot).toBe(false);
    expect(statSync(target).mode & 0o777).toBe(0o644);
  });

  test("replacing an existing file needs a read first (negative control: after the read it works)", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.txt": "old\n" });
    const s = session(root.path);
    const unread = await s.run("write_file", { path: "a.txt", content: "new\n" });
    expect(unread.isError).toBe(true);
    expect(unread.output).toBe(
      "a.txt already exists and you have not read it in this session. Read it with " +
        "read_file before replacing it, or use edit_file to change part of it.",
    );
    expect(readFileSync(join(root.path, "a.txt"), "utf8")).toBe("old\n");
    expect(s.log.writes).toEqual([]);
    await s.run("read_file", { path: "a.txt" });
    const replaced = await s.run("write_file", { path: "a.txt", content: "new\n" });
    expect(replaced.output).toBe("Wrote 1 line to a.txt (replaced the old content).");
    expect(readFileSync(join(root.path, "a.txt"), "utf8")).toBe("new\n");
  });

  test("a file changed since it was read is stale", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.txt": "v1\n" });
    const s = session(root.path);
    await s.run("read_file", { path: "a.txt" });
    writeFileSync(join(root.path, "a.txt"), "v2 by the user\n");
    const stale = await s.run("write_file", { path: "a.txt", content: "v3\n" });
    expect(stale.output).toBe(
      "a.txt has changed since you last read it (the user, a command or a formatter " +
        "changed it). Read it again with read_file, then redo the overwrite against the " +
        "current text.",
    );
    expect(readFileSync(join(root.path, "a.txt"), "utf8")).toBe("v2 by the user\n");
  });

  test("keeps the mode of the file it replaces and leaves no temp files", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "run.sh": "#!/bin/sh\necho 1\n" });
    chmodSync(join(root.path, "run.sh"), 0o750);
    const s = session(root.path);
    await s.run("read_file", { path: "run.sh" });
    await s.run("write_file", { path: "run.sh", content: "#!/bin/sh\necho 2\n" });
    expect(statSync(join(root.path, "run.sh")).mode & 0o777).toBe(0o750);
    expect(readdirSync(root.path)).toEqual(["run.sh"]);
  });

  test("writes through a symlink whose target is inside the root; the link stays a link", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "real/config.json": "{}\n" });
    symlinkSync(join(root.path, "real/config.json"), join(root.path, "config.json"));
    const s = session(root.path);
    await s.run("read_file", { path: "config.json" });
    await s.run("write_file", { path: "config.json", content: '{"a":1}\n' });
    expect(lstatSync(join(root.path, "config.json")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(root.path, "real/config.json"), "utf8")).toBe('{"a":1}\n');
    expect(s.log.writes).toEqual([[join(root.path, "real/config.json")]]);
  });

  test("refuses to write through a symlink that leads out of the root", async () => {
    using root = tempRoot();
    using outside = tempRoot();
    writeFiles(outside.path, { bashrc: "original\n" });
    symlinkSync(join(outside.path, "bashrc"), join(root.path, "rc"));
    const s = session(root.path);
    const result = await s.run("write_file", { path: "rc", content: "evil\n" });
    expect(result.isError).toBe(true);
    expect(result.output).toContain("is a symlink to");
    expect(result.output).toContain("which is outside the project. Garuda does not write through it.");
    expect(readFileSync(join(outside.path, "bashrc"), "utf8")).toBe("original\n");
  });

  test("plan() carries the change and a diff preview", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.txt": "one\ntwo\n" });
    const s = session(root.path);
    const tool = s.tool("write_file");
    expect(tool.plan({ path: "b.txt", content: "hi\n" }, planContext(root.path)).info).toEqual({
      title: "Write b.txt",
      kind: "edit",
      locations: [{ path: join(root.path, "b.txt") }],
      change: { path: join(root.path, "b.txt"), oldText: null, newText: "hi\n" },
    });
    await s.run("read_file", { path: "a.txt" });
    const request = tool.plan({ path: "a.txt", content: "one\nTWO\n" }, ctxOf(root.path)).permission;
    expect(request.target).toEqual({ kind: "path", path: join(root.path, "a.txt"), access: "write" });
    expect(request.change).toEqual({ path: join(root.path, "a.txt"), oldText: "one\ntwo\n", newText: "one\nTWO\n" });
    expect(request.preview).toBe("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO");
    expect(tool.readOnly).toBe(false);
  });

  test("a hidden (sensitive) file is never read for a preview", () => {
    using root = tempRoot();
    writeFiles(root.path, { ".env": "TOKEN=secret\n" });
    const tool = session(root.path).tool("write_file");
    const info = tool.plan({ path: ".env", content: "X=1\n" }, planContext(root.path)).info;
    expect(info.change).toBeUndefined();
    const request = tool.plan({ path: ".env", content: "X=1\n" }, ctxOf(root.path)).permission;
    expect(request.preview).toBe(`Write ${join(root.path, ".env")}`);
    expect(JSON.stringify(request)).not.toContain("secret");
  });

  test("after a write, edit_file works without another read", async () => {
    using root = tempRoot();
    const s = session(root.path);
    await s.run("write_file", { path: "n.txt", content: "alpha\nbeta\n" });
    const edit = await s.run("edit_file", { path: "n.txt", old_string: "beta", new_string: "gamma" });
    expect(edit.isError).toBeUndefined();
    expect(readFileSync(join(root.path, "n.txt"), "utf8")).toBe("alpha\ngamma\n");
  });
});
