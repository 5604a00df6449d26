// The git guard with the real sandbox, real git and real processes. For every way a sandboxed
// command can make git on the host run a program, a long-running sandboxed command plants it, and
// while that command still runs the user's own git (status, diff, log with a terminal, commit, an
// alias, a fetch over ssh) runs in the project and in the folder below it: the marker program
// must not run, and the command's output must say what Garuda moved. Negative control for each:
// the same plant under an executor without the guard, and the same git commands run the marker.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { evilConfigScript, git, labPerSuite } from "../../support/gitAttack.ts";
import { describeSandbox } from "../../support/sandboxSupport.ts";

let planted = 0;

describeSandbox(
  "git guard in bubblewrap",
  () => {
    const lab = labPerSuite();

    const vectors: Array<{
      name: string;
      repo?: boolean;
      setup?: (root: string) => void;
      plant: () => string;
      dirs: string[];
      note: string;
    }> = [
      {
        name: "a nested repository (config with fsmonitor, pager, hooksPath, aliases, a filter its info/attributes selects …) and a gitlink to it in the index",
        plant: () =>
          [
            lab.evilRepo("$TMPDIR/n"),
            `printf '* filter=evil\\n' > "$TMPDIR/n/.git/info/attributes"`,
            'mkdir -p sub && cp -r "$TMPDIR/n/.git" sub/.git && echo x > sub/f',
            `git update-index --add --cacheinfo 160000,$(git -C "$TMPDIR/n" rev-parse HEAD),sub`,
          ].join(" && "),
        dirs: [".", "sub", "src/deep"],
        note: "made sub/.git, a git repository; its config sets",
      },
      {
        name: "a .git file pointing at a git folder in the session's tmp",
        plant: () =>
          [lab.evilRepo("$TMPDIR/g"), "mkdir -p sub/deeper", `printf 'gitdir: %s\\n' "$TMPDIR/g/.git" > sub/.git`].join(
            " && ",
          ),
        dirs: ["sub", "sub/deeper"],
        note: "its .git file points outside the project",
      },
      {
        name: "a .git file pointing at a git folder in a package cache (~/.cache)",
        plant: () => {
          const cache = `$HOME/.cache/g${++planted}`; // each run its own: the first run's evil config would stop the second's git
          return [lab.evilRepo(cache), "mkdir -p sub", `printf 'gitdir: %s\\n' "${cache}/.git" > sub/.git`].join(
            " && ",
          );
        },
        dirs: ["sub"],
        note: "its .git file points outside the project",
      },
      {
        name: "a .git symbolic link to a git folder in the session's tmp",
        plant: () => [lab.evilRepo("$TMPDIR/s"), "mkdir -p sub", `ln -s "$TMPDIR/s/.git" sub/.git`].join(" && "),
        dirs: ["sub"],
        note: "its .git is a symbolic link",
      },
      {
        name: "a folder made a bare repository (HEAD, objects, refs, config)",
        plant: () => ["mkdir -p sub/deeper", lab.evilRepo("sub", true)].join(" && "),
        dirs: ["sub", "sub/deeper"],
        note: "made sub a git repository (HEAD, objects, refs)",
      },
      {
        name: "a project without a repository made a bare repository itself",
        repo: false,
        plant: () => lab.evilRepo(".", true),
        dirs: [".", "src/deep"],
        note: "made . a git repository (HEAD, objects, refs)",
      },
      {
        name: ".git/commondir sending git to a common folder with evil config",
        plant: () =>
          [
            "mkdir -p evil/objects evil/refs",
            evilConfigScript("evil/config", lab.marker.path),
            "echo ../evil > .git/commondir",
          ].join(" && "),
        dirs: [".", "src/deep"],
        note: "made .git/commondir",
      },
      {
        name: ".git/config.worktree where the user's config turns per-worktree config on",
        setup: (root) => git(root, lab.home, "config", "extensions.worktreeConfig", "true"),
        plant: () => evilConfigScript(".git/config.worktree", lab.marker.path),
        dirs: [".", "src/deep"],
        note: "made .git/config.worktree",
      },
      {
        name: "a submodule: .gitmodules, a gitlink, .git/modules/<name> with evil config and the submodule's .git file",
        plant: () =>
          [
            lab.evilRepo("$TMPDIR/m"),
            'mkdir -p .git/modules lib && cp -r "$TMPDIR/m/.git" .git/modules/evil',
            "git config -f .git/modules/evil/config core.worktree ../../../lib",
            "echo 'gitdir: ../.git/modules/evil' > lib/.git",
            `printf '[submodule "lib"]\\n\\tpath = lib\\n\\turl = ./lib\\n' > .gitmodules`,
            `git update-index --add --cacheinfo 160000,$(git -C "$TMPDIR/m" rev-parse HEAD),lib`,
          ].join(" && "),
        dirs: [".", "lib"],
        note: "made lib/.git, a .git file (a link to a git folder); its config sets",
      },
      {
        name: "a nested repository in a folder made unlistable first (chmod 300: git still finds .git in it)",
        plant: () => [lab.evilRepo("$TMPDIR/l"), "mkdir -m 300 locked", 'mv "$TMPDIR/l/.git" locked/.git'].join(" && "),
        dirs: ["locked"],
        note: "made locked/.git, a git repository; its config sets",
      },
      {
        name: "a nested repository with hooks (pre-commit, post-commit)",
        plant: () =>
          [
            `git init -q "$TMPDIR/h"`,
            `printf '#!/bin/sh\\n"%s" hook\\n' '${lab.marker.path}' > "$TMPDIR/h/.git/hooks/pre-commit"`,
            `cp "$TMPDIR/h/.git/hooks/pre-commit" "$TMPDIR/h/.git/hooks/post-commit"`,
            `chmod +x "$TMPDIR/h/.git/hooks/pre-commit" "$TMPDIR/h/.git/hooks/post-commit"`,
            'mkdir -p sub && mv "$TMPDIR/h/.git" sub/.git',
          ].join(" && "),
        dirs: ["sub"],
        note: "it has a hook",
      },
    ];

    for (const vector of vectors) {
      test(`${vector.name}: git on the host runs nothing, while the command runs and after (negative control: without the guard it runs the marker)`, async () => {
        const slug = vector.name.replace(/[^a-z]+/gi, "-").slice(0, 40);
        const root = lab.project(`g-${slug}`, vector.repo ?? true);
        vector.setup?.(root);
        const result = await lab.attack(lab.guarded, root, vector.plant(), vector.dirs);
        expect(result.runningAtProbe).toBe(true);
        expect(result.during).toEqual([]);
        expect(result.after).toEqual([]);
        expect(result.output).toContain("PLANTED");
        expect(result.output).toContain(vector.note);
        expect(result.output).toContain("Garuda moved it to .garuda/quarantine/");
        expect(result.output).toContain(
          "run the git command outside the sandbox (outside_sandbox: true; the user is asked first)",
        );

        const control = lab.project(`u-${slug}`, vector.repo ?? true);
        vector.setup?.(control);
        const unchecked = await lab.attack(lab.unguarded, control, vector.plant(), vector.dirs);
        expect(unchecked.runningAtProbe).toBe(true);
        expect(unchecked.during.length).toBeGreaterThan(0);
        expect(unchecked.output).not.toContain("[Garuda:");
      }, 90_000);
    }

    test("the quarantine loses nothing, is out of git's way and read-only to commands: the moved repository keeps its files, HEAD renamed", async () => {
      const root = lab.project("quarantine");
      const result = await lab.attack(
        lab.guarded,
        root,
        [
          "git init -q sub",
          "echo kept > sub/.git/description",
          evilConfigScript("sub/.git/config", lab.marker.path),
        ].join(" && "),
        ["sub"],
      );
      expect(result.output).toContain("made sub/.git");
      const stamps = readdirSync(join(root, ".garuda/quarantine")).filter((name) => name !== ".gitignore");
      expect(stamps).toHaveLength(1);
      const moved = join(root, ".garuda/quarantine", stamps[0] as string, "sub/.git.garuda-quarantined");
      expect(readFileSync(join(moved, "description"), "utf8")).toBe("kept\n");
      expect(existsSync(join(moved, "HEAD.garuda-quarantined"))).toBe(true);
      expect(existsSync(join(moved, "HEAD"))).toBe(false);
      expect(readFileSync(join(root, ".garuda/quarantine/.gitignore"), "utf8")).toContain("*");
      expect(git(root, lab.home, "status", "--porcelain", "--untracked-files=all")).not.toContain(".garuda");
      const write = await lab.guarded.run({
        command: `echo x > '${moved}/config'`,
        cwd: root,
        sandbox: { ...lab.guarded.spec(), root },
      });
      expect(write.output).toContain("Read-only file system");
    }, 60_000);
  },
  "bwrap",
);
