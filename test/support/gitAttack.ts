// Shared by the git guard tests: a marker program that records every time git runs it, config
// that makes git run it in every way the issue names (fsmonitor, hooks, hooksPath, pager, editor,
// sshCommand, diff.external, an alias, a filter, gpg), and the user's own git commands on the
// host (status, diff, log with a terminal, commit, the alias, a fetch over ssh) that would run it;
// and the lab the guard's sandbox tests share (guardLab).
import { afterAll, beforeAll } from "bun:test";
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
    '[user]\n\tname = U\n\temail = u@example.invalid\n[init]\n\tdefaultBranch = main\n[protocol "file"]\n\tallow = always\n',
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
