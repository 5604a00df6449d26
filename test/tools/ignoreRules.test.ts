// .gitignore rules match as git matches them on this system: case-sensitively, unless the
// repository's core.ignorecase says otherwise (issue 35 item 2: the kernel's `*.s` rule hid every
// `*.S` assembler source from grep, glob and find_definition).
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryIgnoresCase } from "../../src/tools/ignoreRules.ts";
import { session, tempRoot, writeFiles } from "../support/toolFixtures.ts";

const git = (cwd: string, ...args: string[]) => {
  const result = Bun.spawnSync(["git", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(result.stderr.toString());
  return result.stdout.toString();
};

/** A tree with the kernel's rule: `*.s` (generated assembler) ignored, `*.S` (sources) kept. */
function kernelTree(root: string): void {
  writeFiles(root, {
    ".gitignore": "*.s\n",
    "arch/x86/entry/entry_64.S": "SYM_CODE_START(entry_SYSCALL_64)\n",
    "arch/x86/entry/generated.s": "SYM_CODE_START(entry_SYSCALL_64)\n",
  });
}

describe(".gitignore case", () => {
  test("`*.s` ignores foo.s and not foo.S, as git does here: glob and grep find the .S file", async () => {
    using root = tempRoot();
    kernelTree(root.path);
    git(root.path, "init", "-q");
    git(root.path, "config", "core.ignorecase", "false");
    // git itself: the .S file is not ignored, the .s file is.
    expect(git(root.path, "status", "--porcelain", "--untracked-files=all")).toContain("entry_64.S");
    expect(git(root.path, "status", "--porcelain", "--untracked-files=all")).not.toContain("generated.s");
    const s = session(root.path);
    expect((await s.run("glob", { pattern: "**/*.[sS]" })).output).toBe("arch/x86/entry/entry_64.S");
    const grep = await s.run("grep", { pattern: "entry_SYSCALL_64", output: "files_with_matches" });
    expect(grep.output).toContain("entry_64.S");
    expect(grep.output).not.toContain("generated.s");
  });

  test("without a repository the rules are case-sensitive too (git's default)", async () => {
    using root = tempRoot();
    kernelTree(root.path);
    expect(repositoryIgnoresCase(root.path)).toBe(false);
    expect((await session(root.path).run("glob", { pattern: "**/*.S" })).output).toBe("arch/x86/entry/entry_64.S");
  });

  test("a repository with core.ignorecase = true matches without case, as git does there", async () => {
    using root = tempRoot();
    kernelTree(root.path);
    git(root.path, "init", "-q");
    git(root.path, "config", "core.ignorecase", "true");
    expect(repositoryIgnoresCase(root.path)).toBe(true);
    expect(git(root.path, "status", "--porcelain", "--untracked-files=all")).not.toContain("entry_64.S");
    expect((await session(root.path).run("glob", { pattern: "**/*.[sS]" })).output).toStartWith("No files match");
  });

  test("core.ignorecase is read through a worktree's .git file, and a bare key means true", () => {
    using root = tempRoot();
    const common = join(root.path, "main-repo.git");
    const linked = join(common, "worktrees", "w");
    mkdirSync(linked, { recursive: true });
    writeFileSync(join(common, "config"), "[core]\n\tbare = false\n\tignorecase\n");
    writeFileSync(join(linked, "commondir"), "../..\n");
    const tree = join(root.path, "tree");
    mkdirSync(tree);
    writeFileSync(join(tree, ".git"), `gitdir: ${linked}\n`);
    expect(repositoryIgnoresCase(tree)).toBe(true);
    writeFileSync(join(common, "config"), '[core]\n\tignorecase = false\n[remote "origin"]\n\tignorecase = true\n');
    expect(repositoryIgnoresCase(tree)).toBe(false);
  });
});
