// What changed in a project since a point in time, as the git guard's watches saw it: the undo
// store asks it which paths may differ from its last snapshot, so a snapshot reads those paths
// instead of every file's stat data (store/undo.ts).
//
// A point is a token, `<log id>:<epoch>:<sequence>`. The log records every event's path as the
// inotify queue is read (host.ts), before any step of the guard runs, so once a barrier through
// the queue has passed (barrier.ts) every change made before it is in the log. An answer lists
// the paths recorded after the token, or says "all" (the asker then looks at every file) when
// the log cannot vouch for the whole time since the token:
// - the token is from another log (another process, a guard closed and made again), or from a
//   time the tree was not wholly watched (its epoch is -1);
// - coverage was lost since: the kernel dropped events (overflow), a subtree was left unwatched
//   (the watch budget, the kernel's limit, a storm), a walk stopped at its folder limit — each
//   starts a new epoch, and the recorded paths are dropped;
// - the tree is not wholly watched now (the first walk has not ended, a subtree is scanned instead,
//   a folder's name is not UTF-8 so no path reaches it: watch.ts), or the guard did not get through
//   the events read so far in time (its map of watches may be behind a rename: host.ts);
// - the tree is not on a local file system (NFS, SMB, FUSE: what the other side changes raises no
//   event; localTree.ts);
// - more paths (or longer ones) were recorded than the log keeps (a build, an npm install): also a new epoch.
// What inotify cannot see is not in it either: a write through a shared mmap before its file is
// closed, a write through a hard link that lives outside the watched tree. The undo store says
// so in its header, and takes a full snapshot whenever a process it started may still run.
import { randomBytes } from "node:crypto";

/** Most paths kept between two answers: past this, the next answer is "all". */
const MAX_PATHS = 20_000;
/**
 * Most characters of those paths together: a command can make 20,000 paths of 4,000 characters each (tens of MB
 * kept until the next loss); an npm install's average some 100.
 */
const MAX_CHARS = 4_000_000;

export type ChangeAnswer = { token: string; paths: string[] } | { token: string; paths: "all" };

export interface ChangeLog {
  /** A path (absolute) in the watched tree changed: made, written, removed, moved, its mode changed. */
  record(path: string): void;
  /** Events were lost or part of the tree is no longer watched: no token given before vouches for what follows. */
  lose(): void;
  /** The paths recorded since `token` (absolute), or "all"; `covered`: the whole tree is watched now. */
  answer(token: string | undefined, covered: boolean): ChangeAnswer;
}

export function createChangeLog(maxPaths = MAX_PATHS, maxChars = MAX_CHARS): ChangeLog {
  const id = randomBytes(6).toString("hex");
  let epoch = 0;
  let sequence = 0;
  /** Each path recorded in this epoch, with the sequence number of its last change. */
  const paths = new Map<string, number>();
  let chars = 0;

  function lose(): void {
    epoch++;
    paths.clear();
    chars = 0;
  }

  return {
    record(path) {
      const known = paths.has(path);
      if (!known && (paths.size >= maxPaths || chars + path.length > maxChars)) {
        lose();
        return;
      }
      if (!known) chars += path.length;
      paths.set(path, ++sequence);
    },
    lose,
    answer(token, covered) {
      if (!covered) return { token: `${id}:-1:${sequence}`, paths: "all" };
      const now = `${id}:${epoch}:${sequence}`;
      const [tokenId, tokenEpoch, tokenSequence] = (token ?? "").split(":");
      const since = Number(tokenSequence);
      if (tokenId !== id || tokenEpoch !== String(epoch) || !Number.isInteger(since))
        return { token: now, paths: "all" };
      const changed: string[] = [];
      for (const [path, at] of paths) if (at > since) changed.push(path);
      return { token: now, paths: changed };
    },
  };
}
