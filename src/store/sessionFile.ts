// Session files: ~/.garuda/sessions/<project>-<hash8>/<id>.jsonl, one JSON record per line,
// append-only (folders 0700, files 0600), secrets redacted. One synchronous write per record, so
// a crash loses at most the line being written; readSession() reports every torn, garbage or
// unknown line and keeps every other record.
import { createHash, randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, readSync, realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { writeAll } from "../files/writeAll.ts";
import { asError } from "../errors/caught.ts";
import type { Message } from "../model/types.ts";
import type { Mode } from "../core-types/mode.ts";
import { createRedactor, type Redactor } from "./redact.ts";
import { fitJson } from "../text/cut.ts";
import { jsonTextDepth } from "../text/jsonShape.ts";
import {
  MAX_RECORD_DEPTH,
  OPAQUE,
  type RecordInput,
  type SessionRecord,
  SESSION_FORMAT,
  rebuildMessages,
  redactRecord,
} from "./sessionRecords.ts";
import { checkRecord } from "./sessionCheck.ts";
import { withoutRewound } from "./rewindRecords.ts";
import { lockSession, type SessionLock } from "./sessionLock.ts";
import { groupedCount } from "../text/count.ts";

export interface SessionStart {
  root: string;
  version: string;
  model: string;
  mode: Mode;
}

/** An open session: records go to its file in order. */
export interface SessionJournal {
  readonly id: string;
  /** The file, when the journal writes one. */
  readonly file: string | undefined;
  /** The session's lock, which the journal holds until close(). */
  readonly lock?: SessionLock | undefined;
  append(record: RecordInput): void;
  close(): void;
}

/** Where sessions are kept. The Runtime opens one at the first prompt. */
export interface SessionStore {
  /** A new session (with this id, else a new one); writes its start record. */
  create(start: SessionStart, id?: string): SessionJournal;
  /**
   * Continues the session in `file`; writes a resume record. `lock`: the session's lock, which the journal then holds.
   */
  resume(file: string, start: SessionStart, lock?: SessionLock): SessionJournal;
}

export interface SessionStoreOptions {
  /** ~/.garuda/sessions (GarudaPaths.sessions). */
  sessionsDir: string;
  /** Exact values to redact (provider keys in memory), on top of the common key shapes. */
  secrets?: Iterable<string>;
  /** A failed write is reported here, never thrown: a full disk must not end a turn. */
  onError?: (error: Error) => void;
  now?: () => Date;
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * `YYYYMMDD-HHMMSS-xxxxxxxx` in UTC: sorts by time (whatever the time zone, daylight saving
 * included), readable in a listing, and unique across projects (an editor names a session by
 * its id alone). Older ids have 4 hex digits, and ids made before 2026-12 are in local time.
 * UTC also keeps the time zone out of `garuda acp`: the first local-time call of a process loads
 * ICU's time zone data, ~4 ms and ~3.6 MiB of resident memory for the whole life of the agent.
 */
export function newSessionId(now: Date = new Date()): string {
  const date = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`;
  const time = `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  return `${date}-${time}-${randomBytes(4).toString("hex")}`;
}

/** Only ids of this shape name a session file: no path, no dot, nothing else reaches the disk. */
const SESSION_ID = /^\d{8}-\d{6}-[0-9a-f]{4,16}$/;

export function isSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}

/** `<name>-<first 8 hex of SHA-256 of the real root>`: one folder per project. */
export function sessionFolder(sessionsDir: string, root: string): string {
  let real = resolve(root);
  try {
    real = realpathSync(real);
  } catch {
    // A root that is gone still names its folder.
  }
  const name =
    basename(real)
      .replace(/[^A-Za-z0-9._-]/g, "_")
      .replace(/^\.+/, "_")
      .slice(0, 48) || "root";
  return join(sessionsDir, `${name}-${createHash("sha256").update(real).digest("hex").slice(0, 8)}`);
}

/** True when the file is empty or ends with a newline. */
function endsClean(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 0x0a;
}

/**
 * The longest line Garuda writes. Records stay far below it (tool inputs, prompts and results have
 * their own bounds); one above it gets its long strings cut (never the provider's opaque fields),
 * so the file still resumes.
 */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

function recordLine(record: SessionRecord): string {
  const line = JSON.stringify(record);
  // Characters are at most three bytes each: most lines need no byte count.
  if (line.length * 3 <= MAX_RECORD_BYTES || Buffer.byteLength(line) <= MAX_RECORD_BYTES) return line;
  const cut = fitJson(record, MAX_RECORD_BYTES, OPAQUE);
  if (!cut) throw new Error(`a record of ${groupedCount(line.length)} characters could not be cut to fit`);
  return JSON.stringify(cut);
}

class FileJournal implements SessionJournal {
  #fd: number | undefined;

  constructor(
    readonly id: string,
    readonly file: string,
    fd: number,
    readonly redact: Redactor,
    readonly now: () => Date,
    readonly onError: (error: Error) => void,
    readonly lock: SessionLock | undefined,
  ) {
    this.#fd = fd;
  }

  append(record: RecordInput): void {
    if (this.#fd === undefined) return;
    try {
      const line = recordLine(redactRecord({ t: this.now().toISOString(), ...record }, this.redact));
      writeAll(this.#fd, `${line}\n`);
    } catch (error) {
      this.onError(asError(error));
    }
  }

  close(): void {
    if (this.#fd === undefined) return;
    try {
      closeSync(this.#fd);
    } catch (error) {
      this.onError(asError(error));
    }
    this.#fd = undefined;
    this.lock?.release();
  }
}

export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const redact = createRedactor(options.secrets ?? []);
  const now = options.now ?? (() => new Date());
  const onError = options.onError ?? (() => {});
  return {
    create(start, given) {
      const folder = sessionFolder(options.sessionsDir, start.root);
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      if (given !== undefined && !isSessionId(given)) throw new Error(`"${given}" is not a session id`);
      const id = given ?? newSessionId(now());
      const file = join(folder, `${id}.jsonl`);
      // Locked before the file exists: another process that finds it finds it taken.
      const lock = lockSession(file);
      let fd: number;
      try {
        // O_EXCL + O_NOFOLLOW: a fresh file of our own, never one planted at this name.
        fd = openSync(
          file,
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND | constants.O_NOFOLLOW,
          0o600,
        );
      } catch (error) {
        lock.release();
        throw error;
      }
      const journal = new FileJournal(id, file, fd, redact, now, onError, lock);
      journal.append({ type: "start", format: SESSION_FORMAT, sessionId: id, ...start });
      return journal;
    },
    resume(file, start, lock) {
      let fd: number;
      try {
        fd = openSync(file, constants.O_RDWR | constants.O_APPEND | constants.O_NOFOLLOW);
        // A torn last line (a crash mid-write) stays a line of its own; new records start clean.
        if (!endsClean(fd)) writeAll(fd, "\n");
      } catch (error) {
        lock?.release();
        throw error;
      }
      const id = basename(file).replace(/\.jsonl$/, "");
      const journal = new FileJournal(id, file, fd, redact, now, onError, lock);
      journal.append({ type: "resume", version: start.version, model: start.model, mode: start.mode });
      return journal;
    },
  };
}

/** A line readSession() skipped, and why. */
export interface SkippedLine {
  line: number;
  reason: string;
}

export interface SessionData {
  records: SessionRecord[];
  /** The conversation as the model saw it last, ready to continue. */
  messages: Message[];
  /** The first damaged line (1-based), when one was found: reported, never fatal. */
  damaged?: SkippedLine;
  /** Every line skipped (damaged, or of a kind this version does not know), in order. */
  skipped: SkippedLine[];
}

function parseLine(line: string): SessionRecord | string {
  // Before parsing: a line nested this deep would overflow every walk after it (and brick the resumed session).
  if (jsonTextDepth(line) > MAX_RECORD_DEPTH) return `the line is nested deeper than ${MAX_RECORD_DEPTH} levels`;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return "the line is not valid JSON";
  }
  return checkRecord(value);
}

/** Reads the text of a session file: its records, the rebuilt conversation, and the lines it skipped. */
function parseSession(text: string): SessionData {
  const records: SessionRecord[] = [];
  const skipped: SkippedLine[] = [];
  let start = 0;
  let number = 0;
  while (start < text.length) {
    number++;
    const newline = text.indexOf("\n", start);
    if (newline === -1) {
      // No newline after it: the write was cut off.
      skipped.push({ line: number, reason: "the last line is incomplete (the write was cut off)" });
      break;
    }
    const line = text.slice(start, newline);
    start = newline + 1;
    if (line === "") continue;
    const parsed = parseLine(line);
    if (typeof parsed === "string") skipped.push({ line: number, reason: parsed });
    else records.push(parsed);
  }
  return {
    records,
    messages: rebuildMessages(withoutRewound(records)),
    skipped,
    ...(skipped[0] && { damaged: skipped[0] }),
  };
}

/** Reads a session file: its records, the rebuilt conversation, and the lines it skipped. */
export function readSession(file: string): SessionData {
  return parseSession(readFileSync(file, "utf8"));
}

/** readSession without holding the event loop while the file is read (a rewind in a running agent). */
export async function readSessionLater(file: string): Promise<SessionData> {
  return parseSession(await readFile(file, "utf8"));
}
