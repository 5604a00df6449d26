// One git guard per project per process (host.ts): sessions (executors) of the same project share
// its walk and its inotify watches, counted by the kernel (/proc/self/fdinfo of the inotify
// descriptors); the guard outlives the first session to close and works for the other; the last
// close gives every watch back. Negative control: executors that each make their own guards (no
// host handed in, as before) take the watches twice.
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { createExecutor } from "../../../src/sandbox/executor.ts";
import { createGitGuardHost } from "../../../src/sandbox/gitGuard/host.ts";
import type { ProcessExecutor } from "../../../src/sandbox/types.ts";
import { git, evilConfigScript, markerProgram, probe } from "../../support/gitAttack.ts";
import { SELF_COMMAND, describeSandbox, machineSandbox } from "../../support/sandboxSupport.ts";
import { tempDir } from "../../support/tempDir.ts";

/**
 * This process's inotify descriptors and the watch lines the kernel lists for them (a descriptor's duplicates list the
 * same).
 */
function inotifyUse(): { descriptors: number; watchLines: number } {
  let descriptors = 0;
  let watchLines = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    let link = "";
    try {
      link = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed meanwhile (the readdir's own descriptor)
    }
    if (link !== "anon_inode:inotify") continue;
    descriptors++;
    watchLines += readFileSync(`/proc/self/fdinfo/${fd}`, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("inotify wd:")).length;
  }
  return { descriptors, watchLines };
}

describeSandbox("git guard: one per project per process", () => {
  const FOLDERS = 300;

  function project(scratch: string): { root: string; home: string } {
    const root = join(scratch, "project");
    const home = join(scratch, "home");
    mkdirSync(home, { recursive: true });
    for (let i = 0; i < FOLDERS; i++) mkdirSync(join(root, "src", `d${i % 30}`, `e${i}`), { recursive: true });
    git(root, home, "init", "-q");
    return { root, home };
  }

  const session = (root: string, home: string, extra: object) =>
    createExecutor({ root, home, selfCommand: SELF_COMMAND, probe: machineSandbox, killGraceMs: 300, ...extra });
  const touch = (executor: ProcessExecutor, root: string) =>
    executor.run({ command: "true", cwd: root, sandbox: executor.spec() });

  test("two sessions of one project share one guard and one set of watches; the last " +
    "to close gives them back", async () => {
    using scratch = tempDir("garuda-guardhost-", { real: true });
    const { root, home } = project(scratch.path);
    const marker = markerProgram(join(scratch.path, "bin"));
    const host = createGitGuardHost({ stateDir: join(scratch.path, "state"), path: process.env.PATH });
    const before = inotifyUse();
    const a = await session(root, home, { gitGuards: host });
    await touch(a, root);
    const one = inotifyUse();
    // Every folder of the project is watched (and the barrier folder), by one instance.
    expect(host.watches).toBeGreaterThan(FOLDERS);
    expect(one.watchLines - before.watchLines).toBeGreaterThan(FOLDERS);
    const b = await session(root, home, { gitGuards: host });
    await touch(b, root);
    // The second session walked nothing and watches nothing more.
    expect(inotifyUse()).toEqual(one);
    const watches = host.watches;

    await a.shutdown();
    expect(inotifyUse()).toEqual(one);
    expect(host.watches).toBe(watches);
    // The guard still works for the session left: a planted repository is moved aside.
    const planted = await b.run({
      command: `git init -q sub && ${evilConfigScript("sub/.git/config", marker.path)}`,
      cwd: root,
      sandbox: b.spec(),
    });
    expect(planted.output).toContain("[Garuda: the command made sub/.git, a git repository");
    expect(probe(marker, home, [join(root, "sub")])).toEqual([]);

    await b.shutdown();
    expect(inotifyUse()).toEqual(before);
    expect(host.watches).toBe(0);
    await host.close();
  }, 60_000);

  test("negative control: sessions that each make their own guards walk and watch the project twice", async () => {
    using scratch = tempDir("garuda-guardhost-", { real: true });
    const { root, home } = project(scratch.path);
    const gitGuardDir = join(scratch.path, "state");
    const before = inotifyUse();
    const a = await session(root, home, { gitGuardDir });
    await touch(a, root);
    const one = inotifyUse();
    const b = await session(root, home, { gitGuardDir });
    await touch(b, root);
    const two = inotifyUse();
    expect(two.descriptors - before.descriptors).toBe(2 * (one.descriptors - before.descriptors));
    expect(two.watchLines - before.watchLines).toBe(2 * (one.watchLines - before.watchLines));
    await a.shutdown();
    await b.shutdown();
    expect(inotifyUse()).toEqual(before);
  }, 60_000);
});
