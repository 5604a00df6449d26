// Session files: ~/.garuda/sessions/<project>-<hash8>/<id>.jsonl, one JSON record per line,
// append-only (folders 0700, files 0600), secrets redacted. One synchronous write per record, so
// a crash loses at most the line being written; readSession() reports a torn or garbage line
// and keeps every other record.
import { createHash, randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, readSync, realpathSync, writeSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { Message } from "../model/types.ts";
import type { Mode } from "../permission/types.ts";
import { createRedactor, type Redactor } from "./redact.ts";
import { type RecordInput, type SessionRecord, SESSION_FORMAT, rebuildMessages, redactRecord } from "./sessionRecords.ts";

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
  append(record: RecordInput): void;
  close(): void;
}

/** Where sessions are kept. The Runtime opens one at the first prompt. */
export interface SessionStore {
  /** A new session; writes its start record. */
  create(start: SessionStart): SessionJournal;
  /** Continues the session in `file`; writes a resume record. */
  resume(file: string, start: SessionStart): SessionJournal;
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

/** `YYYYMMDD-HHMMSS-xxxx` in local time: sorts by time, readable in a listing. */
export function newSessionId(now: Date = new Date()): string {
  const date = `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}`;
  const time = `${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
  return `${date}-${time}-${randomBytes(2).toString("hex")}`;
}

/** `<name>-<first 8 hex of SHA-256 of the real root>`: one folder per project. */
export function sessionFolder(sessionsDir: string, root: string): string {
  let real = resolve(root);
  try {
    real = realpathSync(real);
  } catch {
    // A root that is gone still names its folder.
  }
  const name = basename(real).replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_").slice(0, 48) || "root";
  return join(sessionsDir, `${name}-${createHash("sha256").update(real).digest("hex").slice(0, 8)}`);
}

const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
}

/** True when the file is empty or ends with a newline. */
function endsClean(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 0x0a;
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
  ) {
    this.#fd = fd;
  }

  append(record: RecordInput): void {
    if (this.#fd === undefined) return;
    try {
      const line = JSON.stringify(redactRecord({ t: this.now().toISOString(), ...record }, this.redact));
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
  }
}

export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const redact = createRedactor(options.secrets ?? []);
  const now = options.now ?? (() => new Date());
  const onError = options.onError ?? (() => {});
  return {
    create(start) {
      const folder = sessionFolder(options.sessionsDir, start.root);
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      const id = newSessionId(now());
      const file = join(folder, `${id}.jsonl`);
      // O_EXCL + O_NOFOLLOW: a fresh file of our own, never one planted at this name.
      const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND | constants.O_NOFOLLOW, 0o600);
      const journal = new FileJournal(id, file, fd, redact, now, onError);
      journal.append({ type: "start", format: SESSION_FORMAT, sessionId: id, ...start });
      return journal;
    },
    resume(file, start) {
      const fd = openSync(file, constants.O_RDWR | constants.O_APPEND | constants.O_NOFOLLOW);
      // A torn last line (a crash mid-write) stays a line of its own; new records start clean.
      if (!endsClean(fd)) writeAll(fd, "\n");
      const id = basename(file).replace(/\.jsonl$/, "");
      const journal = new FileJournal(id, file, fd, redact, now, onError);
      journal.append({ type: "resume", version: start.version, model: start.model, mode: start.mode });
      return journal;
    },
  };
}

export interface SessionData {
  records: SessionRecord[];
  /** The conversation as the model saw it last, ready to continue. */
  messages: Message[];
  /** The first damaged line (1-based), when one was found: reported, never fatal. */
  damaged?: { line: number; reason: string };
}

const RECORD_TYPES = new Set(["start", "resume", "user", "assistant", "tool_results", "compaction", "mode", "model", "effort", "end"]);

function parseLine(line: string): SessionRecord | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return "the line is not valid JSON";
  }
  const type = (value as { type?: unknown } | null)?.type;
  if (typeof value !== "object" || value === null || typeof type !== "string" || !RECORD_TYPES.has(type)) return "the line is not a session record";
  return value as SessionRecord;
}

/** Reads a session file: its records, the rebuilt conversation, and the first damaged line if any. */
export function readSession(file: string): SessionData {
  const text = readFileSync(file, "utf8");
  const lines = text.split("\n");
  const records: SessionRecord[] = [];
  let damaged: SessionData["damaged"];
  lines.forEach((line, index) => {
    const last = index === lines.length - 1;
    if (line === "") return;
    if (last) {
      // No newline after it: the write was cut off.
      damaged ??= { line: index + 1, reason: "the last line is incomplete (the write was cut off)" };
      return;
    }
    const parsed = parseLine(line);
    if (typeof parsed === "string") damaged ??= { line: index + 1, reason: parsed };
    else records.push(parsed);
  });
  return { records, messages: rebuildMessages(records), ...(damaged && { damaged }) };
}
