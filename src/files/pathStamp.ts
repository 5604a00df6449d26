// What a real path is, one component at a time, so that a look before a wait and one after it can
// tell whether anything on the way changed meanwhile. Another program (the editor) that is asked to
// read the path follows links on the host: if any folder on the way or the file itself is swapped
// for a link, even for a moment and then put back, it may read something else. Such a swap renames
// an entry in a folder on the way, and a rename sets that folder's ctime to the time of the rename,
// which no process can set back. So: every component is looked at without following it (lstat), each
// is a folder up to a regular file at the end, and the device, inode and ctime of each are the same
// after the wait as before it. The kernel stamps ctimes from a coarse clock (one tick, a few ms), so
// a change in the same tick as the look before could leave the same ctime: the look before is taken
// once nothing on the way has changed for SETTLED_MS (it waits that long at most, once; a path that
// keeps changing, as a loop of swaps does, gets no stamp).
//
// Ctimes count from the project folder down (`watched`): that folder and what is under it is where
// a process in the project can rename entries. The folders above it (/, /tmp, the home folder)
// change for reasons of their own all the time — every temp file, every dotfile written — and a
// sandboxed process cannot rename entries in them, so there only the device and inode must stay.
import { type BigIntStats, lstatSync } from "node:fs";

/** A file's identity: what a descriptor's fstat and a path's lstat must agree on. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

interface Step {
  dev: bigint;
  ino: bigint;
  ctimeNs: bigint;
}

export interface PathStamp {
  /** From "/" to the file: every component's identity and ctime. */
  steps: readonly Step[];
  /** The file's own identity (the last step). */
  file: FileIdentity;
  /** When the stamp was taken (ms since the epoch, the clock ctimes use). */
  takenMs: number;
}

/** More than a coarse clock tick (at most 10 ms with HZ=100), with room for a slow look. */
export const SETTLED_MS = 50;

/** The components of an absolute path, from "/" to the whole path. */
function prefixes(realPath: string): string[] {
  const parts = realPath.split("/").filter((part) => part.length > 0);
  return ["/", ...parts.map((_, i) => `/${parts.slice(0, i + 1).join("/")}`)];
}

/**
 * The stamp of `realPath` (absolute, no links in it), or undefined when a component is missing, is
 * a link or is not a folder, or the path does not end in a regular file. Ctimes are kept for
 * `watched` (a folder that holds the path: the project folder) and what is below it.
 */
export function stampPath(realPath: string, watched: string): PathStamp | undefined {
  const takenMs = Date.now();
  const paths = prefixes(realPath);
  const steps: Step[] = [];
  for (const [i, path] of paths.entries()) {
    let stat: BigIntStats;
    try {
      stat = lstatSync(path, { bigint: true });
    } catch {
      return undefined;
    }
    const last = i === paths.length - 1;
    if (last ? !stat.isFile() : !stat.isDirectory()) return undefined;
    const kept = path.length >= watched.length && (path === watched || path.startsWith(`${watched}/`));
    steps.push({ dev: stat.dev, ino: stat.ino, ctimeNs: kept ? stat.ctimeNs : 0n });
  }
  const end = steps[steps.length - 1] as Step;
  return { steps, file: { dev: Number(end.dev), ino: Number(end.ino) }, takenMs };
}

/** Whether the stamp is of the file with this identity (the descriptor that was read). */
export function isFile(stamp: PathStamp, identity: FileIdentity): boolean {
  return stamp.file.dev === identity.dev && stamp.file.ino === identity.ino;
}

/** How long ago (ms) the newest change on the way was, as of the stamp. */
function quietFor(stamp: PathStamp): number {
  let newest = 0n;
  for (const step of stamp.steps) if (step.ctimeNs > newest) newest = step.ctimeNs;
  return stamp.takenMs - Number(newest / 1_000_000n);
}

/**
 * A stamp taken when nothing on the way had changed for SETTLED_MS (after one wait for that, when
 * something had), or undefined: no such path, or it is still changing.
 */
export async function settledStamp(realPath: string, watched: string): Promise<PathStamp | undefined> {
  const first = stampPath(realPath, watched);
  if (first === undefined || quietFor(first) > SETTLED_MS) return first;
  await new Promise((resolve) => setTimeout(resolve, SETTLED_MS - Math.max(0, quietFor(first)) + 1));
  const second = stampPath(realPath, watched);
  return second !== undefined && quietFor(second) > SETTLED_MS ? second : undefined;
}

/** The same components, unchanged, in both stamps. */
export function unchanged(before: PathStamp, after: PathStamp): boolean {
  return (
    before.steps.length === after.steps.length &&
    before.steps.every((step, i) => {
      const other = after.steps[i] as Step;
      return step.dev === other.dev && step.ino === other.ino && step.ctimeNs === other.ctimeNs;
    })
  );
}
