// The git guard with the real sandbox, real git and real processes. For every way a sandboxed
// command can make git on the host run a program, a long-running sandboxed command plants it, and
// while that command still runs the user's own git (status, diff, log with a terminal, commit, an
// alias, a fetch over ssh) runs in the project and in the folder below it: the marker program
// must not run, and the command's output must say what Garuda moved. Negative control for each:
// the same plant under an executor without the guard, and the same git commands run the marker.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import { type MarkerProgram, evilConfigScript, git, markerProgram, probe } from "./gitAttack.ts";
import { SELF_COMMAND, describeSandbox, eventually, machineSandbox } from "./support.ts";

let scratch: string;
let home: string;
let guarded: ProcessExecutor;
let unguarded: ProcessExecutor;
let marker: MarkerProgram;
let planted = 0;

/** A project folder with a repository (one commit, a tracked file), or without one. */
function project(name: string, repo = true): string {
  const root = join(scratch, name);
  mkdirSync(join(root, "src/deep"), { recursive: true });
  writeFileSync(join(root, "src/a.txt"), "a\n");
  if (repo) {
    git(root, home, "init", "-q");
    git(root, home, "add", "-A");
    git(root, home, "commit", "-q", "-m", "first");
  }
  return root;
}

interface Attack {
  /** What the user's git ran while the command was still running. */
  during: string[];
  /** What it ran after the command ended. */
  after: string[];
  output: string;
  runningAtProbe: boolean;
}

/**
 * Runs `plant` in the sandbox as a long-running command, then the user's git in `dirs` while it
 * still runs, then again after it was stopped.
 */
async function attack(executor: ProcessExecutor, root: string, plant: string, dirs: string[]): Promise<Attack> {
  const job = executor.start({ command: `${plant}\necho PLANTED; sleep 120`, cwd: root, sandbox: { ...executor.spec(), root } });
  let done = false;
  void job.exited.then(() => {
    done = true;
  });
  try {
    await eventually(() => job.output().includes("PLANTED") || done, 20_000);
    // With the guard: its note is the sign it acted. Without: what the guard would have had to act on is there now.
    if (executor === guarded) await eventually(() => job.output().includes("[Garuda:") || done, 5_000).catch(() => undefined);
    marker.reset();
    const during = probe(marker, home, dirs.map((dir) => join(root, dir)));
    const runningAtProbe = !done;
    const end = await job.stop();
    marker.reset();
    const after = probe(marker, home, dirs.map((dir) => join(root, dir)));
    marker.reset();
    return { during, after, output: end.output, runningAtProbe };
  } finally {
    await job.stop();
  }
}

/** The shell lines of a repository built in the session tmp, evil config included, with one commit. */
const evilRepo = (dir: string, bare = false) =>
  [`git init -q ${bare ? "--bare " : ""}"${dir}"`, bare ? "true" : `git -C "${dir}" commit -q --allow-empty -m planted`, evilConfigScript(bare ? `${dir}/config` : `${dir}/.git/config`, marker.path)].join(" && ");

describeSandbox(
  "git guard in bubblewrap",
  () => {
    beforeAll(async () => {
      scratch = realpathSync(mkdtempSync(join(tmpdir(), "garuda-gitguard-test-")));
      home = join(scratch, "home");
      mkdirSync(join(home, ".cache"), { recursive: true });
      writeFileSync(join(home, ".gitconfig"), "[user]\n\tname = U\n\temail = u@example.invalid\n[init]\n\tdefaultBranch = main\n[protocol \"file\"]\n\tallow = always\n");
      marker = markerProgram(join(scratch, "bin"));
      guarded = await createExecutor({ root: scratch, home, selfCommand: SELF_COMMAND, probe: machineSandbox, killGraceMs: 300 });
      unguarded = await createExecutor({ root: scratch, home, selfCommand: SELF_COMMAND, probe: machineSandbox, killGraceMs: 300, gitGuard: false });
    });

    afterAll(async () => {
      await guarded?.shutdown();
      await unguarded?.shutdown();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    const vectors: Array<{ name: string; repo?: boolean; setup?: (root: string) => void; plant: () => string; dirs: string[]; note: string }> = [
      {
        name: "a nested repository (config with fsmonitor, pager, hooksPath, aliases, a filter its info/attributes selects …) and a gitlink to it in the index",
        plant: () =>
          [
            evilRepo("$TMPDIR/n"),
            `printf '* filter=evil\\n' > "$TMPDIR/n/.git/info/attributes"`,
            "mkdir -p sub && cp -r \"$TMPDIR/n/.git\" sub/.git && echo x > sub/f",
            `git update-index --add --cacheinfo 160000,$(git -C "$TMPDIR/n" rev-parse HEAD),sub`,
          ].join(" && "),
        dirs: [".", "sub", "src/deep"],
        note: "made sub/.git, a git repository; its config sets",
      },
      {
        name: "a .git file pointing at a git folder in the session's tmp",
        plant: () => [evilRepo("$TMPDIR/g"), "mkdir -p sub/deeper", `printf 'gitdir: %s\\n' "$TMPDIR/g/.git" > sub/.git`].join(" && "),
        dirs: ["sub", "sub/deeper"],
        note: "its .git file points outside the project",
      },
      {
        name: "a .git file pointing at a git folder in a package cache (~/.cache)",
        plant: () => {
          const cache = `$HOME/.cache/g${++planted}`; // each run its own: the first run's evil config would stop the second's git
          return [evilRepo(cache), "mkdir -p sub", `printf 'gitdir: %s\\n' "${cache}/.git" > sub/.git`].join(" && ");
        },
        dirs: ["sub"],
        note: "its .git file points outside the project",
      },
      {
        name: "a .git symbolic link to a git folder in the session's tmp",
        plant: () => [evilRepo("$TMPDIR/s"), "mkdir -p sub", `ln -s "$TMPDIR/s/.git" sub/.git`].join(" && "),
        dirs: ["sub"],
        note: "its .git is a symbolic link",
      },
      {
        name: "a folder made a bare repository (HEAD, objects, refs, config)",
        plant: () => ["mkdir -p sub/deeper", evilRepo("sub", true)].join(" && "),
        dirs: ["sub", "sub/deeper"],
        note: "made sub a git repository (HEAD, objects, refs)",
      },
      {
        name: "a project without a repository made a bare repository itself",
        repo: false,
        plant: () => evilRepo(".", true),
        dirs: [".", "src/deep"],
        note: "made . a git repository (HEAD, objects, refs)",
      },
      {
        name: ".git/commondir sending git to a common folder with evil config",
        plant: () => ["mkdir -p evil/objects evil/refs", evilConfigScript("evil/config", marker.path), "echo ../evil > .git/commondir"].join(" && "),
        dirs: [".", "src/deep"],
        note: "made .git/commondir",
      },
      {
        name: ".git/config.worktree where the user's config turns per-worktree config on",
        setup: (root) => git(root, home, "config", "extensions.worktreeConfig", "true"),
        plant: () => evilConfigScript(".git/config.worktree", marker.path),
        dirs: [".", "src/deep"],
        note: "made .git/config.worktree",
      },
      {
        name: "a submodule: .gitmodules, a gitlink, .git/modules/<name> with evil config and the submodule's .git file",
        plant: () =>
          [
            evilRepo("$TMPDIR/m"),
            "mkdir -p .git/modules lib && cp -r \"$TMPDIR/m/.git\" .git/modules/evil",
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
        plant: () => [evilRepo("$TMPDIR/l"), "mkdir -m 300 locked", "mv \"$TMPDIR/l/.git\" locked/.git"].join(" && "),
        dirs: ["locked"],
        note: "made locked/.git, a git repository; its config sets",
      },
      {
        name: "a nested repository with hooks (pre-commit, post-commit)",
        plant: () =>
          [
            `git init -q "$TMPDIR/h"`,
            `printf '#!/bin/sh\\n"%s" hook\\n' '${marker.path}' > "$TMPDIR/h/.git/hooks/pre-commit"`,
            `cp "$TMPDIR/h/.git/hooks/pre-commit" "$TMPDIR/h/.git/hooks/post-commit"`,
            `chmod +x "$TMPDIR/h/.git/hooks/pre-commit" "$TMPDIR/h/.git/hooks/post-commit"`,
            "mkdir -p sub && mv \"$TMPDIR/h/.git\" sub/.git",
          ].join(" && "),
        dirs: ["sub"],
        note: "it has a hook",
      },
    ];

    for (const vector of vectors) {
      test(`${vector.name}: git on the host runs nothing, while the command runs and after (negative control: without the guard it runs the marker)`, async () => {
        const slug = vector.name.replace(/[^a-z]+/gi, "-").slice(0, 40);
        const root = project(`g-${slug}`, vector.repo ?? true);
        vector.setup?.(root);
        const result = await attack(guarded, root, vector.plant(), vector.dirs);
        expect(result.runningAtProbe).toBe(true);
        expect(result.during).toEqual([]);
        expect(result.after).toEqual([]);
        expect(result.output).toContain("PLANTED");
        expect(result.output).toContain(vector.note);
        expect(result.output).toContain("Garuda moved it to .garuda/quarantine/");
        expect(result.output).toContain("run the git command outside the sandbox (outside_sandbox: true; the user is asked first)");

        const control = project(`u-${slug}`, vector.repo ?? true);
        vector.setup?.(control);
        const unchecked = await attack(unguarded, control, vector.plant(), vector.dirs);
        expect(unchecked.runningAtProbe).toBe(true);
        expect(unchecked.during.length).toBeGreaterThan(0);
        expect(unchecked.output).not.toContain("[Garuda:");
      }, 90_000);
    }

    test("legitimate git in the sandbox keeps working and is left alone: add, commit, branch, stash, worktree add, submodule update, clone, init", async () => {
      const root = project("legit");
      git(root, home, "init", "-q", "--bare", "upstream.git");
      git(root, home, "push", "-q", join(root, "upstream.git"), "HEAD:main");
      // A submodule added on the host (init writes .git/config, which stays read-only in the
      // sandbox), whose recorded commit is ahead of its checkout: `git submodule update` has work.
      git(root, home, "submodule", "add", "-q", "./upstream.git", "lib");
      git(root, home, "commit", "-q", "-m", "add lib");
      git(join(root, "lib"), home, "commit", "-q", "--allow-empty", "-m", "lib moved on");
      git(join(root, "lib"), home, "push", "-q", "origin", "HEAD:main");
      git(root, home, "commit", "-q", "-am", "bump lib");
      git(join(root, "lib"), home, "checkout", "-q", "HEAD~1");
      const sandbox = { ...guarded.spec(), root };
      const script = [
        "git submodule update -q && git -C lib log -1 --format=%s",
        "echo b >> src/a.txt && git add -A && git commit -q -m second",
        "git branch topic && git checkout -q topic && git checkout -q main",
        "echo c >> src/a.txt && git stash -q && git stash pop -q && git checkout -q -- src/a.txt",
        "git worktree add -q wt topic && git -C wt log -1 --format=%s",
        "git clone -q ./upstream.git clone && git -C clone log -1 --format=%s",
        "git init -q fresh && git -C fresh status --short",
        "echo done",
      ].join(" && ");
      const result = await guarded.run({ command: script, cwd: root, sandbox });
      expect(result.output).toBe("lib moved on\nsecond\nlib moved on\ndone\n");
      expect(result.exitCode).toBe(0);
      for (const dir of ["wt", "lib", "clone", "fresh"]) expect(existsSync(join(root, dir, ".git"))).toBe(true);
      expect(existsSync(join(root, ".garuda/quarantine"))).toBe(false);
      // The next command: the repositories it made are known now, and held read-only like the root's.
      const next = await guarded.run({ command: "git -C lib status --short && git -C wt status --short && echo x > clone/.git/config", cwd: root, sandbox });
      expect(next.output).toContain("Read-only file system");
      expect(next.output).not.toContain("[Garuda:");
      marker.reset();
      expect(probe(marker, home, [root, join(root, "wt"), join(root, "lib"), join(root, "clone")])).toEqual([]);
      expect(git(join(root, "wt"), home, "status", "--short")).toBe("");
    }, 90_000);

    test("the user's own nested repository is left alone, even one whose config runs a program, and a command cannot change it", async () => {
      const root = project("own");
      git(root, home, "init", "-q", "vendor/tool");
      git(join(root, "vendor/tool"), home, "commit", "-q", "--allow-empty", "-m", "tool");
      git(join(root, "vendor/tool"), home, "config", "core.fsmonitor", marker.path);
      git(root, home, "submodule", "add", "-q", join(root, "vendor/tool"), "lib");
      const sandbox = { ...guarded.spec(), root };
      const attempts = [
        `git -C vendor/tool config core.pager '${marker.path}'`,
        "echo 'gitdir: /tmp' > lib/.git",
        "echo evil > vendor/tool/.git/hooks/pre-commit",
        "echo ../x > vendor/tool/.git/commondir",
        "mv vendor/tool/.git vendor/tool/.git-old",
      ];
      for (const attempt of attempts) {
        const result = await guarded.run({ command: attempt, cwd: root, sandbox });
        expect({ attempt, refused: result.exitCode !== 0 || result.output.includes("[Garuda:") }).toEqual({ attempt, refused: true });
      }
      expect(git(join(root, "vendor/tool"), home, "config", "core.fsmonitor").trim()).toBe(marker.path);
      expect(existsSync(join(root, "vendor/tool/.git/commondir"))).toBe(false);
      expect(readFileSync(join(root, "lib/.git"), "utf8")).toContain("gitdir: ../.git/modules/lib");
      expect(existsSync(join(root, "vendor/tool/.git/HEAD"))).toBe(true);
      // Negative control: the same write without the guard's holds goes through.
      const control = await unguarded.run({ command: "echo 'gitdir: /tmp' > lib/.git", cwd: root, sandbox: { ...unguarded.spec(), root } });
      expect(control.exitCode).toBe(0);
      expect(readFileSync(join(root, "lib/.git"), "utf8")).toBe("gitdir: /tmp\n");
    }, 90_000);

    test("a submodule's config stays writable for git submodule update, and anything that runs a program added to it is put back as it was, while the command runs (negative control: without the guard it stays)", async () => {
      const setup = (name: string) => {
        const root = project(name);
        git(root, home, "init", "-q", "--bare", "upstream.git");
        git(root, home, "push", "-q", join(root, "upstream.git"), "HEAD:main");
        git(root, home, "submodule", "add", "-q", "./upstream.git", "lib");
        git(root, home, "commit", "-q", "-m", "add lib");
        return root;
      };
      const root = setup("kept");
      const before = readFileSync(join(root, ".git/modules/lib/config"), "utf8");
      const plant = [evilConfigScript(".git/modules/lib/config", marker.path), "echo x >> lib/src/a.txt"].join(" ; ");
      const result = await attack(guarded, root, plant, [".", "lib"]);
      expect(result.runningAtProbe).toBe(true);
      expect(result.during).toEqual([]);
      expect(result.after).toEqual([]);
      expect(result.output).toContain("[Garuda: the command changed .git/modules/lib/config (it set core.fsmonitor)");
      expect(result.output).toContain("Garuda put it back as it was");
      expect(readFileSync(join(root, ".git/modules/lib/config"), "utf8")).toBe(before);

      const control = setup("kept-control");
      const unchecked = await attack(unguarded, control, plant, [".", "lib"]);
      expect(unchecked.during.length).toBeGreaterThan(0);
    }, 90_000);

    test("a flood of events that overflows the kernel's queue before Garuda reads it does not hide a plant: the overflow makes the guard look at the whole tree again", async () => {
      const root = project("flood");
      const queue = Number(readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8").trim());
      const files = Math.ceil(queue * 1.5); // two events each (made, written): well past the queue
      const flag = join(root, "flood-done");
      const plant = [
        evilRepo("$TMPDIR/f"),
        `(cd src && for i in $(seq 1 ${files}); do : > f$i; done)`, // src is watched: every file is two events
        "mkdir -p sub && mv \"$TMPDIR/f/.git\" sub/.git",
        "touch flood-done",
      ].join(" && ");
      const job = guarded.start({ command: `${plant}\necho PLANTED; sleep 120`, cwd: root, sandbox: { ...guarded.spec(), root } });
      try {
        // Garuda is busy (its event loop blocked, as by a long synchronous task): nothing reads the queue.
        const deadline = Date.now() + 120_000;
        while (!existsSync(flag) && Date.now() < deadline) Bun.sleepSync(20);
        expect(existsSync(flag)).toBe(true);
        await eventually(() => job.output().includes("[Garuda:"), 20_000);
        expect(job.output()).toContain("made sub/.git, a git repository; its config sets");
        marker.reset();
        expect(probe(marker, home, [root, join(root, "sub")])).toEqual([]);
      } finally {
        await job.stop();
      }
    }, 180_000);

    test("past the watch budget (or the kernel's limit) a subtree is scanned instead: a plant there is found while the command runs, within seconds", async () => {
      const root = project("budget");
      for (let i = 0; i < 40; i++) mkdirSync(join(root, "deps", `p${i}`, "lib"), { recursive: true });
      // The user's own repository out there, whose config runs a program: known from the first walk, left alone.
      git(root, home, "init", "-q", "deps/p30/lib");
      git(join(root, "deps/p30/lib"), home, "config", "alias.mine", `!${marker.path} mine`);
      const small = await createExecutor({ root: scratch, home, selfCommand: SELF_COMMAND, probe: machineSandbox, killGraceMs: 300, gitGuardWatches: 20 });
      try {
        const job = small.start({ command: `${evilRepo("$TMPDIR/b")} && mv "$TMPDIR/b/.git" deps/p39/lib/.git && echo PLANTED; sleep 60`, cwd: root, sandbox: { ...small.spec(), root } });
        await eventually(() => job.output().includes("PLANTED"), 20_000);
        const planted = performance.now();
        await eventually(() => job.output().includes("[Garuda:"), 10_000);
        expect(performance.now() - planted).toBeLessThan(6_000);
        expect(job.output()).toContain("made deps/p39/lib/.git, a git repository; its config sets");
        marker.reset();
        expect(probe(marker, home, [join(root, "deps/p39/lib")])).toEqual([]);
        const end = await job.stop();
        expect(end.output).not.toContain("deps/p30");
        expect(existsSync(join(root, "deps/p30/lib/.git/HEAD"))).toBe(true);
      } finally {
        await small.shutdown();
      }
    }, 90_000);

    test("a repository judged harmless that a command then changes without any event (through an mmap) is judged again within a second", async () => {
      const root = project("mmap");
      // A harmless config, padded so the evil one fits in the same bytes; then rewritten in place through a shared mapping.
      const padded = `[core]\n\tbare = false\n#${"x".repeat(120)}\n`;
      const evil = `[core]\n\tfsmonitor = ${marker.path}\n#`.padEnd(padded.length - 1, "x") + "\n";
      const script = [
        "git init -q sub",
        `printf '%s' '${padded}' > sub/.git/config`,
        "sleep 0.5",
        // The descriptor stays open (closing it would be an event): only a second look finds the change.
        `python3 -c "import mmap,os,sys,time; f=os.open('sub/.git/config', os.O_RDWR); m=mmap.mmap(f, 0); m[:]=sys.stdin.buffer.read(); m.flush(); print('PLANTED', flush=True); time.sleep(60)" <<'EOF'\n${evil}EOF`,
      ].join("\n");
      expect(evil.length).toBe(padded.length);
      const job = guarded.start({ command: script, cwd: root, sandbox: { ...guarded.spec(), root } });
      try {
        await eventually(() => job.output().includes("PLANTED"), 20_000);
        await eventually(() => job.output().includes("[Garuda:"), 3_000);
        expect(job.output()).toContain("made sub/.git, a git repository; its config sets core.fsmonitor");
        marker.reset();
        expect(probe(marker, home, [join(root, "sub")])).toEqual([]);
      } finally {
        await job.stop();
      }
    }, 60_000);

    test("a rebase the command left unfinished with exec lines in its todo list is named in its output (git rebase --continue on the host would run them)", async () => {
      const root = project("rebase");
      git(root, home, "commit", "-q", "--allow-empty", "-m", "second");
      git(root, home, "commit", "-q", "--allow-empty", "-m", "third");
      const sandbox = { ...guarded.spec(), root };
      // Stops at once (a break first), leaving the exec lines for later.
      const left = await guarded.run({ command: `GIT_SEQUENCE_EDITOR="sed -i '1i break'" git rebase -q -i --exec '${marker.path} rebase-exec' HEAD~2; git status | head -1`, cwd: root, sandbox });
      expect(left.output).toContain("interactive rebase in progress");
      expect(left.output).toContain("[Garuda: the command left .git/rebase-merge/git-rebase-todo with exec lines");
      // A later command that does not touch it says nothing more; one that finishes it neither.
      expect((await guarded.run({ command: "true", cwd: root, sandbox })).output).toBe("");
      git(root, home, "rebase", "--abort");
    }, 60_000);

    test("the quarantine loses nothing, is out of git's way and read-only to commands: the moved repository keeps its files, HEAD renamed", async () => {
      const root = project("quarantine");
      const result = await attack(guarded, root, ["git init -q sub", "echo kept > sub/.git/description", evilConfigScript("sub/.git/config", marker.path)].join(" && "), ["sub"]);
      expect(result.output).toContain("made sub/.git");
      const stamps = readdirSync(join(root, ".garuda/quarantine")).filter((name) => name !== ".gitignore");
      expect(stamps).toHaveLength(1);
      const moved = join(root, ".garuda/quarantine", stamps[0] as string, "sub/.git.garuda-quarantined");
      expect(readFileSync(join(moved, "description"), "utf8")).toBe("kept\n");
      expect(existsSync(join(moved, "HEAD.garuda-quarantined"))).toBe(true);
      expect(existsSync(join(moved, "HEAD"))).toBe(false);
      expect(readFileSync(join(root, ".garuda/quarantine/.gitignore"), "utf8")).toContain("*");
      expect(git(root, home, "status", "--porcelain", "--untracked-files=all")).not.toContain(".garuda");
      const write = await guarded.run({ command: `echo x > '${moved}/config'`, cwd: root, sandbox: { ...guarded.spec(), root } });
      expect(write.output).toContain("Read-only file system");
    }, 60_000);
  },
  "bwrap",
);
