// The session file of a Runtime, opened at the first prompt (not at create): a new file, or the
// resumed one. A store that cannot open a file warns once and the session goes on without one.
import type { Mode } from "../permission/types.ts";
import type { SessionStart, SessionStore } from "../store/sessionFile.ts";
import type { Conversation } from "./conversation.ts";

export interface SessionState {
  /** The mode the session file last recorded (start, resume or mode record). */
  recordedMode: Mode | undefined;
  /** Opens the file on the first call; later calls do nothing. */
  ensure(conversation: Conversation, mode: Mode, warn: (text: string) => void): void;
  close(conversation: Conversation): void;
}

export function openSession(store: SessionStore | false, resumeFile: string | undefined, start: Omit<SessionStart, "mode">): SessionState {
  let tried = false;
  const state: SessionState = {
    recordedMode: undefined,
    ensure(conversation, mode, warn) {
      if (tried || store === false) return;
      tried = true;
      try {
        const journal = resumeFile !== undefined ? store.resume(resumeFile, { ...start, mode }) : store.create({ ...start, mode });
        conversation.attach(journal);
        state.recordedMode = mode;
      } catch (error) {
        warn(`The session file could not be written (${error instanceof Error ? error.message : String(error)}); this session will not be saved.`);
      }
    },
    close(conversation) {
      conversation.journal?.close();
    },
  };
  return state;
}
