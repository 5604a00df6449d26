// Command cgroups: where they can be made (from /proc/self/cgroup and mountinfo, as root only),
// the joining shell (a command's first process is in its cgroup before it runs anything), and on
// this machine, when it runs as root, a real cgroup made, limited, counted and removed.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { candidateBases, createCommandCgroup, findCgroups, joinCgroupArgv } from "../../src/sandbox/cgroup.ts";
import { tempDir } from "../support/tempDir.ts";

const mountinfo = (lines: string[]) => lines.map((line, i) => `${30 + i} 23 0:${28 + i} ${line}`).join("\n");

describe("candidateBases", () => {
  test("an ordinary user makes none (the user's cgroups are systemd's)", () => {
    using dir = tempDir("garuda-cgroup-");
    const facts = {
      uid: 1000,
      cgroup: "4:memory:/\n8:pids:/\n",
      mountinfo: mountinfo([`/ ${dir.path} rw - cgroup cgroup rw,pids`]),
    };
    expect(candidateBases(facts)).toEqual([]);
    expect(findCgroups(facts)).toBeUndefined();
  });

  test(
    "cgroup v1: Garuda's own cgroup in the pids and the memory hierarchy (a mount " + "with its own root is followed)",
    () => {
      using dir = tempDir("garuda-cgroup-");
      mkdirSync(join(dir.path, "pids"), { recursive: true });
      mkdirSync(join(dir.path, "memory/session-1"), { recursive: true });
      const facts = {
        uid: 0,
        cgroup: "9:name=systemd:/\n8:pids:/\n4:memory:/box/session-1\n1:cpu,cpuacct:/\n0::/\n",
        mountinfo: mountinfo([
          `/ ${dir.path}/pids rw,relatime - cgroup cgroup rw,pids`,
          `/box ${dir.path}/memory rw,relatime - cgroup cgroup rw,memory`,
          `/ ${dir.path}/unified rw,relatime - cgroup2 cgroup2 rw`,
        ]),
      };
      expect(candidateBases(facts)).toEqual([
        { version: 1, dir: join(dir.path, "pids"), controllers: ["pids"] },
        { version: 1, dir: join(dir.path, "memory/session-1"), controllers: ["memory"] },
      ]);
      // Plain folders are not cgroups: the trial finds no pids.max there, so none is used.
      expect(findCgroups(facts)).toBeUndefined();
    },
  );

  test(
    "cgroup v2: the nearest ancestor that hands down both pids and memory (Garuda's " +
      "own cgroup holds processes, so it cannot)",
    () => {
      using dir = tempDir("garuda-cgroup-");
      const scope = join(dir.path, "user.slice/user-0.slice/session-3.scope");
      mkdirSync(scope, { recursive: true });
      writeFileSync(join(dir.path, "cgroup.subtree_control"), "cpuset cpu io memory pids\n");
      writeFileSync(join(dir.path, "user.slice/cgroup.subtree_control"), "memory pids\n");
      writeFileSync(join(dir.path, "user.slice/user-0.slice/cgroup.subtree_control"), "memory pids\n");
      writeFileSync(join(scope, "cgroup.subtree_control"), "\n");
      const facts = {
        uid: 0,
        cgroup: "0::/user.slice/user-0.slice/session-3.scope\n",
        mountinfo: mountinfo([`/ ${dir.path} rw,nosuid - cgroup2 cgroup2 rw,nsdelegate`]),
      };
      expect(candidateBases(facts)).toEqual([
        { version: 2, dir: join(dir.path, "user.slice/user-0.slice"), controllers: ["pids", "memory"] },
      ]);
      // Only memory handed down: no cgroup (the process count is what matters most).
      writeFileSync(join(dir.path, "user.slice/user-0.slice/cgroup.subtree_control"), "memory\n");
      writeFileSync(join(dir.path, "user.slice/cgroup.subtree_control"), "memory\n");
      writeFileSync(join(dir.path, "cgroup.subtree_control"), "memory\n");
      expect(candidateBases(facts)).toEqual([]);
    },
  );
});

describe("joinCgroupArgv", () => {
  test("the first process writes its own pid to every cgroup.procs, then becomes the command (the same pid)", () => {
    using dir = tempDir("garuda-cgroup-");
    const files = [join(dir.path, "a.procs"), join(dir.path, "b.procs")];
    for (const file of files) writeFileSync(file, "");
    const run = Bun.spawnSync(joinCgroupArgv(files, ["/bin/sh", "-c", 'echo "$$ $1"', "sh", "arg with space"]), {
      stdout: "pipe",
      stderr: "pipe",
    });
    const [pid, ...rest] = run.stdout.toString().trim().split(" ");
    expect(rest.join(" ")).toBe("arg with space");
    for (const file of files) expect(readFileSync(file, "utf8").trim()).toBe(pid as string);
  });

  test("a cgroup it cannot join stops it before the command runs (exit 125)", () => {
    using dir = tempDir("garuda-cgroup-");
    const run = Bun.spawnSync(joinCgroupArgv([join(dir.path, "missing/cgroup.procs")], ["/bin/echo", "ran"]), {
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(run.exitCode).toBe(125);
    expect(run.stdout.toString()).toBe("");
  });
});

describe("this machine", () => {
  const root = process.getuid?.() === 0;
  test(
    root
      ? "as root: a command cgroup is made with its limits, counted, and removed"
      : "as an ordinary user: no cgroup is made",
    async () => {
      const support = findCgroups();
      if (!root) {
        expect(support).toBeUndefined();
        return;
      }
      if (!support)
        throw new Error(
          "no usable cgroup on this machine although Garuda runs as root; the executor " +
            "falls back to resource limits, which root ignores",
        );
      const cgroup = createCommandCgroup(support, `garuda-${process.pid}-test`, {
        processes: 77,
        memoryBytes: 300 * 2 ** 20,
      });
      const dirs = cgroup.procsFiles.map((file) => join(file, ".."));
      try {
        expect(cgroup.procsFiles.length).toBeGreaterThan(0);
        for (const base of support.bases) {
          const dir = join(base.dir, `garuda-${process.pid}-test`);
          if (base.controllers.includes("pids")) expect(readFileSync(join(dir, "pids.max"), "utf8").trim()).toBe("77");
          const memoryFile = base.version === 2 ? "memory.max" : "memory.limit_in_bytes";
          if (base.controllers.includes("memory"))
            expect(readFileSync(join(dir, memoryFile), "utf8").trim()).toBe(String(300 * 2 ** 20));
        }
        // A real process in it: counted (its pid is in cgroup.procs), and no limit hit.
        const run = Bun.spawnSync(joinCgroupArgv(cgroup.procsFiles, ["/bin/sh", "-c", "cat /proc/self/cgroup"]), {
          stdout: "pipe",
        });
        expect(run.stdout.toString()).toContain(`garuda-${process.pid}-test`);
        expect(cgroup.counts()).toMatchObject({ processesRefused: 0 });
      } finally {
        await cgroup.remove();
      }
      for (const dir of dirs) expect(existsSync(dir)).toBe(false);
    },
  );
});
