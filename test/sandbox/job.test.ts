// A job lets go of its Subprocess when it ends (issue 19.4): the drain window after the main
// process exits was a Bun.sleep whose continuation held the job's scope (the Subprocess and its
// pipes' read buffers, 256 KiB each) for the whole 500 ms, so a fast run of commands (bench/soak.ts)
// kept ~20 of them and ~10 MiB alive at any moment.
import { heapStats } from "bun:jsc";
import { expect, test } from "bun:test";
import { spawnJob } from "../../src/sandbox/job.ts";
import { readProcStat } from "../../src/sandbox/procStat.ts";

const liveSubprocesses = () => {
  Bun.gc(true);
  return heapStats().objectTypeCounts.Subprocess ?? 0;
};

test("ended jobs are not kept alive by their drain window", async () => {
  const before = liveSubprocesses();
  const outputs: string[] = [];
  for (let i = 0; i < 10; i++) {
    const job = spawnJob({
      argv: ["/bin/sh", "-c", `echo ${i}`],
      cwd: "/",
      env: { PATH: "/usr/bin:/bin" },
      stdin: "ignore",
      capture: "all",
      pidNamespace: false,
      graceMs: 1_000,
      onText: (text) => outputs.push(text),
    });
    const end = await job.exited;
    expect(end.exitCode).toBe(0);
  }
  expect(outputs.join("")).toBe("0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n");
  // Without the fix all ten are still held (each ended less than 500 ms ago).
  expect(liveSubprocesses() - before).toBeLessThan(3);
});

test(
  "a host job leads its own session; a job under bwrap does not (a new session " + "cost bwrap a scheduler autogroup)",
  async () => {
    const sessionOf = async (pidNamespace: boolean) => {
      const job = spawnJob({
        argv: ["/bin/sh", "-c", "read -r _"],
        cwd: "/",
        env: { PATH: "/usr/bin:/bin" },
        stdin: "pipe",
        capture: "all",
        pidNamespace,
        graceMs: 1_000,
        onText: () => {},
      });
      const stat = readProcStat(job.pid);
      await job.terminate("stop");
      await job.exited;
      return { pid: job.pid, session: stat?.session };
    };
    const host = await sessionOf(false);
    expect(host.session).toBe(host.pid);
    const sandboxed = await sessionOf(true);
    expect(sandboxed.session).toBe(readProcStat("self")?.session);
    expect(sandboxed.session).not.toBe(sandboxed.pid);
  },
);
