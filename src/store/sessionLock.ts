// One writer per session file, across every Garuda process (a terminal chat, `garuda run`, an
// editor's `garuda acp`). The lock is an exclusive SQLite transaction on `<id>.lock` beside the
// session file: SQLite takes a POSIX advisory lock on it, which the kernel drops when the holder
// exits in any way (kill -9 included), so no lock outlives its process and no pid or start time
// has to be trusted. SQLite also keeps two connections of one process apart, so a second lock
// in the same process is refused too. The lock file stays (it is empty); deleting a session
// removes it. The lock lives as long as its connection: a Database that is collected closes and
// lets go, so each handle keeps the connection referenced until it is released.
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { messageOf } from "../errors/caught.ts";
import { ConfigError } from "../errors/configError.ts";

/** A held session lock; share() gives another handle, and the lock goes when every handle is released. */
export interface SessionLock {
  /** The session file this lock guards. */
  readonly file: string;
  /** Another handle on the same lock (a chat that restarts its runtime on the same session). */
  share(): SessionLock;
  /** Idempotent. */
  release(): void;
}

/** Another process (or another runtime of this one) has the session open: a message for the user. */
export class SessionBusyError extends ConfigError {
  constructor(readonly sessionFile: string) {
    super(
      undefined,
      "Another Garuda is using this session now (a terminal chat, `garuda run` or an " +
        "editor), and two of them must not write to one session",
      "Close it there first, or start a new session",
    );
    this.name = "SessionBusyError";
  }
}

export function lockFileOf(sessionFile: string): string {
  return sessionFile.replace(/\.jsonl$/, "") + ".lock";
}

class Held {
  #handles = 0;
  constructor(
    readonly file: string,
    readonly db: Database,
  ) {}

  handle(): SessionLock {
    this.#handles++;
    let released = false;
    const lock: SessionLock = {
      file: this.file,
      share: () => this.handle(),
      release: () => {
        if (released) return;
        released = true;
        if (--this.#handles === 0) this.#drop();
      },
    };
    return lock;
  }

  #drop(): void {
    try {
      this.db.exec("ROLLBACK");
    } catch {
      // The transaction is gone with the connection anyway.
    }
    this.db.close();
  }
}

/** Takes the lock of `sessionFile` at once, or throws SessionBusyError; never waits. */
export function lockSession(sessionFile: string): SessionLock {
  const path = lockFileOf(sessionFile);
  let db: Database;
  try {
    db = new Database(path, { create: true, readwrite: true });
  } catch (error) {
    throw new Error(`The session's lock file ${path} cannot be opened (${messageOf(error)}).`);
  }
  try {
    db.exec("PRAGMA busy_timeout = 0");
    // Nothing is ever written, so no journal file beside the lock.
    db.exec("PRAGMA journal_mode = MEMORY");
    db.exec("BEGIN EXCLUSIVE");
  } catch (error) {
    db.close();
    if (/locked|busy/i.test(messageOf(error))) throw new SessionBusyError(sessionFile);
    throw new Error(`The session's lock file ${path} cannot be locked (${messageOf(error)}).`);
  }
  return new Held(sessionFile, db).handle();
}

/** Removes a session's lock file (its session is deleted; the caller holds the lock). */
export function removeLockFile(sessionFile: string): void {
  rmSync(lockFileOf(sessionFile), { force: true });
  rmSync(`${lockFileOf(sessionFile)}-journal`, { force: true });
}
