// repos.ts: what git on the host takes for a repository, and whether one can run a program. Real
// repositories made by real git (init, clone, bare, worktree, submodule) are harmless; each way
// of making git run something is caught, and files that could change unseen (links, hard links,
// FIFOs) are refused without waiting on them.
import { describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitConfigParser } from "../../../src/sandbox/gitGuard/configKeys.ts";
import { type JudgeContext, judgeMarker, markersAt } from "../../../src/sandbox/gitGuard/repos.ts";
import { isInside } from "../../../src/files/isInside.ts";
import { tempDir } from "../../support/tempDir.ts";
import { evilSettings, git } from "../../support/gitAttack.ts";

const configKeys = gitConfigParser(Bun.which("git") ?? undefined);

function context(root: string, trusted: string[] = []): JudgeContext {
  return { trusted: (dir) => trusted.includes(dir), watched: (dir) => isInside(dir, root), configKeys };
}

function judge(dir: string, ctx: JudgeContext) {
  const [marker] = markersAt(dir);
  if (!marker) throw new Error(`no repository at ${dir}`);
  return judgeMarker(marker, ctx);
}

describe("git guard: repositories", () => {
  test("repositories git itself makes are harmless: init, clone, bare, a linked worktree, a submodule", async () => {
    using tmp = tempDir();
    const root = realpathSync(tmp.path);
    const home = join(root, "home");
    mkdirSync(home);
    git(root, home, "init", "-q");
    git(root, home, "commit", "-q", "--allow-empty", "-m", "first");
    git(root, home, "init", "-q", "sub");
    git(root, home, "init", "-q", "--bare", "bare.git");
    git(root, home, "push", "-q", join(root, "bare.git"), "HEAD:main");
    git(root, home, "clone", "-q", root, "clone");
    git(root, home, "worktree", "add", "-q", "wt");
    git(root, home, "submodule", "add", "-q", join(root, "bare.git"), "lib");
    const ctx = context(root, [join(root, ".git")]);
    for (const dir of ["sub", "bare.git", "clone", "wt", "lib"])
      expect({ dir, verdict: await judge(join(root, dir), ctx) }).toEqual({ dir, verdict: { ok: true } });
    const kinds = (dir: string) => markersAt(join(root, dir)).map((marker) => marker.kind);
    expect(kinds("bare.git")).toEqual(["bare"]);
    expect(kinds("wt")).toEqual(["file"]);
    expect(kinds("sub")).toEqual(["dir"]);
    expect(kinds("home")).toEqual([]);
    // A folder with an empty .git (not a git folder) that looks bare itself: git falls back to the folder.
    mkdirSync(join(root, "both/.git"), { recursive: true });
    git(root, home, "init", "-q", "--bare", "both");
    expect(kinds("both")).toEqual(["dir", "bare"]);
  });

  test(
    "every setting that runs a program is caught, one at a time (negative control: " +
      "the same repository without it is harmless)",
    async () => {
      using tmp = tempDir();
      const root = realpathSync(tmp.path);
      git(root, root, "init", "-q", "sub");
      const ctx = context(root);
      expect(await judge(join(root, "sub"), ctx)).toEqual({ ok: true });
      const settings: Array<[string, string]> = [
        ...evilSettings("/x/marker"),
        ["core.hooksPath", "/x/hooks"],
        ["include.path", "/x/more.config"],
        ["includeIf.gitdir:/.path", "/x/more.config"],
        ["submodule.a.update", "!/x/marker"],
        ["remote.origin.url", "ext::/x/marker %G"],
        ["remote.origin.uploadpack", "/x/marker"],
        ["credential.helper", "/x/marker"],
        ["core.askPass", "/x/marker"],
        ["sequence.editor", "/x/marker"],
        ["pager.log", "/x/marker"],
        ["merge.evil.driver", "/x/marker"],
        ["diff.evil.textconv", "/x/marker"],
      ];
      for (const [key, value] of settings) {
        git(root, root, "init", "-q", key);
        git(join(root, key), root, "config", key, value);
        const verdict = await judge(join(root, key), ctx);
        expect({ key, ok: verdict.ok }).toEqual({ key, ok: false });
      }
      // Git's own spelling is what counts: a key after the section header on one line.
      mkdirSync(join(root, "oneline"));
      git(join(root, "oneline"), root, "init", "-q");
      writeFileSync(join(root, "oneline/.git/config"), "[core]fsmonitor=/x/marker\n");
      expect(await judge(join(root, "oneline"), ctx)).toEqual({ ok: false, why: "its config sets core.fsmonitor" });
    },
  );

  test(
    "a hook, a commondir or a .git file leading out of the project, links, hard " +
      "links, FIFOs and big files are refused",
    async () => {
      using tmp = tempDir();
      using outside = tempDir();
      const root = realpathSync(tmp.path);
      const ctx = context(root);
      const repo = (name: string) => {
        git(root, root, "init", "-q", name);
        return join(root, name, ".git");
      };
      writeFileSync(join(repo("hook"), "hooks", "pre-commit"), "#!/bin/sh\n");
      expect(await judge(join(root, "hook"), ctx)).toEqual({ ok: false, why: "it has a hook (pre-commit)" });

      git(outside.path, root, "init", "-q", "--bare", "elsewhere.git");
      writeFileSync(join(repo("common"), "commondir"), `${realpathSync(outside.path)}/elsewhere.git\n`);
      expect((await judge(join(root, "common"), ctx)).ok).toBe(false);

      mkdirSync(join(root, "gitfile"));
      writeFileSync(join(root, "gitfile/.git"), `gitdir: ${realpathSync(outside.path)}/elsewhere.git\n`);
      expect(await judge(join(root, "gitfile"), ctx)).toMatchObject({
        ok: false,
        why: expect.stringContaining("points outside the project"),
      });

      mkdirSync(join(root, "link"));
      symlinkSync(join(root, "hook/.git"), join(root, "link/.git"));
      expect(await judge(join(root, "link"), ctx)).toEqual({ ok: false, why: "its .git is a symbolic link" });

      const linked = repo("hardlink");
      writeFileSync(join(root, "innocent.txt"), "[core]\n\tbare = false\n");
      Bun.spawnSync(["rm", join(linked, "config")]);
      linkSync(join(root, "innocent.txt"), join(linked, "config"));
      expect(await judge(join(root, "hardlink"), ctx)).toEqual({
        ok: false,
        why: "its config has another name (a hard link)",
      });

      const fifo = repo("fifo");
      Bun.spawnSync(["rm", join(fifo, "config")]);
      expect(Bun.spawnSync(["mkfifo", join(fifo, "config")]).exitCode).toBe(0);
      const started = performance.now();
      expect(await judge(join(root, "fifo"), ctx)).toEqual({ ok: false, why: "its config is not a plain file" });
      expect(performance.now() - started).toBeLessThan(2_000);

      const big = repo("big");
      writeFileSync(join(big, "config"), `[core]\n${"\t# padding\n".repeat(10_000)}`);
      expect(await judge(join(root, "big"), ctx)).toMatchObject({
        ok: false,
        why: expect.stringContaining("larger than"),
      });
    },
  );
});
