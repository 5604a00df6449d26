// Shared by the git guard tests: a marker program that records every time git runs it, config
// that makes git run it in every way the issue names (fsmonitor, hooks, hooksPath, pager, editor,
// sshCommand, diff.external, an alias, a filter, gpg), and the user's own git commands on the
// host (status, diff, log with a terminal, commit, the alias, a fetch over ssh) that would run it.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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
export function hostGit(cwd: string, home: string): void {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GIT_CONFIG_NOSYSTEM: "1", TERM: "dumb" };
  const run = (argv: string[]) => Bun.spawnSync(argv, { cwd, env, stdin: "ignore", stdout: "ignore", stderr: "ignore", timeout: 20_000 });
  run(["git", "status"]);
  run(["git", "diff"]);
  run(["git", "log", "-1", "-p"]);
  run(["git", "st"]);
  run(["git", "-c", "user.name=U", "-c", "user.email=u@example.invalid", "commit", "-q", "-a", "--allow-empty", "-m", "probe"]);
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
  const result = Bun.spawnSync(["git", "-c", "init.defaultBranch=main", "-c", "user.name=U", "-c", "user.email=u@example.invalid", "-c", "protocol.file.allow=always", ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GIT_CONFIG_NOSYSTEM: "1" },
  });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString()}`);
  return result.stdout.toString();
}
