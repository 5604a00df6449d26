// `garuda audit verify`: walks an audit log's hash chain. It finds a changed, inserted or removed line
// (and a line that is not a log line at all); it cannot see lines cut off the end of the file or
// a file deleted whole, and a writer who knows the format could rewrite the whole chain.
import { readFileSync } from "node:fs";
import { jsonTextDepth } from "../text/jsonShape.ts";
import { GENESIS, lineHash } from "./auditChain.ts";

export type AuditProblemKind = "changed" | "inserted" | "removed" | "malformed";

export interface AuditProblem {
  /** 1-based line number in the file. */
  line: number;
  kind: AuditProblemKind;
  detail: string;
}

export interface AuditVerification {
  ok: boolean;
  /** Lines read (up to and including the one with the problem). */
  lines: number;
  problem?: AuditProblem;
}

const HEX64 = /^[0-9a-f]{64}$/;
/** Audit lines hold events nested a few levels at most (audit.ts keeps 8). */
const MAX_LINE_DEPTH = 16;

interface ChainLine {
  seq: number;
  prev: string;
  hash: string;
  rest: Record<string, unknown>;
}

function parseLine(raw: string): ChainLine | string {
  // Garuda writes flat lines; a planted deep one would overflow the hash's walk.
  if (jsonTextDepth(raw) > MAX_LINE_DEPTH) return `is nested deeper than ${MAX_LINE_DEPTH} levels`;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return "is not JSON";
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "is not a JSON object";
  const { hash, ...rest } = value as Record<string, unknown>;
  const { seq, prev } = rest;
  if (typeof seq !== "number" || !Number.isInteger(seq) || seq < 1) return "has no valid seq";
  if (typeof prev !== "string" || !HEX64.test(prev)) return "has no valid prev";
  if (typeof hash !== "string" || !HEX64.test(hash)) return "has no valid hash";
  return { seq, prev, hash, rest };
}

/** Verifies one audit log file. Throws only when the file cannot be read. */
export function verifyAuditLog(file: string): AuditVerification {
  const text = readFileSync(file, "utf8");
  if (text.length === 0) return { ok: true, lines: 0 };
  const raws = text.split("\n");
  const complete = raws[raws.length - 1] === "";
  if (complete) raws.pop();

  let prevHash = GENESIS;
  let beforePrevHash: string | undefined;
  let prevSeq = 0;
  const fail = (line: number, kind: AuditProblemKind, detail: string): AuditVerification => ({
    ok: false,
    lines: line,
    problem: { line, kind, detail },
  });

  for (let index = 0; index < raws.length; index++) {
    const n = index + 1;
    if (!complete && index === raws.length - 1) return fail(n, "malformed", "the last line is cut off (no line end)");
    const parsed = parseLine(raws[index] as string);
    if (typeof parsed === "string") return fail(n, "malformed", `line ${n} ${parsed}`);
    if (lineHash(parsed.prev, parsed.rest) !== parsed.hash)
      return fail(n, "changed", `line ${n} does not match its hash`);
    if (parsed.seq <= prevSeq) {
      // A line that chains to the one before the previous line shows the previous line was slipped in.
      if (parsed.seq === prevSeq && beforePrevHash !== undefined && parsed.prev === beforePrevHash) {
        return fail(n - 1, "inserted", `line ${n - 1} was inserted (line ${n} follows the line before it)`);
      }
      return fail(n, "inserted", `line ${n} has seq ${parsed.seq}, expected ${prevSeq + 1}`);
    }
    if (parsed.seq > prevSeq + 1) {
      const missing = parsed.seq - prevSeq - 1;
      return fail(
        n,
        "removed",
        `${missing} line${missing === 1 ? "" : "s"} removed before line ${n} (seq ` +
          `${prevSeq + 1}${missing > 1 ? `–${parsed.seq - 1}` : ""})`,
      );
    }
    if (parsed.prev !== prevHash) {
      const at = Math.max(1, n - 1);
      return fail(at, "changed", `line ${at} was rewritten (line ${n} names a different previous hash)`);
    }
    beforePrevHash = prevHash;
    prevHash = parsed.hash;
    prevSeq = parsed.seq;
  }
  return { ok: true, lines: raws.length };
}
