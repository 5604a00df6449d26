// The command limits' pure parts (defaults, Garuda's own hard limits, the shell prelude, which
// limit a finished command hit) and the prelude run by the real shells: the limits are set, the
// command itself runs unchanged, and it cannot raise them again.
import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type CommandLimits,
  LIMITS_FAILED,
  defaultCommandLimits,
  limitHit,
  limitedShellArgv,
  readHardLimits,
  shellLimits,
} from "../../src/sandbox/limits.ts";
import { tempDir } from "../support/tempDir.ts";

const GiB = 2 ** 30;

describe("defaultCommandLimits", () => {
  test("processes: 64 a core, at least 1,024; memory: half the machine, at least 1 GiB", () => {
    expect(defaultCommandLimits({ cpus: 2, memoryBytes: 24 * GiB })).toEqual({ processes: 1_024, memoryMB: 12_288 });
    expect(defaultCommandLimits({ cpus: 64, memoryBytes: 256 * GiB })).toEqual({ processes: 4_096, memoryMB: 131_072 });
    expect(defaultCommandLimits({ cpus: 1, memoryBytes: GiB })).toEqual({ processes: 1_024, memoryMB: 1_024 });
  });
});

const PROC_LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            3600                 seconds
Max data size             unlimited            unlimited            bytes
Max processes             96365                4096                 processes
Max open files            20000                20000                files
`;

describe("readHardLimits and shellLimits", () => {
  test("Garuda's own hard limits are read from /proc/self/limits (unlimited: none)", () => {
    expect(readHardLimits(PROC_LIMITS)).toEqual({ cpuSeconds: 3600, processes: 4096 });
    expect(readHardLimits("")).toEqual({});
    expect(readHardLimits()).toBeObject(); // this machine's file parses
  });

  test(
    "a limit above Garuda's own hard limit is lowered to it (a shell cannot raise a " +
      "hard limit); memory is left to a cgroup when there is one",
    () => {
      const limits: CommandLimits = { processes: 10_000, memoryMB: 2_048, cpuSeconds: 7_200 };
      const hard = readHardLimits(PROC_LIMITS);
      expect(shellLimits(limits, hard, false)).toEqual({ processes: 4096, dataKiB: 2_048 * 1024, cpuSeconds: 3595 });
      expect(shellLimits(limits, hard, true)).toEqual({ processes: 4096, cpuSeconds: 3595 });
      expect(shellLimits({ processes: 100, memoryMB: 64 }, {}, false)).toEqual({ processes: 100, dataKiB: 65_536 });
    },
  );
});

describe("limitedShellArgv", () => {
  test("/bin/sh sets the limits, then execs the command's shell with the command unchanged", () => {
    expect(
      limitedShellArgv("/bin/bash", "npm test", { processes: 1024, dataKiB: 1_048_576, cpuSeconds: 60 }),
    ).toMatchInlineSnapshot(`
      [
        "/bin/sh",
        "-c",
        
      "{ { ulimit -u 1024 || ulimit -p 1024; } && ulimit -d 1048576 && ulimit -S -t 60 && ulimit -H -t 65; } 2>/dev/null || { echo "garuda: the sandbox's limits could not be set, so the command did not run" >&2; exit 125; }
      exec "$0" -c "$1""
      ,
        "/bin/bash",
        "npm test",
      ]
    `);
  });

  // The prelude in bash and in dash (what /bin/sh is on Debian and Ubuntu), each execing bash.
  const shells = ["/bin/bash", "/usr/bin/dash", "/bin/dash", "/bin/sh"].filter((shell) => existsSync(shell));
  for (const prelude of shells) {
    test(
      `${prelude} prelude: soft and hard limits are set, the command sees its own $0, ` + `quoting and exit status`,
      () => {
        const command = `echo "$0|$#|it's"; ulimit -Sd; ulimit -Hd; ulimit -Hu; exit 7`;
        const run = Bun.spawnSync(
          limitedShellArgv("/bin/bash", command, { processes: 500, dataKiB: 2_097_152 }, prelude),
          { stdout: "pipe", stderr: "pipe", env: { PATH: "/usr/bin:/bin" } },
        );
        expect(run.stdout.toString()).toBe("/bin/bash|0|it's\n2097152\n2097152\n500\n");
        expect(run.stderr.toString()).toBe("");
        expect(run.exitCode).toBe(7);
        // Negative control: without the prelude the same command has no such limits.
        const free = Bun.spawnSync(["/bin/bash", "-c", command], { stdout: "pipe", env: { PATH: "/usr/bin:/bin" } });
        expect(free.stdout.toString()).not.toContain("2097152");
      },
    );
  }

  test("$BASH_ENV runs only after the limits (the prelude shell reads no start-up file)", () => {
    using dir = tempDir("garuda-limits-");
    const rc = join(dir.path, "rc.sh");
    writeFileSync(rc, 'echo "rc sees $(ulimit -Hu)"\n');
    const run = Bun.spawnSync(limitedShellArgv("/bin/bash", "true", { processes: 321 }), {
      stdout: "pipe",
      env: { PATH: "/usr/bin:/bin", BASH_ENV: rc },
    });
    expect(run.stdout.toString()).toBe("rc sees 321\n");
  });

  test("a shell that cannot set a limit does not run the command", () => {
    // A hard limit above what this process has cannot be set: the command must not run without it.
    const run = Bun.spawnSync(
      [
        "/bin/bash",
        "-c",
        `ulimit -d 1000000 || exit 99; ${limitedShellArgv("/bin/bash", "echo ran", {
          processes: 500,
          dataKiB: 2_000_000,
        })
          .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
          .join(" ")}`,
      ],
      { stdout: "pipe", stderr: "pipe" },
    );
    expect(run.exitCode).toBe(LIMITS_FAILED);
    expect(run.stdout.toString()).toBe("");
    expect(run.stderr.toString()).toContain(
      "garuda: the sandbox's limits could not be set, so the command did not run",
    );
  });
});

describe("limitHit", () => {
  const limits: CommandLimits = {
    processes: 1_024,
    memoryMB: 12_288,
    cpuSeconds: 600,
    raise: { processes: "RAISE-P.", memoryMB: "RAISE-M.", cpuSeconds: "RAISE-C." },
  };
  const failed = (output: string) => ({ output, exitCode: 1, signal: null });

  test(
    "a refused fork or thread, as the usual programs print it, is the process limit " + "(whatever the exit status)",
    () => {
      const outputs = [
        "/bin/bash: fork: retry: Resource temporarily unavailable\n/bin/bash: fork: Resource temporarily unavailable",
        'Traceback (most recent call last):\n  File "<string>", line 3, in <module>\n   ' +
          " pid = os.fork()\nBlockingIOError: [Errno 11] Resource temporarily unavailable",
        "Error: spawn /bin/sh EAGAIN\n    at ChildProcess._handle.onexit",
        "EAGAIN: resource temporarily unavailable, posix_spawn 'sleep'",
        "runtime: failed to create new OS thread (have 12 already; errno=11)",
        "[0.123s][warning][os,thread] Failed to start thread - pthread_create failed (EAGAIN)",
        'Exception in thread "main" java.lang.OutOfMemoryError: unable to create native ' +
          "thread: possibly out of memory or process/resource limits reached",
        "thread 'main' panicked at 'failed to spawn thread: Os { code: 11, kind: " +
          'WouldBlock, message: "Resource temporarily unavailable" }\'',
      ];
      for (const output of outputs) {
        expect(limitHit(failed(output), limits, {})?.kind).toBe("processes");
        expect(limitHit({ output, exitCode: 0, signal: null }, limits, {})?.kind).toBe("processes");
      }
      expect(limitHit(failed(outputs[0] as string), limits, {})?.message).toBe(
        "[Garuda: the command hit the sandbox's process limit (at most 1,024 processes " +
          "and threads may run at once), and starting another one failed. RAISE-P.]",
      );
    },
  );

  test(
    "a failed allocation in a failed command is the memory limit; the same words in " +
      "a command that succeeded are not",
    () => {
      const outputs = [
        'Traceback (most recent call last):\n  File "x.py", line 1\nMemoryError',
        "RangeError: Out of memory\n      at [eval]:1:11",
        "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
        "terminate called after throwing an instance of 'std::bad_alloc'",
        "memory allocation of 2147483648 bytes failed",
        "fatal error: runtime: out of memory",
        'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space',
        "/bin/bash: xmalloc: cannot allocate 2147483648 bytes",
        "cc1plus: out of memory allocating 65536 bytes",
      ];
      for (const output of outputs) {
        expect(limitHit(failed(output), limits, {})?.kind).toBe("memoryMB");
        expect(limitHit({ output, exitCode: 0, signal: null }, limits, {})).toBeUndefined();
      }
      expect(limitHit(failed("MemoryError"), limits, {})?.message).toBe(
        "[Garuda: the command seems to have hit the sandbox's memory limit (12,288 MB " +
          "per process): an allocation failed. RAISE-M.]",
      );
    },
  );

  test("with a cgroup, its counters decide: a refused fork or a process the kernel ended, and nothing else", () => {
    expect(
      limitHit({ output: "", exitCode: 137, signal: null }, limits, { processesRefused: 0, memoryKills: 1 })?.message,
    ).toBe(
      "[Garuda: the command hit the sandbox's memory limit (12,288 MB for all its " +
        "processes together), and the kernel ended a process that needed more. " +
        "RAISE-M.]",
    );
    expect(
      limitHit({ output: "", exitCode: 0, signal: null }, limits, { processesRefused: 3, memoryKills: 0 })?.kind,
    ).toBe("processes");
    // A program's own out-of-memory (its heap limit, not the sandbox's) is not blamed on the sandbox.
    expect(
      limitHit(failed("FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory"), limits, {
        processesRefused: 0,
        memoryKills: 0,
      }),
    ).toBeUndefined();
    expect(
      limitHit(failed("fork: Resource temporarily unavailable"), limits, { processesRefused: 0, memoryKills: 0 }),
    ).toBeUndefined();
  });

  test("without a process limit in force (root, no cgroup) a refused fork is not blamed on the sandbox", () => {
    expect(
      limitHit(failed("fork: Resource temporarily unavailable"), limits, {}, { processLimit: false }),
    ).toBeUndefined();
  });

  test("SIGXCPU is the CPU-time limit, when there is one", () => {
    expect(limitHit({ output: "", exitCode: null, signal: "SIGXCPU" }, limits, {})?.message).toBe(
      "[Garuda: a process of the command used up the sandbox's CPU-time limit (600 s " +
        "per process) and was stopped. RAISE-C.]",
    );
    expect(limitHit(failed("bash: line 1:  12 CPU time limit exceeded (core dumped) ./spin"), limits, {})?.kind).toBe(
      "cpuSeconds",
    );
    expect(
      limitHit({ output: "", exitCode: null, signal: "SIGXCPU" }, { processes: 10, memoryMB: 100 }, {}),
    ).toBeUndefined();
  });

  test("an ordinary failure hits nothing; without a hint the message says where to raise the limit", () => {
    expect(limitHit(failed("error TS2304: Cannot find name 'x'."), limits, {})).toBeUndefined();
    expect(
      limitHit(failed("fork: Resource temporarily unavailable"), { processes: 10, memoryMB: 100 }, {})?.message,
    ).toContain("To allow more, the user can set limits.processes in ~/.garuda/policy.json.]");
  });
});
