// Sessions by id, for every front end: where a session's file is (an id is checked before any
// path is made of it), taking a session to continue it (locked first, then read, so what was
// read is what the next writer appends to), the short summary a listing shows, and deleting a
// session for good.
import { closeSync, lstatSync, openSync, readdirSync, readSync, rmSync, type Stats } from "node:fs";
import { basename, join } from "node:path";
import { isSessionId, readSession, type SessionData } from "./sessionFile.ts";
import { lockSession, removeLockFile, type SessionLock } from "./sessionLock.ts";
import type { PromptBlock } from "./sessionRecords.ts";
import { sessionTitle } from "./sessionTitle.ts";

/** A session taken to continue: its lock (held) and what its file held when it was taken. */
export interface ClaimedSession {
  id: string;
  file: string;
  data: SessionData;
  lock: SessionLock;
}

const isRegularFile = (path: string): Stats | undefined => {
  try {
    const stat = lstatSync(path);
    return stat.isFile() ? stat : undefined;
  } catch {
    return undefined;
  }
};

/** The project folders under ~/.garuda/sessions (real folders only, never a link). */
export function sessionFolders(sessionsDir: string): string[] {
  try {
    return readdirSync(sessionsDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(sessionsDir, entry.name));
  } catch {
    return [];
  }
}

/**
 * The file of session `id`: in `first` (a project's folder) when it is there, else in any project
 * folder; undefined for an unknown id or one that is not an id.
 */
export function findSessionFile(sessionsDir: string, id: string, first?: string): string | undefined {
  if (!isSessionId(id)) return undefined;
  if (first !== undefined && isRegularFile(join(first, `${id}.jsonl`))) return join(first, `${id}.jsonl`);
  for (const folder of sessionFolders(sessionsDir)) {
    const file = join(folder, `${id}.jsonl`);
    if (isRegularFile(file)) return file;
  }
  return undefined;
}

/** Locks the session, then reads it. Throws SessionBusyError when another writer has it. `lock`: one already held. */
export function claimSession(file: string, lock?: SessionLock): ClaimedSession {
  const held = lock ?? lockSession(file);
  try {
    return { id: basename(file).replace(/\.jsonl$/, ""), file, data: readSession(file), lock: held };
  } catch (error) {
    held.release();
    throw error;
  }
}

/** The project root a session's start record names. */
export function sessionRoot(data: SessionData): string | undefined {
  const start = data.records.find((record) => record.type === "start");
  return start?.type === "start" ? start.root : undefined;
}

/** Removes a session's file and its lock file; the caller holds the lock. Missing files are fine. */
export function removeSession(claimed: { file: string; lock: SessionLock }): void {
  rmSync(claimed.file, { force: true });
  removeLockFile(claimed.file);
}

/** What a listing shows of a session. */
export interface SessionSummary {
  id: string;
  file: string;
  root: string;
  title?: string;
}

const HEAD_CHUNK = 64 * 1024;

/** The JSON lines of a file from its start, one at a time, until `take` says it has enough. */
function readHead(file: string, take: (line: string) => boolean): void {
  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.alloc(HEAD_CHUNK);
    let pending = Buffer.alloc(0);
    let position = 0;
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, position);
      if (read === 0) return;
      position += read;
      pending =
        pending.length === 0
          ? Buffer.from(buffer.subarray(0, read))
          : Buffer.concat([pending, buffer.subarray(0, read)]);
      let start = 0;
      let newline = pending.indexOf(10, start);
      while (newline !== -1) {
        if (take(pending.toString("utf8", start, newline))) return;
        start = newline + 1;
        newline = pending.indexOf(10, start);
      }
      pending = pending.subarray(start);
    }
  } finally {
    closeSync(fd);
  }
}

/** The record type of a line as Garuda writes it (`{"t":"…","type":"…",`), without parsing it all. */
function lineType(line: string): string | undefined {
  return /^\{"t":"[^"]*","type":"([a-z_]+)"/.exec(line.slice(0, 80))?.[1];
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A session's summary from the head of its file: the root of its start record, and its title
 * (the title record, or for an older file its first prompt). Undefined when the file has no
 * readable start record: a listing cannot say where it belongs.
 */
export function summarizeSession(file: string): SessionSummary | undefined {
  let root: string | undefined;
  let title: string | undefined;
  let firstPrompt: string | undefined;
  let lines = 0;
  readHead(file, (line) => {
    lines++;
    const type = lineType(line);
    if (lines === 1) {
      const start = parse(line);
      if (start?.type !== "start" || typeof start.root !== "string") return true;
      root = start.root;
      return false;
    }
    if (type === "title") {
      const record = parse(line);
      // Shown as a title whatever wrote the file: one visible line again.
      if (typeof record?.title === "string") title = sessionTitle(record.title);
      return title !== undefined;
    }
    // The title follows the first prompt; an answer before it means an older file without one.
    if (type === "assistant" && firstPrompt !== undefined) return true;
    if (type === "user" && firstPrompt === undefined) {
      const record = parse(line);
      if (record && record.synthetic !== true) {
        const shown = Array.isArray(record.shown) ? (record.shown as PromptBlock[]) : undefined;
        firstPrompt =
          (shown ? sessionTitle(shown) : typeof record.prompt === "string" ? sessionTitle(record.prompt) : undefined) ??
          "";
      }
    }
    return false;
  });
  if (root === undefined) return undefined;
  const shown = title ?? (firstPrompt !== "" ? firstPrompt : undefined);
  return { id: basename(file).replace(/\.jsonl$/, ""), file, root, ...(shown !== undefined && { title: shown }) };
}
