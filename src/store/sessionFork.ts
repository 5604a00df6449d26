// A fork of a session: a new session file that holds the conversation of another one up to now,
// or up to and with one of its messages (by its id, messageIds.ts), so both go on independently
// (ACP session/fork, the chat's /fork). The parent's records are copied as they are (already
// redacted, in order, so compactions before the cut still apply to the same messages), each
// message keeping the id the parent shows, under a start record of the fork's own that names the
// parent (`forkedFrom`). The
// file is written whole under a temporary name and then linked into place, so a fork is never
// seen half-written, and it is locked before it exists, as a new session is (sessionFile.ts).
import { closeSync, constants, fsyncSync, linkSync, openSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { writeAll } from "../files/writeAll.ts";
import { type ClaimedSession, claimSession } from "./sessionCatalog.ts";
import { newSessionId, type SessionData } from "./sessionFile.ts";
import { lockSession } from "./sessionLock.ts";
import { messageRuns, positionId } from "./messageIds.ts";
import type { SessionRecord } from "./sessionRecords.ts";
import { sessionTitle } from "./sessionTitle.ts";

export interface ForkRequest {
  /** The parent's file (its records are read from `data`). */
  parentFile: string;
  parentId: string;
  /** What the parent's file holds now. */
  data: SessionData;
  /** The last message the fork keeps (its id); default: all of them. */
  upTo?: string;
  now?: Date;
}

/** The fork point names no message of the parent. */
export class UnknownMessageError extends Error {
  constructor(readonly messageId: string) {
    super(`no message of the session has the id "${messageId.slice(0, 100)}"`);
  }
}

/**
 * The records with their messages' ids as the parent shows them: an older file's ids are made of
 * the records' positions (messageIds.ts), which the copy would move, so they are written out.
 */
function withIds(records: readonly SessionRecord[]): SessionRecord[] {
  return records.map((record, index) => {
    if (record.type === "user") return { ...record, messageId: record.messageId ?? positionId(index) };
    if (record.type !== "assistant") return record;
    const runs = new Set(messageRuns(record.content).flatMap((entry) => (entry ? [entry.run] : []))).size;
    const messageIds = Array.from({ length: runs }, (_, run) => record.messageIds?.[run] ?? positionId(index, run));
    return { ...record, messageIds };
  });
}

/**
 * The records up to and with the message `id` (its last record, should one id be on two); an
 * answer's tool calls keep their results, which the next record holds.
 */
function cutAt(records: readonly SessionRecord[], id: string): SessionRecord[] {
  let last = -1;
  records.forEach((record, index) => {
    if (record.type === "user" && record.messageId === id) last = index;
    if (record.type === "assistant" && record.messageIds?.includes(id)) last = index;
  });
  if (last === -1) throw new UnknownMessageError(id);
  const end = records[last]?.type === "assistant" && records[last + 1]?.type === "tool_results" ? last + 2 : last + 1;
  return records.slice(0, end);
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
  const identified = withIds(data.records);
  const kept = request.upTo === undefined ? identified : cutAt(identified, request.upTo);
  return [
    {
      ...start,
      t,
      sessionId: id,
      forkedFrom: { sessionId: parentId, ...(request.upTo !== undefined && { messageId: request.upTo }) },
    },
    ...(title !== undefined ? [{ t, type: "title" as const, title }] : []),
    ...kept.filter((record) => record.type !== "start" && record.type !== "title"),
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
