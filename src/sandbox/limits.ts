// What one sandboxed command may use: processes (and threads) at once, memory, and optionally CPU
// time. Without them a runaway build or a fork bomb takes the user's machine, not the command.
//
// Two ways to hold them, the better one where it works:
// - a cgroup per command (cgroup.ts), where Garuda may make one: pids.max counts every task of the
//   command, memory.max caps all its processes together, and the kernel's counters say exactly
//   which limit was hit;
// - resource limits set by the shell inside the sandbox, before the command starts (the prelude
//   below). RLIMIT_NPROC counts per user *and user namespace*: bwrap's --unshare-user gives each
//   command its own, so the count is the command's processes only (not the user's others), on
//   Linux 5.14 and later; the kernel does not apply it to root. Memory is RLIMIT_DATA per process:
//   RLIMIT_AS would break runtimes that reserve big address ranges (Java below 4 GB, WebAssembly
//   below 16 GB), RLIMIT_DATA counts only writable private memory, which they survive; ASan builds
//   reserve terabytes and do not (docs/safety.md). The hard limits are lowered too, so a command
//   cannot raise them again. Which limit was hit is then read from what the command printed.
import { readFileSync } from "node:fs";
import { availableParallelism, totalmem } from "node:os";
import { groupedCount } from "../text/count.ts";

export type LimitKind = "processes" | "memoryMB" | "cpuSeconds";

export interface CommandLimits {
  /** Processes and threads one command may run at once. */
  processes: number;
  /** MiB: all of a command's processes together under a cgroup, else each process's data memory. */
  memoryMB: number;
  /** CPU seconds per process; undefined: none. */
  cpuSeconds?: number;
  /** For the message when a limit is hit: how the user can raise it (the runtime knows the files). */
  raise?: Partial<Record<LimitKind, string>>;
}

/**
 * Threads count as processes, and real tools run a few dozen per core (JVMs, test runners): 64 a core, at least 1,024.
 */
const PROCESSES_PER_CPU = 64;
const MIN_DEFAULT_PROCESSES = 1_024;

/**
 * Garuda's defaults: far above what builds and test suites use (bench/limits.ts measures), far below what takes a
 * machine.
 */
export function defaultCommandLimits(
  host: { cpus: number; memoryBytes: number } = { cpus: availableParallelism(), memoryBytes: totalmem() },
): CommandLimits {
  return {
    processes: Math.max(MIN_DEFAULT_PROCESSES, PROCESSES_PER_CPU * host.cpus),
    // Half the machine: a runaway command leaves the editor, the desktop and Garuda the other half.
    memoryMB: Math.max(1_024, Math.floor(host.memoryBytes / 2 / 2 ** 20)),
  };
}

/** Garuda's own hard limits (a command cannot get more than Garuda has): from /proc/self/limits. */
export interface HardLimits {
  processes?: number;
  dataBytes?: number;
  cpuSeconds?: number;
}

export function readHardLimits(text: string | undefined = readProcLimits()): HardLimits {
  const hard: HardLimits = {};
  for (const line of (text ?? "").split("\n")) {
    const match = /^(Max processes|Max data size|Max cpu time)\s+\S+\s+(\S+)/.exec(line);
    if (!match || match[2] === "unlimited") continue;
    const value = Number(match[2]);
    if (!Number.isFinite(value)) continue;
    if (match[1] === "Max processes") hard.processes = value;
    else if (match[1] === "Max data size") hard.dataBytes = value;
    else hard.cpuSeconds = value;
  }
  return hard;
}

function readProcLimits(): string | undefined {
  try {
    return readFileSync("/proc/self/limits", "utf8");
  } catch {
    return undefined;
  }
}

/** What the prelude sets: the limits, lowered to Garuda's own hard limits. */
export interface ShellLimits {
  processes: number;
  /** KiB (ulimit's unit); undefined when a cgroup holds memory. */
  dataKiB?: number;
  cpuSeconds?: number;
}

/** A process that ignores SIGXCPU gets SIGKILL this many seconds later. */
const CPU_GRACE_S = 5;

export function shellLimits(limits: CommandLimits, hard: HardLimits, memoryByCgroup: boolean): ShellLimits {
  const lower = (value: number, cap: number | undefined) => (cap === undefined ? value : Math.min(value, cap));
  const out: ShellLimits = { processes: lower(limits.processes, hard.processes) };
  if (!memoryByCgroup) out.dataKiB = Math.floor(lower(limits.memoryMB * 2 ** 20, hard.dataBytes) / 1024);
  if (limits.cpuSeconds !== undefined)
    out.cpuSeconds = Math.max(
      1,
      lower(limits.cpuSeconds, hard.cpuSeconds === undefined ? undefined : hard.cpuSeconds - CPU_GRACE_S),
    );
  return out;
}

/** Exit status when the limits could not be set (the command did not run). */
export const LIMITS_FAILED = 125;

/**
 * `shell -c <command>` with the limits set first: [sh, "-c", prelude, shell, command]. The prelude
 * runs in /bin/sh, which reads no start-up file when not interactive (bash reads $BASH_ENV first,
 * which would run before the limits), and execs the command's shell with the command unchanged
 * (its $0, its syntax errors, its exit), so only the limits differ. bash takes `-u` for
 * processes, dash `-p`; a shell that takes neither does not run the command.
 */
export function limitedShellArgv(
  shell: string,
  command: string,
  limits: ShellLimits,
  preludeShell = "/bin/sh",
): string[] {
  const steps = [`{ ulimit -u ${limits.processes} || ulimit -p ${limits.processes}; }`];
  if (limits.dataKiB !== undefined) steps.push(`ulimit -d ${limits.dataKiB}`);
  if (limits.cpuSeconds !== undefined)
    steps.push(`ulimit -S -t ${limits.cpuSeconds}`, `ulimit -H -t ${limits.cpuSeconds + CPU_GRACE_S}`);
  const prelude =
    `{ ${steps.join(" && ")}; } 2>/dev/null || { echo "garuda: the sandbox's limits ` +
    `could not be set, so the command did not run" >&2; exit ${LIMITS_FAILED}; ` +
    `}\nexec "$0" -c "$1"`;
  return [preludeShell, "-c", prelude, shell, command];
}

/** A limit the command ran into, with the sentence the model reads. */
export interface LimitHit {
  kind: LimitKind;
  message: string;
}

/** What the kernel's counters say (cgroup), when there is a cgroup for that limit. */
export interface CgroupCounts {
  /** Forks refused at pids.max; undefined: no pids cgroup. */
  processesRefused?: number;
  /** Processes the kernel ended at memory.max; undefined: no memory cgroup. */
  memoryKills?: number;
}

export interface CommandEnd {
  output: string;
  exitCode: number | null;
  signal: string | null;
}

// What programs print when a fork or a thread is refused (bash, Python, Node, Go, Rust, Java …).
const REFUSED_PROCESS = new RegExp(
  [
    String.raw`(fork|spawn|thread|clone)[^\n]{0,200}(Resource temporarily unavailable|EAGAIN|errno=11)`,
    String.raw`(Resource temporarily unavailable|EAGAIN)[^\n]{0,80}(fork|spawn|thread)`,
    "unable to create (new )?native thread",
    "failed to create new OS thread",
  ].join("|"),
  "i",
);
const REFUSED_PROCESS_NEAR = /\b(os\.fork|fork|spawn|Thread)\b[\s\S]{0,300}?BlockingIOError: \[Errno 11\]/;
// What programs print when an allocation fails (C, C++, Python, Node/V8, Bun, Rust, Go, Java, bash).
const FAILED_ALLOCATION = new RegExp(
  [
    "Cannot allocate memory",
    "out of memory",
    "MemoryError",
    "bad_alloc",
    String.raw`memory allocation of \d+ bytes failed`,
    "OutOfMemoryError",
    "ENOMEM",
    "Array buffer allocation failed",
    "allocation failed",
    "xmalloc: cannot allocate",
  ].join("|"),
  "i",
);
const CPU_EXCEEDED = /CPU time limit exceeded/;

const count = (n: number) => groupedCount(n);

function defaultRaise(kind: LimitKind): string {
  return `To allow more, the user can set limits.${kind} in ~/.garuda/policy.json.`;
}

function hit(kind: LimitKind, what: string, limits: CommandLimits): LimitHit {
  return { kind, message: `[Garuda: ${what} ${limits.raise?.[kind] ?? defaultRaise(kind)}]` };
}

/**
 * Which limit a finished command ran into, if any: from the cgroup's counters where they exist,
 * else from what it printed (a refused fork; a failed allocation or a CPU-time signal, for a
 * command that failed).
 */
export function limitHit(
  end: CommandEnd,
  limits: CommandLimits,
  counts: CgroupCounts,
  applies: { processLimit: boolean } = { processLimit: true },
): LimitHit | undefined {
  const { output } = end;
  const processes = `at most ${count(limits.processes)} processes and threads may run at once`;
  const refused =
    counts.processesRefused !== undefined
      ? counts.processesRefused > 0
      : applies.processLimit && (REFUSED_PROCESS.test(output) || REFUSED_PROCESS_NEAR.test(output));
  if (refused) {
    return hit(
      "processes",
      `the command hit the sandbox's process limit (${processes}), and starting another one failed.`,
      limits,
    );
  }
  if (counts.memoryKills !== undefined && counts.memoryKills > 0) {
    return hit(
      "memoryMB",
      `the command hit the sandbox's memory limit (${count(limits.memoryMB)} MB for ` +
        `all its processes together), and the kernel ended a process that needed more.`,
      limits,
    );
  }
  const failed = end.exitCode !== 0;
  if (!failed) return undefined;
  if (end.signal === "SIGXCPU" || end.exitCode === 128 + 24 || CPU_EXCEEDED.test(output)) {
    if (limits.cpuSeconds !== undefined)
      return hit(
        "cpuSeconds",
        `a process of the command used up the sandbox's CPU-time limit ` +
          `(${count(limits.cpuSeconds)} s per process) and was stopped.`,
        limits,
      );
  }
  if (counts.memoryKills === undefined && FAILED_ALLOCATION.test(output)) {
    return hit(
      "memoryMB",
      `the command seems to have hit the sandbox's memory limit ` +
        `(${count(limits.memoryMB)} MB per process): an allocation failed.`,
      limits,
    );
  }
  return undefined;
}
