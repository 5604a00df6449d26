// The hash chain of an audit log: each line's hash covers the previous line's hash and the
// line's own content, so a changed, inserted or removed line breaks the chain where it happened.
import { createHash } from "node:crypto";

/** The `prev` of the first line of every log. */
export const GENESIS = "0".repeat(64);

/** JSON with object keys sorted at every level and no whitespace: one text per value. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined && typeof item !== "function")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
}

/** The hash of a line: SHA-256 over the previous hash, a newline, and the line without `hash`. */
export function lineHash(prev: string, lineWithoutHash: Record<string, unknown>): string {
  return createHash("sha256").update(prev).update("\n").update(canonicalJson(lineWithoutHash)).digest("hex");
}
