// The session file of a Runtime, opened at the first prompt (not at create): a new file, or the
// resumed one. A store that cannot open a file warns once and the session goes on without one.
// A resumed session's lock is held from the start (it was taken before the file was read), so
// no other Garuda writes to it while this runtime lives; a new session is locked when its file
// is made. close() releases the lock.
import type { Mode } from "../core-types/mode.ts";
import { messageOf } from "../errors/caught.ts";
import type { ClaimedSession } from "../store/sessionCatalog.ts";
import type { SessionJournal, SessionStart, SessionStore } from "../store/sessionFile.ts";
import type { SessionLock } from "../store/sessionLock.ts";
import type { Conversation } from "./conversation.ts";
import type { Notice } from "./services.ts";

export interface SessionState {
  /** The mode the session file last recorded (start, resume or mode record). */
  recordedMode: Mode | undefined;
  /** Opens the file on the first call; later calls do nothing. */
  ensure(conversation: Conversation, mode: Mode, warn: (text: string) => void): void;
  /** Another handle on the session's lock, while one is held. */
  shareLock(): SessionLock | undefined;
  close(conversation: Conversation): void;
}

export function openSession(
  store: SessionStore | false,
  resumed: Pick<ClaimedSession, "file" | "lock"> | undefined,
  start: Omit<SessionStart, "mode">,
  id?: string,
): SessionState {
  let tried = false;
  let closed = false;
  let journal: SessionJournal | undefined;
  const state: SessionState = {
    recordedMode: undefined,
    ensure(conversation, mode, warn) {
      if (tried || store === false || closed) return;
      tried = true;
      try {
        journal = resumed
          ? store.resume(resumed.file, { ...start, mode }, resumed.lock.share())
          : store.create({ ...start, mode }, id);
        conversation.attach(journal);
        state.recordedMode = mode;
      } catch (error) {
        warn(`The session file could not be written (${messageOf(error)}); this session will not be saved.`);
      }
    },
    shareLock() {
      if (closed) return undefined;
      return (resumed?.lock ?? journal?.lock)?.share();
    },
    close(conversation) {
      if (closed) return;
      closed = true;
      conversation.journal?.close();
      resumed?.lock.release();
    },
  };
  return state;
}

/** The store's write-error handler: the first failed write warns the user once, at the next turn. */
export function warnOnce(notices: Notice[]): (error: Error) => void {
  let writeFailed = false;
  return (error) => {
    if (writeFailed) return;
    writeFailed = true;
    notices.push({
      level: "warning",
      text: `Writing the session file failed (${error.message}); it may be incomplete.`,
    });
  };
}
