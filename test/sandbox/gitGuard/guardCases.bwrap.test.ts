// The git guard with the real sandbox, beyond the ways in (gitGuard.bwrap.test.ts): git's own
// work in the sandbox is left alone, the user's own repositories too, a submodule's config is
// kept, and the guard holds under a flood of events, past its watch budget, against a change
// no event reports (an mmap), and names an unfinished rebase that would run commands.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createExecutor } from "../../../src/sandbox/executor.ts";
import { evilConfigScript, git, labPerSuite, probe } from "../../support/gitAttack.ts";
import { SELF_COMMAND, describeSandbox, eventually, machineSandbox } from "../../support/sandboxSupport.ts";

describeSandbox(
  "git guard in bubblewrap: what it leaves alone, and under load",
  () => {
    const lab = labPerSuite();

    test("legitimate git in the sandbox keeps working and is left alone: add, commit, " +
      "branch, stash, worktree add, submodule update, clone, init", async () => {
      const root = lab.project("legit");
      git(root, lab.home, "init", "-q", "--bare", "upstream.git");
      git(root, lab.home, "push", "-q", join(root, "upstream.git"), "HEAD:main");
      // A submodule added on the host (init writes .git/config, which stays read-only in the
      // sandbox), whose recorded commit is ahead of its checkout: `git submodule update` has work.
      git(root, lab.home, "submodule", "add", "-q", "./upstream.git", "lib");
      git(root, lab.home, "commit", "-q", "-m", "add lib");
      git(join(root, "lib"), lab.home, "commit", "-q", "--allow-empty", "-m", "lib moved on");
      git(join(root, "lib"), lab.home, "push", "-q", "origin", "HEAD:main");
      git(root, lab.home, "commit", "-q", "-am", "bump lib");
      git(join(root, "lib"), lab.home, "checkout", "-q", "HEAD~1");
      const sandbox = { ...lab.guarded.spec(), root };
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
      const result = await lab.guarded.run({ command: script, cwd: root, sandbox });
      expect(result.output).toBe("lib moved on\nsecond\nlib moved on\ndone\n");
      expect(result.exitCode).toBe(0);
      for (const dir of ["wt", "lib", "clone", "fresh"]) expect(existsSync(join(root, dir, ".git"))).toBe(true);
      expect(existsSync(join(root, ".garuda/quarantine"))).toBe(false);
      // The next command: the repositories it made are known now, and held read-only like the root's.
      const next = await lab.guarded.run({
        command: "git -C lib status --short && git -C wt status --short && echo x > clone/.git/config",
        cwd: root,
        sandbox,
      });
      expect(next.output).toContain("Read-only file system");
      expect(next.output).not.toContain("[Garuda:");
      lab.marker.reset();
      expect(probe(lab.marker, lab.home, [root, join(root, "wt"), join(root, "lib"), join(root, "clone")])).toEqual([]);
      expect(git(join(root, "wt"), lab.home, "status", "--short")).toBe("");
    }, 90_000);

    test("the user's own nested repository is left alone, even one whose config runs a " +
      "program, and a command cannot change it", async () => {
      const root = lab.project("own");
      git(root, lab.home, "init", "-q", "vendor/tool");
      git(join(root, "vendor/tool"), lab.home, "commit", "-q", "--allow-empty", "-m", "tool");
      git(join(root, "vendor/tool"), lab.home, "config", "core.fsmonitor", lab.marker.path);
      git(root, lab.home, "submodule", "add", "-q", join(root, "vendor/tool"), "lib");
      const sandbox = { ...lab.guarded.spec(), root };
      const attempts = [
        `git -C vendor/tool config core.pager '${lab.marker.path}'`,
        "echo 'gitdir: /tmp' > lib/.git",
        "echo evil > vendor/tool/.git/hooks/pre-commit",
        "echo ../x > vendor/tool/.git/commondir",
        "mv vendor/tool/.git vendor/tool/.git-old",
      ];
      for (const attempt of attempts) {
        const result = await lab.guarded.run({ command: attempt, cwd: root, sandbox });
        expect({ attempt, refused: result.exitCode !== 0 || result.output.includes("[Garuda:") }).toEqual({
          attempt,
          refused: true,
        });
      }
      expect(git(join(root, "vendor/tool"), lab.home, "config", "core.fsmonitor").trim()).toBe(lab.marker.path);
      expect(existsSync(join(root, "vendor/tool/.git/commondir"))).toBe(false);
      expect(readFileSync(join(root, "lib/.git"), "utf8")).toContain("gitdir: ../.git/modules/lib");
      expect(existsSync(join(root, "vendor/tool/.git/HEAD"))).toBe(true);
      // Negative control: the same write without the guard's holds goes through.
      const control = await lab.unguarded.run({
        command: "echo 'gitdir: /tmp' > lib/.git",
        cwd: root,
        sandbox: { ...lab.unguarded.spec(), root },
      });
      expect(control.exitCode).toBe(0);
      expect(readFileSync(join(root, "lib/.git"), "utf8")).toBe("gitdir: /tmp\n");
    }, 90_000);

    test("a submodule's config stays writable for git submodule update, and anything " +
      "that runs a program added to it is put back as it was, while the command runs " +
      "(negative control: without the guard it stays)", async () => {
      const setup = (name: string) => {
        const root = lab.project(name);
        git(root, lab.home, "init", "-q", "--bare", "upstream.git");
        git(root, lab.home, "push", "-q", join(root, "upstream.git"), "HEAD:main");
        git(root, lab.home, "submodule", "add", "-q", "./upstream.git", "lib");
        git(root, lab.home, "commit", "-q", "-m", "add lib");
        return root;
      };
      const root = setup("kept");
      const before = readFileSync(join(root, ".git/modules/lib/config"), "utf8");
      const plant = [evilConfigScript(".git/modules/lib/config", lab.marker.path), "echo x >> lib/src/a.txt"].join(
        " ; ",
      );
      const result = await lab.attack(lab.guarded, root, plant, [".", "lib"]);
      expect(result.runningAtProbe).toBe(true);
      expect(result.during).toEqual([]);
      expect(result.after).toEqual([]);
      expect(result.output).toContain("[Garuda: the command changed .git/modules/lib/config (it set core.fsmonitor)");
      expect(result.output).toContain("Garuda put it back as it was");
      expect(readFileSync(join(root, ".git/modules/lib/config"), "utf8")).toBe(before);

      const control = setup("kept-control");
      const unchecked = await lab.attack(lab.unguarded, control, plant, [".", "lib"]);
      expect(unchecked.during.length).toBeGreaterThan(0);
    }, 90_000);

    test("a flood of events that overflows the kernel's queue before Garuda reads it " +
      "does not hide a plant: the overflow makes the guard look at the whole tree " +
      "again", async () => {
      const root = lab.project("flood");
      const queue = Number(readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8").trim());
      const files = Math.ceil(queue * 1.5); // two events each (made, written): well past the queue
      const flag = join(root, "flood-done");
      const plant = [
        lab.evilRepo("$TMPDIR/f"),
        `(cd src && for i in $(seq 1 ${files}); do : > f$i; done)`, // src is watched: every file is two events
        'mkdir -p sub && mv "$TMPDIR/f/.git" sub/.git',
        "touch flood-done",
      ].join(" && ");
      const job = await lab.guarded.start({
        command: `${plant}\necho PLANTED; sleep 120`,
        cwd: root,
        sandbox: { ...lab.guarded.spec(), root },
      });
      try {
        // Garuda is busy (its event loop blocked, as by a long synchronous task): nothing reads the queue.
        const deadline = Date.now() + 120_000;
        while (!existsSync(flag) && Date.now() < deadline) Bun.sleepSync(20);
        expect(existsSync(flag)).toBe(true);
        await eventually(() => job.output().includes("[Garuda:"), 20_000);
        expect(job.output()).toContain("made sub/.git, a git repository; its config sets");
        lab.marker.reset();
        expect(probe(lab.marker, lab.home, [root, join(root, "sub")])).toEqual([]);
      } finally {
        await job.stop();
      }
    }, 180_000);

    test("past the watch budget (or the kernel's limit) a subtree is scanned instead: a " +
      "plant there is found while the command runs, within seconds", async () => {
      const root = lab.project("budget");
      for (let i = 0; i < 40; i++) mkdirSync(join(root, "deps", `p${i}`, "lib"), { recursive: true });
      // The user's own repository out there, whose config runs a program: known from the first walk, left alone.
      git(root, lab.home, "init", "-q", "deps/p30/lib");
      git(join(root, "deps/p30/lib"), lab.home, "config", "alias.mine", `!${lab.marker.path} mine`);
      const small = await createExecutor({
        root,
        home: lab.home,
        selfCommand: SELF_COMMAND,
        probe: machineSandbox,
        killGraceMs: 300,
        gitGuardWatches: 20,
      });
      try {
        const job = await small.start({
          command: `${lab.evilRepo("$TMPDIR/b")} && mv "$TMPDIR/b/.git" deps/p39/lib/.git && echo PLANTED; sleep 60`,
          cwd: root,
          sandbox: { ...small.spec(), root },
        });
        await eventually(() => job.output().includes("PLANTED"), 20_000);
        const planted = performance.now();
        await eventually(() => job.output().includes("made deps/p39/lib/.git"), 10_000);
        expect(performance.now() - planted).toBeLessThan(6_000);
        expect(job.output()).toContain("made deps/p39/lib/.git, a git repository; its config sets");
        // The user and the model were told, before the command's own output, that part of the tree is scanned.
        expect(job.output().indexOf("the git guard cannot watch all of this project")).toBeGreaterThanOrEqual(0);
        expect(job.output().indexOf("the git guard cannot watch all of this project")).toBeLessThan(
          job.output().indexOf("PLANTED"),
        );
        expect(job.output()).toContain("it takes at most 20 for all its projects");
        lab.marker.reset();
        expect(probe(lab.marker, lab.home, [join(root, "deps/p39/lib")])).toEqual([]);
        const end = await job.stop();
        expect(end.output).not.toContain("deps/p30");
        expect(existsSync(join(root, "deps/p30/lib/.git/HEAD"))).toBe(true);
      } finally {
        await small.shutdown();
      }
    }, 90_000);

    test("a repository judged harmless that a command then changes without any event " +
      "(through an mmap) is judged again within a second", async () => {
      const root = lab.project("mmap");
      // A harmless config, padded so the evil one fits in the same bytes; then rewritten in place through a shared
      // mapping.
      const padded = `[core]\n\tbare = false\n#${"x".repeat(120)}\n`;
      const evil = `[core]\n\tfsmonitor = ${lab.marker.path}\n#`.padEnd(padded.length - 1, "x") + "\n";
      const script = [
        "git init -q sub",
        `printf '%s' '${padded}' > sub/.git/config`,
        "sleep 0.5",
        // The descriptor stays open (closing it would be an event): only a second look finds the change.
        `python3 -c "import mmap,os,sys,time; f=os.open('sub/.git/config', os.O_RDWR); ` +
          `m=mmap.mmap(f, 0); m[:]=sys.stdin.buffer.read(); m.flush(); print('PLANTED', ` +
          `flush=True); time.sleep(60)" <<'EOF'\n${evil}EOF`,
      ].join("\n");
      expect(evil.length).toBe(padded.length);
      const job = await lab.guarded.start({ command: script, cwd: root, sandbox: { ...lab.guarded.spec(), root } });
      try {
        await eventually(() => job.output().includes("PLANTED"), 20_000);
        await eventually(() => job.output().includes("[Garuda:"), 3_000);
        // Moved for what the config sets, or (when a look comes first) for the mapping that can set it unseen.
        expect(job.output()).toMatch(
          new RegExp(
            String.raw`made sub\/\.git, a git repository; ` +
              String.raw`(its config sets core\.fsmonitor` +
              "|it holds a file of its git folder open for writing or mapped)",
          ),
        );
        lab.marker.reset();
        expect(probe(lab.marker, lab.home, [join(root, "sub")])).toEqual([]);
      } finally {
        await job.stop();
      }
    }, 60_000);

    test("a rebase the command left unfinished with exec lines in its todo list is named " +
      "in its output (git rebase --continue on the host would run them)", async () => {
      const root = lab.project("rebase");
      git(root, lab.home, "commit", "-q", "--allow-empty", "-m", "second");
      git(root, lab.home, "commit", "-q", "--allow-empty", "-m", "third");
      const sandbox = { ...lab.guarded.spec(), root };
      // Stops at once (a break first), leaving the exec lines for later.
      const left = await lab.guarded.run({
        command:
          `GIT_SEQUENCE_EDITOR="sed -i '1i break'" git rebase -q -i --exec ` +
          `'${lab.marker.path} rebase-exec' HEAD~2; git status | head -1`,
        cwd: root,
        sandbox,
      });
      expect(left.output).toContain("interactive rebase in progress");
      expect(left.output).toContain("[Garuda: the command left .git/rebase-merge/git-rebase-todo with exec lines");
      // A later command that does not touch it says nothing more; one that finishes it neither.
      expect((await lab.guarded.run({ command: "true", cwd: root, sandbox })).output).toBe("");
      git(root, lab.home, "rebase", "--abort");
    }, 60_000);
  },
  "bwrap",
);
