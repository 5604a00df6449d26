// Each session's own folders (the sandbox's temp folder, the egress proxy's socket) live in one
// folder per session under a private base, `<temp>/garuda-<uid>` (mode 0700, owned by this user,
// checked every time: a folder another user planted there is refused, not used). The shared temp
// folder itself is never a session's tmp, so a session whose commands can see one place (its root,
// a writePath) cannot see another session's files, and a project root that holds the base is
// refused (runtime/projectRoot.ts).
//
// A session folder is named `<pid>-<start>-<ns>-<random>`: the Garuda process that made it, with
// that process's start time, so a pid the system has since given to another process is not taken
// for the old one, and its PID namespace (Linux; 0 elsewhere), so a garuda in a container that
// shares the temp folder never judges another namespace's pids. A clean exit removes the folders it made (removeProcessFolders, from the exit
// handler); after a SIGKILL nothing can, so each new session sweeps the folders whose process is
// gone (sweepSessionFolders). Live processes' folders are never touched.
import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readlinkSync, realpathSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { codeOf } from "../errors/caught.ts";
import { readProcStat } from "./procStat.ts";

/** A folder of this session's own, removed when the session ends. */
export interface SessionFolder {
  /** `<base>/<pid>-<start>-<ns>-<random>`, mode 0700. */
  readonly dir: string;
  /** `<dir>/tmp`: the sandbox's /tmp and TMPDIR. */
  readonly tmp: string;
  remove(): Promise<void>;
}

const NAME = /^(\d+)-(\d+)-(\d+)-[0-9a-f]{8}$/;

const uid = () => process.getuid?.() ?? 0;

/**
 * Where session folders go: `garuda-<uid>` in the temp folder of `env` (TMPDIR when it is an
 * absolute path, else the system's), symlinks resolved so roots compare with it.
 */
export function sessionFolderBase(env: Record<string, string | undefined>): string {
  const temp = env.TMPDIR && isAbsolute(env.TMPDIR) ? env.TMPDIR : tmpdir();
  let real = temp;
  try {
    real = realpathSync(temp);
  } catch {
    // A TMPDIR that does not exist: mkdir below says so.
  }
  return join(real, `garuda-${uid()}`);
}

/**
 * Makes the base if needed and checks it is this user's private folder (not a link, 0700); throws
 * what is wrong and what to do. prepareRuntime's first step calls it, so it is session/new's error.
 */
export function ensureSessionFolderBase(base: string): void {
  try {
    mkdirSync(base, { mode: 0o700 });
  } catch (error) {
    const code = codeOf(error);
    if (code === "ENOENT")
      throw new Error(
        `The temp folder ${dirname(base)} does not exist, so Garuda cannot make its session folders there. Set TMPDIR to an existing folder.`,
      );
    if (code !== "EEXIST") throw error;
  }
  const stat = lstatSync(base);
  const problem = stat.isSymbolicLink()
    ? "it is a symbolic link"
    : !stat.isDirectory()
      ? "it is not a folder"
      : stat.uid !== uid()
        ? `it belongs to another user (uid ${stat.uid})`
        : (stat.mode & 0o077) !== 0
          ? `others may read or write it (mode ${(stat.mode & 0o777).toString(8)})`
          : undefined;
  if (problem) {
    throw new Error(
      `${base} cannot hold Garuda's session folders: ${problem}. Remove it (Garuda makes it again, private to you), or set TMPDIR to a folder of your own.`,
    );
  }
}

/** When `pid` started (Linux: clock ticks since boot; elsewhere: seconds since 1970), or undefined when no such process runs. */
export function processStart(pid: number): string | undefined {
  if (process.platform === "linux") {
    const stat = readProcStat(pid);
    return stat && stat.state !== "Z" ? stat.start : undefined;
  }
  const ps = Bun.spawnSync(["/bin/ps", "-o", "lstart=", "-p", String(pid)], {
    env: { PATH: "/usr/bin:/bin", LC_ALL: "C" },
    stdout: "pipe",
    stderr: "ignore",
  });
  const started = Date.parse(ps.stdout.toString().trim());
  return Number.isNaN(started) ? undefined : String(Math.floor(started / 1000));
}

/** This process's PID namespace (the inode of /proc/self/ns/pid), "0" where there is none. */
function pidNamespace(): string {
  if (process.platform !== "linux") return "0";
  try {
    return /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? "0";
  } catch {
    return "0";
  }
}

/** This process's own prefix, `<pid>-<start>-<ns>-`. */
function ownPrefix(): string {
  const start = processStart(process.pid);
  if (start === undefined)
    throw new Error("cannot tell when this process started, so its session folders cannot be named");
  return `${process.pid}-${start}-${pidNamespace()}-`;
}

/** A new session folder with its tmp, both 0700, under `base`. */
export function createSessionFolder(base: string): SessionFolder {
  ensureSessionFolderBase(base);
  const dir = join(base, `${ownPrefix()}${randomBytes(4).toString("hex")}`);
  mkdirSync(dir, { mode: 0o700 });
  const tmp = join(dir, "tmp");
  mkdirSync(tmp, { mode: 0o700 });
  return { dir, tmp, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The session folders in `base` whose process is gone (its pid not running, or running with another start time). */
export function deadSessionFolders(base: string): string[] {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return [];
  }
  const namespace = pidNamespace();
  const dead: string[] = [];
  for (const name of names) {
    const match = NAME.exec(name);
    if (!match) continue; // not a session folder: left alone
    if (match[3] !== namespace) continue; // another PID namespace's pids mean nothing here
    if (processStart(Number(match[1])) !== match[2]) dead.push(join(base, name));
  }
  return dead;
}

/** Removes the folders of processes that are gone (a SIGKILL left them); returns what it removed. */
export async function sweepSessionFolders(base: string): Promise<string[]> {
  const dead = deadSessionFolders(base);
  await Promise.all(dead.map((dir) => rm(dir, { recursive: true, force: true }).catch(() => {})));
  return dead;
}

/** At exit: removes every session folder this process made and did not remove yet. Never throws. */
export function removeProcessFolders(base: string): void {
  try {
    const prefix = ownPrefix();
    for (const name of readdirSync(base)) {
      if (name.startsWith(prefix) && NAME.test(name)) rmSync(join(base, name), { recursive: true, force: true });
    }
  } catch {
    // No base, or this process is going away anyway.
  }
}
