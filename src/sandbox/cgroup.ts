// A cgroup per sandboxed command, where Garuda may make one: pids.max caps the command's tasks
// (processes and threads), memory.max all its memory together, and the kernel's counters say
// which limit it hit (limits.ts explains the fallback, resource limits, used elsewhere).
//
// Only as root. A user's own cgroups (systemd's user@<uid>.service) belong to the user's systemd,
// which must be the only one to change them (the "single writer" rule); there RLIMIT_NPROC in the
// command's user namespace already counts exactly, and memory is capped per process. Root is
// where the resource limits fail (the kernel does not apply RLIMIT_NPROC to root), and root may
// make cgroups: cgroup v1 (a child of Garuda's own cgroup in the pids and memory hierarchies) or
// v2 (a child of the nearest ancestor that hands both controllers down; Garuda's own cgroup holds
// processes, so it cannot). A command joins its cgroup through a tiny shell that writes its own
// pid to cgroup.procs and then execs bwrap, so nothing of it ever runs outside.
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { codeOf } from "../errors/caught.ts";
import type { CgroupCounts } from "./limits.ts";

type Controller = "pids" | "memory";

/** How long a command's cgroup folders are retried for after it ended. */
const REMOVE_MS = 30_000;

/** One place where command cgroups are made: a folder in a hierarchy, and what it controls. */
export interface CgroupBase {
  version: 1 | 2;
  dir: string;
  controllers: Controller[];
}

export interface CgroupSupport {
  bases: CgroupBase[];
}

/** The facts findCgroups reads (tests pass their own). */
export interface CgroupFacts {
  uid: number;
  /** /proc/self/cgroup */
  cgroup: string;
  /** /proc/self/mountinfo */
  mountinfo: string;
}

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
};

function machineFacts(): CgroupFacts {
  return {
    uid: process.getuid?.() ?? -1,
    cgroup: read("/proc/self/cgroup") ?? "",
    mountinfo: read("/proc/self/mountinfo") ?? "",
  };
}

interface Mount {
  root: string;
  point: string;
  type: string;
  options: string[];
}

function mounts(mountinfo: string): Mount[] {
  const found: Mount[] = [];
  for (const line of mountinfo.split("\n")) {
    const [left, right] = line.split(" - ");
    if (!left || !right) continue;
    const fields = left.split(" ");
    const [type, , superOptions] = right.split(" ");
    if ((type !== "cgroup" && type !== "cgroup2") || fields.length < 5) continue;
    found.push({
      root: fields[3] as string,
      point: (fields[4] as string).replace(/\\040/g, " "),
      type,
      options: (superOptions ?? "").split(","),
    });
  }
  return found;
}

/** Where a cgroup path (as /proc/self/cgroup names it) is on disk under a mount of its hierarchy. */
function onDisk(mount: Mount, path: string): string | undefined {
  const inside =
    mount.root === "/"
      ? path
      : path === mount.root || path.startsWith(`${mount.root}/`)
        ? path.slice(mount.root.length)
        : undefined;
  return inside === undefined ? undefined : join(mount.point, inside).replace(/(.)\/+$/, "$1");
}

const writable = (dir: string) => {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

function v1Bases(facts: CgroupFacts, all: Mount[]): CgroupBase[] {
  const bases: CgroupBase[] = [];
  for (const controller of ["pids", "memory"] as const) {
    const line = facts.cgroup.split("\n").find((l) => l.split(":")[1]?.split(",").includes(controller));
    const mount = all.find((m) => m.type === "cgroup" && m.options.includes(controller));
    if (!line || !mount) continue;
    const dir = onDisk(mount, line.slice(line.indexOf(":", line.indexOf(":") + 1) + 1));
    if (dir && writable(dir)) bases.push({ version: 1, dir, controllers: [controller] });
  }
  return bases;
}

function v2Base(facts: CgroupFacts, all: Mount[]): CgroupBase | undefined {
  const line = facts.cgroup.split("\n").find((l) => l.startsWith("0::"));
  const mount = all.find((m) => m.type === "cgroup2");
  if (!line || !mount) return undefined;
  const own = onDisk(mount, line.slice(3));
  if (!own) return undefined;
  for (let dir = own; dir.startsWith(mount.point); dir = join(dir, "..")) {
    const handed = (read(join(dir, "cgroup.subtree_control")) ?? "").trim().split(/\s+/);
    const controllers = (["pids", "memory"] as const).filter((c) => handed.includes(c));
    if (controllers.length === 2 && writable(dir)) return { version: 2, dir, controllers };
    if (dir === mount.point) break;
  }
  return undefined;
}

/** The files that hold a controller's limit in a command's cgroup. */
const LIMIT_FILE: Record<1 | 2, Record<Controller, string>> = {
  1: { pids: "pids.max", memory: "memory.limit_in_bytes" },
  2: { pids: "pids.max", memory: "memory.max" },
};

/** A trial cgroup: made, the limit file there, removed. */
function works(base: CgroupBase): boolean {
  const trial = join(base.dir, `garuda-${process.pid}-probe-${randomBytes(6).toString("hex")}`);
  try {
    mkdirSync(trial);
    return base.controllers.every((c) => existsSync(join(trial, LIMIT_FILE[base.version][c])));
  } catch {
    return false;
  } finally {
    try {
      rmdirSync(trial);
    } catch {
      // not made
    }
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === "EPERM";
  }
};

/** Empty command cgroups a Garuda that was killed left behind. */
function sweep(base: CgroupBase): void {
  let names: string[];
  try {
    names = readdirSync(base.dir);
  } catch {
    return;
  }
  for (const name of names) {
    const match = /^garuda-(\d+)-/.exec(name);
    if (!match || alive(Number(match[1]))) continue;
    try {
      rmdirSync(join(base.dir, name));
    } catch {
      // still in use, or not empty: left alone
    }
  }
}

/** The folders that could hold command cgroups, before a trial: v1's pids and memory, else v2's. */
export function candidateBases(facts: CgroupFacts): CgroupBase[] {
  if (facts.uid !== 0) return [];
  const all = mounts(facts.mountinfo);
  const v1 = v1Bases(facts, all);
  const v2 = v1.length === 0 ? v2Base(facts, all) : undefined;
  return v2 ? [v2] : v1;
}

/** Where this Garuda can make command cgroups, if anywhere (see the top of the file). */
export function findCgroups(facts: CgroupFacts = machineFacts()): CgroupSupport | undefined {
  const bases = candidateBases(facts).filter(works);
  for (const base of bases) sweep(base);
  return bases.length > 0 ? { bases } : undefined;
}

export const controls = (support: CgroupSupport | undefined, controller: Controller): boolean =>
  support?.bases.some((b) => b.controllers.includes(controller)) ?? false;

/** One command's cgroup (a folder per hierarchy). */
export interface CommandCgroup {
  /** The cgroup.procs files the command's first process writes its pid to. */
  procsFiles: string[];
  /** The kernel's counters so far. */
  counts(): CgroupCounts;
  /** Highest task count and memory use seen, where the kernel keeps them (bench, notes). */
  peaks(): { tasks?: number; memoryBytes?: number };
  /** Removes the folders once the command's processes are gone (retries while they exit). */
  remove(): Promise<void>;
}

const number = (text: string | undefined, key: string): number | undefined => {
  const match = new RegExp(`^${key} (\\d+)$`, "m").exec(text ?? "");
  return match ? Number(match[1]) : undefined;
};
const plain = (text: string | undefined): number | undefined =>
  text !== undefined && /^\d+\s*$/.test(text) ? Number(text) : undefined;

/** Makes the cgroup of one command and sets its limits. Throws when a folder or a limit cannot be written. */
export function createCommandCgroup(
  support: CgroupSupport,
  name: string,
  limits: { processes: number; memoryBytes: number },
): CommandCgroup {
  const made: Array<{ base: CgroupBase; dir: string }> = [];
  try {
    for (const base of support.bases) {
      const dir = join(base.dir, name);
      mkdirSync(dir);
      made.push({ base, dir });
      for (const controller of base.controllers) {
        if (controller === "pids") writeFileSync(join(dir, "pids.max"), String(limits.processes));
        else if (base.version === 2) {
          writeFileSync(join(dir, "memory.max"), String(limits.memoryBytes));
          // No swap: at the limit the kernel ends a process at once instead of swapping the machine.
          if (existsSync(join(dir, "memory.swap.max"))) writeFileSync(join(dir, "memory.swap.max"), "0");
        } else {
          writeFileSync(join(dir, "memory.limit_in_bytes"), String(limits.memoryBytes));
          if (existsSync(join(dir, "memory.memsw.limit_in_bytes")))
            writeFileSync(join(dir, "memory.memsw.limit_in_bytes"), String(limits.memoryBytes));
        }
      }
    }
  } catch (error) {
    for (const { dir } of made.reverse()) tryRemove(dir);
    throw error;
  }
  const at = (controller: Controller) => made.find((m) => m.base.controllers.includes(controller));
  return {
    procsFiles: made.map((m) => join(m.dir, "cgroup.procs")),
    counts() {
      const pids = at("pids");
      const memory = at("memory");
      const counts: CgroupCounts = {};
      if (pids) counts.processesRefused = number(read(join(pids.dir, "pids.events")), "max") ?? 0;
      if (memory) {
        const file = memory.base.version === 2 ? "memory.events" : "memory.oom_control";
        counts.memoryKills = number(read(join(memory.dir, file)), "oom_kill") ?? 0;
      }
      return counts;
    },
    peaks() {
      const pids = at("pids");
      const memory = at("memory");
      const tasks = pids ? plain(read(join(pids.dir, "pids.peak"))) : undefined;
      const memoryBytes = memory
        ? plain(read(join(memory.dir, memory.base.version === 2 ? "memory.peak" : "memory.max_usage_in_bytes")))
        : undefined;
      return { ...(tasks !== undefined && { tasks }), ...(memoryBytes !== undefined && { memoryBytes }) };
    },
    async remove() {
      // A folder can go once the last of its processes has been reaped, which for thousands of
      // processes ended at once, on a busy machine, can take seconds. What is still there after
      // REMOVE_MS is swept at the next start.
      const deadline = Date.now() + REMOVE_MS;
      for (const { dir } of made) {
        while (!tryRemove(dir) && Date.now() < deadline) await Bun.sleep(50);
      }
    },
  };
}

function tryRemove(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return codeOf(error) === "ENOENT";
  }
}

/** Script of the joining shell: each path before `--` gets its pid, then it becomes the command. */
const JOIN = 'for f; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@"';

/** argv that runs `argv` inside the cgroup from its first instruction. */
export function joinCgroupArgv(procsFiles: string[], argv: string[]): string[] {
  return ["/bin/sh", "-c", JOIN, "garuda-cgroup", ...procsFiles, "--", ...argv];
}
