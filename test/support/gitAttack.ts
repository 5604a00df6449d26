// Shared by the git guard tests: a marker program that records every time git runs it, config
// that makes git run it in every way the issue names (fsmonitor, hooks, hooksPath, pager, editor,
// sshCommand, diff.external, an alias, a filter, gpg), and the user's own git commands on the
// host (status, diff, log with a terminal, commit, the alias, a fetch over ssh) that would run it;
// and the lab the guard's sandbox tests share (guardLab).
import { afterAll, beforeAll, expect } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor, SandboxSpec } from "../../src/sandbox/types.ts";
import { SELF_COMMAND, eventually, machineSandbox } from "./sandboxSupport.ts";
import { makeTempDir } from "./tempDir.ts";

export interface MarkerProgram {
  /** The program git is made to run. */
  path: string;
  /** What ran it so far (one line per run: the arguments it got). */
  hits(): string[];
  reset(): void;
}

export function markerProgram(dir: string): MarkerProgram {
  mkdirSync(dir, { recursive: true });
  const log = join(dir, "marker.log");
  const path = join(dir, "marker.sh");
  writeFileSync(path, `#!/bin/sh\necho "ran: $*" >> '${log}'\ncat >/dev/null 2>&1 </dev/null\nexit 0\n`);
  chmodSync(path, 0o755);
  return {
    path,
    hits: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []),
    reset: () => rmSync(log, { force: true }),
  };
}

/** `git config` commands (for a shell, run with `git config -f FILE`) that make git run `marker`. */
export function evilSettings(marker: string): Array<[string, string]> {
  return [
    ["core.fsmonitor", marker],
    ["core.pager", `${marker} pager`],
    ["core.editor", `${marker} editor`],
    ["core.sshCommand", `${marker} ssh`],
    ["diff.external", `${marker}`],
    ["alias.st", `!${marker} alias`],
    ["filter.evil.clean", `${marker} clean`],
    ["filter.evil.smudge", `${marker} smudge`],
    ["filter.evil.required", "false"],
    ["commit.gpgSign", "true"],
    ["gpg.program", `${marker}`],
  ];
}

/** Shell lines that write the evil settings into the config file `file`. */
export function evilConfigScript(file: string, marker: string): string {
  return evilSettings(marker)
    .map(([key, value]) => `git config -f "${file}" ${key} '${value}'`)
    .join(" && ");
}

/** The user's git on the host, in `cwd`: every command a person would run there. */
function hostGit(cwd: string, home: string): void {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GIT_CONFIG_NOSYSTEM: "1", TERM: "dumb" };
  const run = (argv: string[]) =>
    Bun.spawnSync(argv, { cwd, env, stdin: "ignore", stdout: "ignore", stderr: "ignore", timeout: 20_000 });
  run(["git", "status"]);
  run(["git", "diff"]);
  run(["git", "log", "-1", "-p"]);
  run(["git", "st"]);
  run([
    "git",
    "-c",
    "user.name=U",
    "-c",
    "user.email=u@example.invalid",
    "commit",
    "-q",
    "-a",
    "--allow-empty",
    "-m",
    "probe",
  ]);
  run(["git", "ls-remote", "ssh://127.0.0.1:1/nothing"]);
  // With a terminal, as a person runs it: the pager.
  if (Bun.which("script")) run(["script", "-qec", "git log -1", "/dev/null"]);
}

/** Host git in each folder; what the marker recorded. */
export function probe(marker: MarkerProgram, home: string, dirs: string[]): string[] {
  for (const dir of dirs) if (existsSync(dir)) hostGit(dir, home);
  return marker.hits();
}

/** A git command on the host (set-up only), failing loudly. */
export function git(cwd: string, home: string, ...args: string[]): string {
  const result = Bun.spawnSync(
    [
      "git",
      "-c",
      "init.defaultBranch=main",
      "-c",
      "user.name=U",
      "-c",
      "user.email=u@example.invalid",
      "-c",
      "protocol.file.allow=always",
      ...args,
    ],
    {
      cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GIT_CONFIG_NOSYSTEM: "1" },
    },
  );
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString()}`);
  return result.stdout.toString();
}

/** A project folder with a repository (one commit, a tracked file), or without one. */
function makeProject(scratch: string, home: string, name: string, repo = true): string {
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

export interface Attack {
  /** What the user's git ran while the command was still running. */
  during: string[];
  /** What it ran after the command ended. */
  after: string[];
  output: string;
  runningAtProbe: boolean;
}

/** What the git guard tests share: a scratch folder and home, a marker, executors with and without the guard. */
export interface GuardLab {
  scratch: string;
  home: string;
  marker: MarkerProgram;
  guarded: ProcessExecutor;
  unguarded: ProcessExecutor;
  project(name: string, repo?: boolean): string;
  /**
   * Runs `plant` in the sandbox as a long-running command in `root`, then the user's git in `dirs`
   * (under `root`) while it still runs, then again after it was stopped. `sandbox` overrides the
   * spec (an extra root: the session's root elsewhere, `root` in extraRoots).
   */
  attack(
    executor: ProcessExecutor,
    root: string,
    plant: string,
    dirs: string[],
    sandbox?: Partial<SandboxSpec>,
  ): Promise<Attack>;
  /** Shell lines that make a repository at `dir` (one commit unless bare) whose config runs the marker. */
  evilRepo(dir: string, bare?: boolean): string;
  dispose(): Promise<void>;
}

async function guardLab(): Promise<GuardLab> {
  const scratch = makeTempDir("garuda-gitguard-test-", { real: true });
  const home = join(scratch, "home");
  mkdirSync(join(home, ".cache"), { recursive: true });
  writeFileSync(
    join(home, ".gitconfig"),
    "[user]\n\tname = U\n\temail = u@example.invalid\n[init]\n\tdefaultBranch = " +
      'main\n[protocol "file"]\n\tallow = always\n',
  );
  const marker = markerProgram(join(scratch, "bin"));
  // The executors' own root stays empty: each test passes its project as the spec's root, and
  // no guard watches all the tests' projects at once (one root per executor, as in a session).
  const ownRoot = join(scratch, "executor-root");
  mkdirSync(ownRoot);
  const options = { root: ownRoot, home, selfCommand: SELF_COMMAND, probe: machineSandbox, killGraceMs: 300 };
  const guarded = await createExecutor(options);
  const unguarded = await createExecutor({ ...options, gitGuard: false });
  return {
    scratch,
    home,
    marker,
    guarded,
    unguarded,
    project: (name, repo = true) => makeProject(scratch, home, name, repo),
    async attack(executor, root, plant, dirs, sandbox = {}) {
      const job = await executor.start({
        command: `${plant}\necho PLANTED; sleep 120`,
        cwd: root,
        sandbox: { ...executor.spec(), root, ...sandbox },
      });
      let done = false;
      void job.exited.then(() => {
        done = true;
      });
      try {
        await eventually(() => job.output().includes("PLANTED") || done, 20_000);
        // With the guard: its note is the sign it acted. Without: what the guard would have had to act on is there now.
        if (executor === guarded)
          await eventually(() => job.output().includes("[Garuda:") || done, 5_000).catch(() => undefined);
        // The guard works asynchronously and may still be busy with the plant's last writes (a
        // note says only that it acted once). A second command in the project ends only after
        // every event made before its end was looked at (its leave passes the barrier): then the
        // user's git runs, as it would a moment later in another process.
        await executor.run({ command: "true", cwd: root, sandbox: { ...executor.spec(), root } });
        marker.reset();
        const during = probe(
          marker,
          home,
          dirs.map((dir) => join(root, dir)),
        );
        const runningAtProbe = !done;
        const end = await job.stop();
        marker.reset();
        const after = probe(
          marker,
          home,
          dirs.map((dir) => join(root, dir)),
        );
        marker.reset();
        return { during, after, output: end.output, runningAtProbe };
      } finally {
        await job.stop();
      }
    },
    evilRepo: (dir, bare = false) =>
      [
        `git init -q ${bare ? "--bare " : ""}"${dir}"`,
        bare ? "true" : `git -C "${dir}" commit -q --allow-empty -m planted`,
        evilConfigScript(bare ? `${dir}/config` : `${dir}/.git/config`, marker.path),
      ].join(" && "),
    async dispose() {
      await guarded.shutdown();
      await unguarded.shutdown();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

/** One way a sandboxed command makes git on the host run a program, as the guard tests plant it. */
export interface PlantVector {
  name: string;
  /** Whether the project has a repository to start with (default true). */
  repo?: boolean;
  setup?: (root: string) => void;
  /** Shell lines run in the project folder. */
  plant: () => string;
  /** Folders (under the project) the user's git runs in afterwards. */
  dirs: string[];
  /** What the guard's note says. */
  note: string;
}

/** Every way in the guard tests try, for the root (gitGuard.bwrap.test.ts) and for an extra folder. */
export function plantVectors(lab: GuardLab): PlantVector[] {
  let planted = 0;
  return [
    {
      name:
        "a nested repository (config with fsmonitor, pager, hooksPath, aliases, a " +
        "filter its info/attributes selects …) and a gitlink to it in the index",
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
      // The folder moved in replaces the empty one the guard watched at that path: it must be watched as itself.
      name: "a nested repository planted in a folder the command first moved over an empty one",
      setup: (root) => {
        mkdirSync(join(root, "moved/deeper"), { recursive: true });
        mkdirSync(join(root, "empty"));
      },
      plant: () =>
        [
          "mv -T moved empty && sleep 0.5",
          lab.evilRepo("$TMPDIR/over"),
          'cp -r "$TMPDIR/over/.git" empty/deeper/.git',
        ].join(" && "),
      dirs: ["empty/deeper"],
      note: "made empty/deeper/.git, a git repository",
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
        // each run its own: the first run's evil config would stop the second's git
        const cache = `$HOME/.cache/g${++planted}`;
        return [lab.evilRepo(cache), "mkdir -p sub", `printf 'gitdir: %s\\n' "${cache}/.git" > sub/.git`].join(" && ");
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
}

/** Under the guard: git ran nothing while the command ran or after, and the output says what was moved and why. */
export function expectCaught(result: Attack, vector: PlantVector): void {
  expect(result.runningAtProbe).toBe(true);
  expect(result.during).toEqual([]);
  expect(result.after).toEqual([]);
  expect(result.output).toContain("PLANTED");
  expect(result.output).toContain(vector.note);
  expect(result.output).toContain("Garuda moved it to .garuda/quarantine/");
  expect(result.output).toContain(
    "run the git command outside the sandbox (outside_sandbox: true; the user is asked first)",
  );
}

/** The negative control: without the guard the same plant makes git run the marker while the command runs. */
export function expectUncaught(result: Attack): void {
  expect(result.runningAtProbe).toBe(true);
  expect(result.during.length).toBeGreaterThan(0);
  expect(result.output).not.toContain("[Garuda:");
}

/**
 * The lab of one describe block: made before its tests, removed after them. Call it inside the
 * block (a sandbox-less machine skips the block, and makes no lab); the tests read its fields.
 */
export function labPerSuite(): GuardLab {
  const lab = {} as GuardLab;
  beforeAll(async () => {
    Object.assign(lab, await guardLab());
  });
  afterAll(async () => {
    await lab.dispose?.();
  });
  return lab;
}
