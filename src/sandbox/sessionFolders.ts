// Each session's own folders (the sandbox's temp folder, the egress proxy's socket) live in one
// folder per session under a private base, `<temp>/garuda-<uid>` (mode 0700, owned by this user,
// checked every time). Anyone may create that name in a shared temp folder first: a base that is
// not this user's private folder is never used, and since refusing it would let another local
// user block every session with one mkdir, the session gets a fresh private base of its own
// instead (`<temp>/garuda-<uid>-XXXXXX`, made by mkdtemp; short, since the proxy's socket path
// inside must stay under the 108 bytes a Unix socket address holds), with a notice. The shared temp
// folder itself is never a session's tmp, so a session whose commands can see one place (its root,
// a writePath) cannot see another session's files, and a project root that holds the base is
// refused (runtime/projectRoot.ts).
//
// A session folder is named `<pid>-<start>-<ns>-<random>`: the Garuda process that made it, with
// that process's start time, so a pid the system has since given to another process is not taken
// for the old one, and its PID namespace (Linux; 0 elsewhere), so a garuda in a container that
// shares the temp folder never judges another namespace's pids. A clean exit removes the folders it made
// (removeProcessFolders, from the exit
// handler); after a SIGKILL nothing can, so each new session sweeps the folders whose process is
// gone (sweepSessionFolders). Live processes' folders are never touched.
import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync } from "node:fs";
import { rm, rmdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join } from "node:path";
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
/** What follows the usual base's name in a private base made in its place: mkdtemp's six characters. */
const FALLBACK = /^-[A-Za-z0-9]{6}$/;
/** A private base that holds no session folder this long is a leftover (one just made is about to get its first). */
const EMPTY_FALLBACK_MS = 10 * 60_000;

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

/** The base a session's folders go in: the usual one, or a fresh private one with a notice. */
export interface SessionFolderBase {
  dir: string;
  /** Why the usual base was not used, and what to do; undefined when it was. */
  notice?: string;
}

/**
 * What makes `base` unfit to hold session folders (not a folder, a link, another user's, open to others), or undefined.
 */
function baseProblem(base: string): string | undefined {
  const stat = lstatSync(base);
  if (stat.isSymbolicLink()) return "it is a symbolic link";
  if (!stat.isDirectory()) return "it is not a folder";
  if (stat.uid !== uid()) return `it belongs to another user (uid ${stat.uid})`;
  if ((stat.mode & 0o077) !== 0) return `others may read or write it (mode ${(stat.mode & 0o777).toString(8)})`;
  return undefined;
}

/** Whether `base` exists and is this user's private folder. */
function isPrivate(base: string): boolean {
  try {
    return baseProblem(base) === undefined;
  } catch {
    return false;
  }
}

/**
 * Makes the base if needed and checks it is this user's private folder (not a link, 0700). One
 * that is not (planted by another user, or left open) is not used: a fresh private base is made
 * next to it, and the notice says why and what to do. prepareRuntime's first step calls it; a
 * temp folder that does not exist is its error.
 */
export function ensureSessionFolderBase(base: string): SessionFolderBase {
  try {
    mkdirSync(base, { mode: 0o700 });
  } catch (error) {
    const code = codeOf(error);
    if (code === "ENOENT")
      throw new Error(
        `The temp folder ${dirname(base)} does not exist, so Garuda cannot make its ` +
          `session folders there. Set TMPDIR to an existing folder.`,
      );
    if (code !== "EEXIST") throw error;
  }
  const problem = baseProblem(base);
  if (problem === undefined) return { dir: base };
  // mkdtemp makes a new folder (never an existing one), mode 0700, owned by this user.
  const dir = mkdtempSync(`${base}-`);
  return {
    dir,
    notice:
      `${base} is not Garuda's private folder (${problem}), so this session keeps its ` +
      `own folders in ${dir} instead. Remove ${base} if you can (Garuda makes it ` +
      `again, private to you), or set TMPDIR to a folder of your own.`,
  };
}

/**
 * The private bases made in place of `base` (`<base>-XXXXXX`) that are this user's own folders
 * (a name alone proves nothing: anyone may make one).
 */
function ownFallbacks(base: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dirname(base));
  } catch {
    return [];
  }
  const prefix = basename(base);
  return names.flatMap((name) => {
    if (!name.startsWith(prefix) || !FALLBACK.test(name.slice(prefix.length))) return [];
    const dir = join(dirname(base), name);
    try {
      const stat = lstatSync(dir);
      return stat.isDirectory() && stat.uid === uid() ? [dir] : [];
    } catch {
      return [];
    }
  });
}

/**
 * When `pid` started (Linux: clock ticks since boot; elsewhere: seconds since 1970), or undefined
 * when no such process runs. Linux reads /proc; macOS awaits `ps`, so a session never blocks on it.
 */
export async function processStart(pid: number): Promise<string | undefined> {
  if (process.platform === "linux") {
    const stat = readProcStat(pid);
    return stat && stat.state !== "Z" ? stat.start : undefined;
  }
  const ps = Bun.spawn(["/bin/ps", "-o", "lstart=", "-p", String(pid)], {
    env: { PATH: "/usr/bin:/bin", LC_ALL: "C" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "ignore",
  });
  const [output] = await Promise.all([new Response(ps.stdout).text(), ps.exited]);
  const started = Date.parse(output.trim());
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
async function ownPrefix(): Promise<string> {
  const start = await processStart(process.pid);
  if (start === undefined)
    throw new Error("cannot tell when this process started, so its session folders cannot be named");
  return `${process.pid}-${start}-${pidNamespace()}-`;
}

/**
 * A new session folder with its tmp, both 0700, under `base` (the dir ensureSessionFolderBase
 * gave; `fallback`: a private base made for this session, removed with the folder). Throws when
 * `base` is not a private folder of this user.
 */
export async function createSessionFolder(base: string, fallback = false): Promise<SessionFolder> {
  const prefix = await ownPrefix();
  mkdirSync(base, { recursive: true, mode: 0o700 });
  const problem = baseProblem(base);
  if (problem !== undefined) throw new Error(`${base} cannot hold Garuda's session folders: ${problem}.`);
  const dir = join(base, `${prefix}${randomBytes(4).toString("hex")}`);
  mkdirSync(dir, { mode: 0o700 });
  const tmp = join(dir, "tmp");
  mkdirSync(tmp, { mode: 0o700 });
  return {
    dir,
    tmp,
    remove: async () => {
      await rm(dir, { recursive: true, force: true });
      // A private base made for this session (ensureSessionFolderBase) goes with its folder; the
      // usual base is never empty for long, and rmdir leaves any base that is not empty.
      if (fallback) await rmdir(base).catch(() => {});
    },
  };
}

/** Whether the process of a folder name's pid, start and namespace is gone (another namespace's never is, here). */
async function gone(match: RegExpExecArray, namespace: string): Promise<boolean> {
  return match[3] === namespace && (await processStart(Number(match[1]))) !== match[2];
}

/** The session folders in `dir` whose process is gone. */
async function deadIn(dir: string, namespace: string): Promise<string[]> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const dead: string[] = [];
  for (const name of names) {
    const match = NAME.exec(name); // anything else is left alone
    if (match && (await gone(match, namespace))) dead.push(join(dir, name));
  }
  return dead;
}

/**
 * The session folders whose process is gone (its pid not running, or running with another start
 * time) in the usual base `base` (when it is this user's private folder) and in the private bases
 * made in its place; and those private bases that have held no folder for ten minutes.
 */
export async function deadSessionFolders(base: string): Promise<string[]> {
  const namespace = pidNamespace();
  const dead = isPrivate(base) ? await deadIn(base, namespace) : [];
  for (const fallback of ownFallbacks(base)) {
    const inside = await deadIn(fallback, namespace);
    dead.push(...inside);
    try {
      const left = readdirSync(fallback).length - inside.length;
      if (left === 0 && Date.now() - lstatSync(fallback).mtimeMs > EMPTY_FALLBACK_MS) dead.push(fallback);
    } catch {
      // Gone meanwhile.
    }
  }
  return dead;
}

/** Removes the folders of processes that are gone (a SIGKILL left them); returns what it removed. */
export async function sweepSessionFolders(base: string): Promise<string[]> {
  const dead = await deadSessionFolders(base);
  await Promise.all(dead.map((dir) => rm(dir, { recursive: true, force: true }).catch(() => {})));
  return dead;
}

/**
 * At exit: removes every session folder this process made and did not remove yet, in the usual
 * base and in the private bases made in its place (then those, when empty). Never throws, never
 * waits: it matches this pid in this PID namespace whatever the start time, since a folder with
 * this pid and another start belongs to a process that is gone (this one holds the pid now).
 */
export function removeProcessFolders(base: string): void {
  const pid = String(process.pid);
  const namespace = pidNamespace();
  const ownName = (name: string) => {
    const match = NAME.exec(name);
    return match !== null && match[1] === pid && match[3] === namespace;
  };
  // The usual base only when it is this user's own: a planted one never held this process's folders.
  for (const dir of [...(isPrivate(base) ? [base] : []), ...ownFallbacks(base)]) {
    try {
      const own = readdirSync(dir).filter(ownName);
      for (const name of own) rmSync(join(dir, name), { recursive: true, force: true });
      if (dir !== base && own.length > 0 && readdirSync(dir).length === 0) rmSync(dir, { recursive: true });
    } catch {
      // No such folder, or this process is going away anyway.
    }
  }
}
