// The limits of one executor's sandboxed commands (limits.ts says what and why): per command, the
// shell that sets the resource limits, the cgroup it starts in where there is one, and after it
// ended, which limit it hit.
import { randomBytes } from "node:crypto";
import { type CgroupSupport, type CommandCgroup, controls, createCommandCgroup, joinCgroupArgv } from "./cgroup.ts";
import {
  type CommandEnd,
  type CommandLimits,
  type HardLimits,
  type LimitHit,
  limitedShellArgv,
  limitHit,
  shellLimits,
} from "./limits.ts";

/** How each limit is held here: by a cgroup, by resource limits, or not at all (root without a cgroup). */
export interface LimitsInForce {
  limits: CommandLimits;
  processes: "cgroup" | "rlimit" | "none";
  memory: "cgroup" | "rlimit";
}

export interface CommandPeaks {
  tasks?: number;
  memoryBytes?: number;
}

export interface LimitedCommand {
  /** The shell argv: limits first, then the command unchanged. */
  inner: string[];
  /** bwrap's argv, started inside the command's cgroup when there is one. */
  outer(argv: string[]): string[];
  /** The command ended: the limit it hit, if any, and its peaks; its cgroup is removed. */
  finish(end: CommandEnd): { hit: LimitHit | undefined; peaks: CommandPeaks };
  /** It never started: its cgroup is removed. */
  abandon(): void;
}

export interface Limiter {
  readonly inForce: LimitsInForce;
  command(shell: string, command: string): LimitedCommand;
  /** Resolves once every cgroup being removed is gone, or after a few seconds. */
  settle(): Promise<void>;
}

/** How long shutdown waits for cgroup folders still being removed (the rest are swept at the next start). */
const SETTLE_MS = 5_000;

export interface LimiterOptions {
  limits: CommandLimits;
  hard: HardLimits;
  cgroups: CgroupSupport | undefined;
  /** Whether the kernel applies RLIMIT_NPROC to this user (not to root). */
  nprocApplies: boolean;
}

export function createLimiter(options: LimiterOptions): Limiter {
  const { limits, hard, cgroups } = options;
  const removing = new Set<Promise<void>>();
  const inForce: LimitsInForce = {
    limits,
    processes: controls(cgroups, "pids") ? "cgroup" : options.nprocApplies ? "rlimit" : "none",
    memory: controls(cgroups, "memory") ? "cgroup" : "rlimit",
  };

  function removeLater(cgroup: CommandCgroup): void {
    const removal = cgroup.remove().finally(() => removing.delete(removal));
    removing.add(removal);
  }

  return {
    inForce,
    command(shell, command) {
      let cgroup: CommandCgroup | undefined;
      if (cgroups) {
        try {
          cgroup = createCommandCgroup(cgroups, `garuda-${process.pid}-${randomBytes(6).toString("hex")}`, {
            processes: limits.processes,
            memoryBytes: limits.memoryMB * 2 ** 20,
          });
        } catch {
          cgroup = undefined; // the hierarchy changed under us: resource limits alone, memory per process
        }
      }
      const memoryByCgroup = cgroup !== undefined && controls(cgroups, "memory");
      return {
        inner: limitedShellArgv(shell, command, shellLimits(limits, hard, memoryByCgroup)),
        outer: (argv) => (cgroup ? joinCgroupArgv(cgroup.procsFiles, argv) : argv),
        finish(end) {
          const counts = cgroup?.counts() ?? {};
          const peaks = cgroup?.peaks() ?? {};
          if (cgroup) removeLater(cgroup);
          // Without a process limit in force (root, no cgroup), a refused fork is not Garuda's doing.
          return { hit: limitHit(end, limits, counts, { processLimit: inForce.processes !== "none" }), peaks };
        },
        abandon() {
          if (cgroup) removeLater(cgroup);
        },
      };
    },
    async settle() {
      await Promise.race([Promise.all([...removing]), Bun.sleep(SETTLE_MS)]);
    },
  };
}
