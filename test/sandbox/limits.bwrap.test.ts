// The command limits with the real sandbox and real processes: a loop that tries to start more
// processes than the limit is stopped at it, a 2 GB allocation over the memory limit fails, each
// with the message the model reads, and a real build and test run passes under the defaults. Each
// is shown against a negative control (the same command with room to spare succeeds). As root
// the limits are a cgroup (the kernel does not apply RLIMIT_NPROC to root); the ordinary user's
// way, RLIMIT_NPROC in the command's user namespace, is checked as user `nobody` (or as the user
// running the tests). Every test is bounded, and the sandbox ends all its processes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { findCgroups } from "../../src/sandbox/cgroup.ts";
import { createExecutor } from "../../src/sandbox/executor.ts";
import { type CommandLimits, defaultCommandLimits } from "../../src/sandbox/limits.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import {
  SELF_COMMAND,
  describeSandbox,
  eventually,
  machineSandbox,
  marker,
  sleepers,
} from "../support/sandboxSupport.ts";
import { makeTempDir } from "../support/tempDir.ts";

const BUN = process.execPath;
const REPO = join(import.meta.dir, "../..");
const root = process.getuid?.() === 0;

let scratch: string;
const executors: ProcessExecutor[] = [];

async function executorWith(limits: CommandLimits, cgroups?: null): Promise<ProcessExecutor> {
  const executor = await createExecutor({
    root: scratch,
    home: scratch,
    selfCommand: SELF_COMMAND,
    probe: machineSandbox,
    limits,
    ...(cgroups === null && { cgroups }),
  });
  executors.push(executor);
  if (cgroups !== null && executor.limits?.processes === "none") {
    throw new Error(
      "these tests run as root, and Garuda cannot make a cgroup here, so there is no " +
        "process limit to test: run them as an ordinary user, or where root may write " +
        "/sys/fs/cgroup",
    );
  }
  return executor;
}

/**
 * A command that tries to fork `count` sleeping processes (perl: a fork costs well under a millisecond), then says how
 * many started.
 */
const forker = (count: number, tag: string) =>
  `perl -e 'my $n = 0; for (1..${count}) { my $p = fork; if (!defined $p) { print ` +
  `STDERR "fork: $!\\n"; last } if (!$p) { sleep 60; exit 0 } $n++ } print ` +
  `"started $n\\n"' garuda-fork-${tag}`;
/** Processes of a forker still alive, anywhere on the machine. */
function forked(tag: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(`\0garuda-fork-${tag}\0`)) pids.push(Number(name));
    } catch {
      // gone
    }
  }
  return pids;
}
const started = (output: string) => Number(/started (\d+)/.exec(output)?.[1] ?? -1);
/** A command that allocates and touches 2 GiB. */
const TWO_GB = `'${BUN}' -e 'const a = new Uint8Array(2 * 1024 ** 3); a.fill(1); console.log("allocated", a.length)'`;

/** Command cgroups this process made that are still there. */
function leftCgroups(): string[] {
  return (findCgroups()?.bases ?? []).flatMap((base) =>
    readdirSync(base.dir).filter((name) => name.startsWith(`garuda-${process.pid}-`)),
  );
}

describeSandbox(
  "command limits in bubblewrap",
  () => {
    beforeAll(() => {
      scratch = makeTempDir("garuda-limits-test-", { real: true });
    });
    afterAll(async () => {
      for (const executor of executors) await executor.shutdown();
      rmSync(scratch, { recursive: true, force: true });
    });

    test("a loop that starts 400 processes stops at a limit of 200, and the result says " +
      "so and how to raise it (negative control: with room for them, all 400 start)", async () => {
      const tag = marker();
      const limited = await executorWith({ processes: 200, memoryMB: 4_096 });
      const result = await limited.run({
        command: forker(400, tag),
        cwd: scratch,
        sandbox: limited.spec(),
        timeoutMs: 60_000,
      });
      expect(started(result.output)).toBeGreaterThan(100);
      expect(started(result.output)).toBeLessThan(200);
      expect(result.limit?.kind).toBe("processes");
      expect(result.output).toContain(
        "[Garuda: the command hit the sandbox's process limit (at most 200 processes " +
          "and threads may run at once), and starting another one failed. To allow more, " +
          "the user can set limits.processes in ~/.garuda/policy.json.]",
      );
      await eventually(() => forked(tag).length === 0, 5_000);

      const roomy = await executorWith({ processes: 2_000, memoryMB: 4_096 });
      const free = await roomy.run({
        command: forker(400, tag),
        cwd: scratch,
        sandbox: roomy.spec(),
        timeoutMs: 60_000,
      });
      expect(started(free.output)).toBe(400);
      expect(free.limit).toBeUndefined();
      expect(free.output).not.toContain("[Garuda:");
      // 400 processes to reap: on a machine busy with other test files that can take more than 5 s.
      await eventually(() => forked(tag).length === 0, 15_000);
      if (root) await eventually(() => leftCgroups().length === 0, 15_000);
    }, 120_000);

    test("a command cannot lift its limits: not the hard resource limits, not by leaving " +
      "its cgroup or rewriting its pids.max; the loop after the attempts still stops " +
      "at the limit", async () => {
      const tag = marker();
      const executor = await executorWith({ processes: 150, memoryMB: 4_096 });
      const attempts = [
        "ulimit -u 100000 2>/dev/null && echo raised-nproc",
        // (with a cgroup, memory is the cgroup's, not a resource limit)
        executor.limits?.memory === "rlimit" ? "ulimit -d unlimited 2>/dev/null && echo raised-data" : "true",
        // Every cgroup.procs and pids.max of the host's hierarchies, its own among them.
        "for f in $(find /sys/fs/cgroup -maxdepth 3 \\( -name cgroup.procs -o -name " +
          "pids.max -o -name memory.max -o -name memory.limit_in_bytes \\) 2>/dev/null); " +
          "do (echo $$ > $f || echo 1000000 > $f) 2>/dev/null && echo wrote $f; done",
        "cat /proc/self/cgroup | grep -c garuda- || true",
      ].join("; ");
      const result = await executor.run({
        command: `${attempts}; ${forker(400, tag)}`,
        cwd: scratch,
        sandbox: executor.spec(),
        timeoutMs: 60_000,
      });
      expect(result.output).not.toContain("raised-");
      expect(result.output).not.toContain("wrote ");
      expect(started(result.output)).toBeLessThan(150);
      expect(result.limit?.kind).toBe("processes");
      await eventually(() => forked(tag).length === 0, 5_000);
    }, 60_000);

    test("the defaults stop a loop that tries to start more processes than they allow (up to 3,000)", async () => {
      const defaults = defaultCommandLimits();
      const tag = marker();
      const executor = await executorWith(defaults);
      const wanted = Math.min(3_000, defaults.processes + 200);
      const result = await executor.run({
        command: forker(wanted, tag),
        cwd: scratch,
        sandbox: executor.spec(),
        timeoutMs: 90_000,
      });
      expect(started(result.output)).toBeLessThan(defaults.processes);
      expect(result.limit?.kind).toBe("processes");
      await eventually(() => forked(tag).length === 0, 10_000);
    }, 120_000);

    test("a 2 GB allocation fails at a memory limit of 1 GB, with the message (negative " +
      "control: at 4 GB it succeeds)", async () => {
      const limited = await executorWith({ processes: 1_024, memoryMB: 1_024 });
      const result = await limited.run({ command: TWO_GB, cwd: scratch, sandbox: limited.spec(), timeoutMs: 60_000 });
      expect(result.exitCode).not.toBe(0);
      expect(result.output).not.toContain("allocated");
      expect(result.limit?.kind).toBe("memoryMB");
      expect(result.output).toMatch(
        new RegExp(
          String.raw`\[Garuda: the command (hit|seems to have hit) the sandbox's memory limit ` +
            String.raw`\(1,024 MB (for all its processes together|per process)\)`,
        ),
      );
      expect(result.output).toContain("To allow more, the user can set limits.memoryMB in ~/.garuda/policy.json.]");

      const roomy = await executorWith({ processes: 1_024, memoryMB: 4_096 });
      const free = await roomy.run({ command: TWO_GB, cwd: scratch, sandbox: roomy.spec(), timeoutMs: 60_000 });
      expect(free.output).toContain(`allocated ${2 * 1024 ** 3}`);
      expect(free.limit).toBeUndefined();
    }, 120_000);

    test("without a cgroup, memory is capped per process (RLIMIT_DATA): the 2 GB " +
      "allocation fails at 1 GB, with the message", async () => {
      const limited = await executorWith({ processes: 1_024, memoryMB: 1_024 }, null);
      expect(limited.limits?.memory).toBe("rlimit");
      const result = await limited.run({ command: TWO_GB, cwd: scratch, sandbox: limited.spec(), timeoutMs: 60_000 });
      expect(result.output).toContain("RangeError: Out of memory");
      expect(result.output).toContain(
        "[Garuda: the command seems to have hit the sandbox's memory limit (1,024 MB " +
          "per process): an allocation failed.",
      );
    }, 60_000);

    test("a CPU-time limit stops a runaway loop with the message (negative control: " +
      "without one the loop runs until the timeout)", async () => {
      const spin = "perl -e '1 while 1'";
      const limited = await executorWith({ processes: 1_024, memoryMB: 4_096, cpuSeconds: 1 });
      const result = await limited.run({ command: spin, cwd: scratch, sandbox: limited.spec(), timeoutMs: 30_000 });
      expect(result.timedOut).toBe(false);
      expect(result.limit?.kind).toBe("cpuSeconds");
      expect(result.output).toContain(
        "[Garuda: a process of the command used up the sandbox's CPU-time limit (1 s per process) and was stopped.",
      );

      const free = await executorWith({ processes: 1_024, memoryMB: 4_096 });
      const unlimited = await free.run({ command: spin, cwd: scratch, sandbox: free.spec(), timeoutMs: 3_000 });
      expect(unlimited.timedOut).toBe(true);
      expect(unlimited.limit).toBeUndefined();
    }, 60_000);

    test("a real build and test run passes under the default limits, far below them", async () => {
      const project = join(scratch, "build");
      cpSync(join(REPO, "src"), join(project, "src"), { recursive: true });
      // The whole test folder (the permission tests import helpers from beside other tests), of which
      // two folders run, less the one file that drives a whole session (it needs a sandbox of its own).
      cpSync(join(REPO, "test"), join(project, "test"), { recursive: true });
      for (const file of ["package.json", "bunfig.toml", "tsconfig.json", "test/preload.ts"])
        cpSync(join(REPO, file), join(project, file));
      const defaults = defaultCommandLimits();
      const executor = await createExecutor({
        root: project,
        home: scratch,
        selfCommand: SELF_COMMAND,
        probe: machineSandbox,
        limits: defaults,
      });
      executors.push(executor);
      const command =
        `ln -s '${join(REPO, "node_modules")}' node_modules && '${BUN}' build ` +
        `src/cli/main.ts --target bun --outdir out >/dev/null && ls out && '${BUN}' ` +
        `test test/text $(ls test/permission/*.test.ts | grep -v Session) 2>&1 | tail ` +
        `-4`;
      // The repository may itself be under /tmp, which the sandbox keeps private: its node_modules is named readable.
      const result = await executor.run({
        command,
        cwd: project,
        sandbox: executor.spec(),
        timeoutMs: 120_000,
        readPaths: [REPO],
      });
      expect(result.exitCode).toBe(0);
      expect(result.output).toContain("main.js");
      expect(result.output).toMatch(/ 0 fail/);
      expect(result.limit).toBeUndefined();
      if (result.peak?.tasks !== undefined) expect(result.peak.tasks).toBeLessThan(defaults.processes / 4);
      if (result.peak?.memoryBytes !== undefined)
        expect(result.peak.memoryBytes).toBeLessThan((defaults.memoryMB * 2 ** 20) / 2);
    }, 150_000);

    test("as an ordinary user, RLIMIT_NPROC in the command's user namespace counts only " +
      "the command's processes: the loop stops at the limit, the user's other " +
      "processes do not count (negative control: with room, all start)", async () => {
      // A helper process run as `nobody` (as root) or as this user: it holds 150 processes of its
      // own on the host, then runs the forker in the sandbox with a limit of 200.
      const tag = marker();
      const hold = marker();
      const project = makeTempDir("garuda-limits-user-", { real: true });
      const script = join(project, "as-user.ts");
      await Bun.write(
        script,
        `import { createExecutor } from ` +
          `${JSON.stringify(join(REPO, "src/sandbox/executor.ts"))};
const held = ` +
          `Array.from({ length: 150 }, () => Bun.spawn(["sleep", "${hold}"], { stdout: ` +
          `"ignore", stderr: "ignore" }));
const project = process.argv[2];
const out = ` +
          `{};
for (const processes of [200, 2000]) {
  const executor = await ` +
          `createExecutor({ root: project, home: project, selfCommand: ` +
          `${JSON.stringify(SELF_COMMAND)}, limits: { processes, memoryMB: 4096 }, ` +
          `cgroups: null });
  const result = await executor.run({ command: ` +
          `${JSON.stringify(forker(400, tag))}, cwd: project, sandbox: executor.spec(), ` +
          `timeoutMs: 60000 });
  out[processes] = { output: result.output, kind: ` +
          `result.limit?.kind, inForce: executor.limits.processes };
  await ` +
          `executor.shutdown();
}
for (const p of held) ` +
          `p.kill("SIGKILL");
console.log(JSON.stringify(out));
`,
      );
      try {
        const asUser = root ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [];
        if (root) Bun.spawnSync(["chown", "-R", "65534:65534", project]);
        const run = Bun.spawn([...asUser, BUN, script, project], {
          stdout: "pipe",
          stderr: "pipe",
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: project },
        });
        const [stdout, stderr] = await Promise.all([
          new Response(run.stdout).text(),
          new Response(run.stderr).text(),
          run.exited,
        ]);
        const out = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as Record<
          string,
          { output: string; kind?: string; inForce: string }
        >;
        if (!out["200"]) throw new Error(`the helper failed: ${stderr}`);
        expect(out["200"].inForce).toBe("rlimit");
        expect(started(out["200"].output)).toBeGreaterThan(100);
        expect(started(out["200"].output)).toBeLessThan(200);
        expect(out["200"].kind).toBe("processes");
        expect(out["200"].output).toContain(
          "[Garuda: the command hit the sandbox's process limit (at most 200 processes and threads may run at once)",
        );
        expect(started(out["2000"]?.output ?? "")).toBe(400);
        expect(out["2000"]?.kind).toBeUndefined();
      } finally {
        rmSync(project, { recursive: true, force: true });
      }
      await eventually(() => forked(tag).length === 0 && sleepers(hold).length === 0, 10_000);
    }, 150_000);
  },
  "bwrap",
);
