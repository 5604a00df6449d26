// A barrier through the git guard's inotify queue. When a sandboxed command has ended, every
// event it caused is already queued, but may not have been read yet. Garuda then makes one event
// itself, in a folder only it can write (~/.garuda/git-guard/barrier), under a name nobody can
// guess; the kernel keeps the queue in order, so once that event comes through, every event
// the command caused has been handled.
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Inotify, InotifyEvent } from "../inotify.ts";

/** How long to wait for the barrier before going on (a stuck queue must not hold up a command's result). */
const BARRIER_MS = 2_000;

export interface Barriers {
  watchWith(inotify: Inotify): void;
  /** Events as they are read: a barrier among them lets its waiter go. */
  seen(events: InotifyEvent[]): void;
  /**
   * Resolves once every event queued before the call has been handled: true, or false when it could not be
   * known (no inotify, the barrier not seen in time).
   */
  pass(): Promise<boolean>;
  close(): void;
}

export function createBarriers(dir: string): Barriers {
  let wd: number | undefined;
  const waiting = new Map<string, (seen: boolean) => void>();
  return {
    watchWith(inotify) {
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
      } catch {
        return;
      }
      const result = inotify.watch(dir);
      if ("wd" in result) wd = result.wd;
    },
    seen(events) {
      if (wd === undefined || waiting.size === 0) return;
      for (const event of events) {
        if (event.wd !== wd) continue;
        const done = waiting.get(event.name);
        if (done) {
          waiting.delete(event.name);
          done(true);
        }
      }
    },
    pass() {
      if (wd === undefined) return Promise.resolve(false);
      const name = `b-${process.pid}-${randomBytes(8).toString("hex")}`;
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(name);
          resolve(false);
        }, BARRIER_MS);
        waiting.set(name, (seen) => {
          clearTimeout(timer);
          resolve(seen);
        });
        try {
          const path = join(dir, name);
          writeFileSync(path, "", { flag: "wx", mode: 0o600 });
          rmSync(path, { force: true });
        } catch {
          waiting.delete(name);
          clearTimeout(timer);
          resolve(false);
        }
      });
    },
    close() {
      for (const done of waiting.values()) done(false);
      waiting.clear();
    },
  };
}
