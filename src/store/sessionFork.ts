// A fork of a session: a new session file that holds the conversation of another one up to now,
// so both go on independently (ACP session/fork, the chat's /fork). The parent's records are
// copied as they are (already redacted, in order, so compactions still apply to the same
// messages), under a start record of the fork's own that names the parent (`forkedFrom`). The
// file is written whole under a temporary name and then linked into place, so a fork is never
// seen half-written, and it is locked before it exists, as a new session is (sessionFile.ts).
import { closeSync, constants, fsyncSync, linkSync, openSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { writeAll } from "../files/writeAll.ts";
import { type ClaimedSession, claimSession } from "./sessionCatalog.ts";
import { newSessionId, type SessionData } from "./sessionFile.ts";
import { lockSession } from "./sessionLock.ts";
import type { SessionRecord } from "./sessionRecords.ts";
import { sessionTitle } from "./sessionTitle.ts";

export interface ForkRequest {
  /** The parent's file (its records are read from `data`). */
  parentFile: string;
  parentId: string;
  /** What the parent's file holds now. */
  data: SessionData;
  now?: Date;
}

/** The fork's title: the parent's, marked, so the two are told apart in a history. */
function forkTitle(records: readonly SessionRecord[]): string | undefined {
  const title = records.find((record) => record.type === "title");
  return title?.type === "title" ? sessionTitle(`Fork: ${title.title}`) : undefined;
}

/** The fork's records: its own start (naming the parent) and title, then the parent's conversation. */
export function forkRecords(request: ForkRequest, id: string): SessionRecord[] {
  const { data, parentId } = request;
  const start = data.records.find((record) => record.type === "start");
  if (start?.type !== "start") throw new Error(`session ${parentId} has no start record, so it cannot be forked`);
  const t = (request.now ?? new Date()).toISOString();
  const title = forkTitle(data.records);
  return [
    { ...start, t, sessionId: id, forkedFrom: { sessionId: parentId } },
    ...(title !== undefined ? [{ t, type: "title" as const, title }] : []),
    ...data.records.filter((record) => record.type !== "start" && record.type !== "title"),
  ];
}

/**
 * Writes the fork of `request.parentFile` beside it and claims it (locked, read back): the caller
 * continues it as a resumed session, or removes it when that fails.
 */
export function forkSession(request: ForkRequest): ClaimedSession {
  const id = newSessionId(request.now);
  const folder = dirname(request.parentFile);
  const file = join(folder, `${id}.jsonl`);
  const text = forkRecords(request, id)
    .map((record) => `${JSON.stringify(record)}\n`)
    .join("");
  const lock = lockSession(file);
  const temporary = join(folder, `.${id}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    // O_EXCL + O_NOFOLLOW: a fresh file of our own; linked into place only once whole and synced.
    const fd = openSync(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      writeAll(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // link, not rename: it fails rather than replace a file of that name.
    linkSync(temporary, file);
  } catch (error) {
    lock.release();
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
  return claimSession(file, lock);
}
