// The audit log: one append-only JSONL file per session (one openAuditLog call each, from
// compose/prepare.ts) under ~/.garuda/audit/<project>-<hash8>/, each line chained to the one
// before (auditChain.ts).
// Secrets are redacted before a line is written. A failed write is reported, never thrown: the
// audit log must not end a turn.
import { createHash, randomBytes } from "node:crypto";
import { closeSync, constants, mkdirSync, openSync, realpathSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { writeAll } from "../files/writeAll.ts";
import { asError } from "../errors/caught.ts";
import { GENESIS, lineHash } from "./auditChain.ts";
import { type AuditEvent, type AuditLevel, type AuditSink, levelKeeps } from "./auditEvents.ts";
import { mapJson } from "../text/jsonShape.ts";
import { createRedactor, type Redactor, redactCut } from "./redact.ts";

export { verifyAuditLog } from "./auditVerify.ts";
export { decisionEvent, permissionAuditEvent, requestEvent, type AuditEvent, type AuditLevel } from "./auditEvents.ts";

/** The longest string an audit line keeps (a title, a command, a reason); the rest is cut with a marker. */
export const MAX_AUDIT_CHARS = 100_000;
/** Audit events are flat; anything nested deeper than this is left out. */
const AUDIT_DEPTH = 8;

/** Keys every line has; an event's own fields never override them. */
const RESERVED = new Set(["seq", "time", "session", "type", "prev", "hash"]);

export interface AuditLogOptions {
  /** ~/.garuda/audit (GarudaPaths.audit). */
  auditDir: string;
  /** The project root. */
  root: string;
  /** The session id written on every line. */
  session: string;
  /** Default "all". */
  level?: AuditLevel;
  /** Exact values to redact (the provider keys Garuda holds), on top of the common key shapes. */
  secrets?: Iterable<string>;
  /** Called for each failed write. */
  onError?: (error: Error) => void;
  now?: () => Date;
}

function realRoot(root: string): string {
  try {
    return realpathSync(resolve(root));
  } catch {
    return resolve(root);
  }
}

/** The folder of a project's logs: `<name>-<first 8 hex of SHA-256 of the real root>`. */
export function auditFolder(auditDir: string, root: string): string {
  const real = realRoot(root);
  const name =
    basename(real)
      .replace(/[^A-Za-z0-9._-]/g, "_")
      .replace(/^\.+/, "_")
      .slice(0, 48) || "root";
  return join(auditDir, `${name}-${createHash("sha256").update(real).digest("hex").slice(0, 8)}`);
}

/** `<time>-<pid>-<random>.jsonl`; the time sorts as text. */
function logFileName(now: Date): string {
  return `${now.toISOString().replace(/[:.]/g, "-")}-${process.pid}-${randomBytes(4).toString("hex")}.jsonl`;
}

/**
 * One writer for one file. The file is created (0600, in 0700 folders) at the first record that
 * its level keeps; lines are written whole with synchronous appends, so their order is the order
 * of the calls.
 */
export class AuditLog implements AuditSink {
  readonly file: string;
  readonly level: AuditLevel;
  readonly #session: string;
  readonly #redact: Redactor;
  readonly #onError: (error: Error) => void;
  readonly #now: () => Date;
  #fd: number | undefined;
  #seq = 0;
  #prev = GENESIS;
  #closed = false;
  #lastError: Error | undefined;

  constructor(options: AuditLogOptions) {
    this.#now = options.now ?? (() => new Date());
    this.file = join(auditFolder(options.auditDir, options.root), logFileName(this.#now()));
    this.level = options.level ?? "all";
    this.#session = options.session;
    this.#redact = createRedactor(options.secrets ?? []);
    this.#onError = options.onError ?? (() => {});
  }

  record(event: AuditEvent): void {
    if (this.#closed || !levelKeeps(this.level, event)) return;
    try {
      const { type, ...fields } = event;
      // Redacted, and each string cut: a 50 MB command is logged by its start and its length.
      const safe = mapJson(fields, (text) => redactCut(text, this.#redact, MAX_AUDIT_CHARS), AUDIT_DEPTH) as Record<
        string,
        unknown
      >;
      const own = Object.fromEntries(
        Object.entries(safe).filter(([key, value]) => !RESERVED.has(key) && value !== undefined),
      );
      const seq = this.#seq + 1;
      // Field order for a reader: seq, time, session, type, the event's fields, prev, hash.
      const line: Record<string, unknown> = {
        seq,
        time: this.#now().toISOString(),
        session: this.#session,
        type,
        ...own,
        prev: this.#prev,
      };
      const hash = lineHash(this.#prev, line);
      this.#append(`${JSON.stringify({ ...line, hash })}\n`);
      this.#seq = seq;
      this.#prev = hash;
      this.#lastError = undefined;
    } catch (error) {
      this.#lastError = asError(error);
      this.#onError(this.#lastError);
    }
  }

  /** The error of the last write, if it failed (cleared by the next write that works). */
  get lastError(): Error | undefined {
    return this.#lastError;
  }

  /** Closes the file; later records are dropped. */
  close(): void {
    this.#closed = true;
    if (this.#fd !== undefined) {
      try {
        closeSync(this.#fd);
      } catch (error) {
        this.#onError(asError(error));
      }
      this.#fd = undefined;
    }
  }

  #append(text: string): void {
    if (this.#fd === undefined) {
      mkdirSync(join(this.file, ".."), { recursive: true, mode: 0o700 });
      // O_EXCL + O_NOFOLLOW: a fresh file of our own, never one planted at this name.
      const flags =
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND | constants.O_NOFOLLOW;
      this.#fd = openSync(this.file, flags, 0o600);
    }
    writeAll(this.#fd, text);
  }
}

/** Opens (lazily) this process's audit log for a project. */
export function openAuditLog(options: AuditLogOptions): AuditLog {
  return new AuditLog(options);
}
