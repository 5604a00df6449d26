// Which paths the listing and search tools never show: sensitive files (the permission engine's
// list) and whatever the session adds (the team policy's denied paths). The sensitive check is
// fronted by a cheap substring test derived from the same patterns: every pattern has a literal
// piece that must occur in a matching path, so most paths are cleared without a glob match.
import { SENSITIVE_PATTERNS, sensitivePattern } from "../permission/sensitive.ts";

export type HiddenPredicate = (absPath: string) => boolean;

function longestLiteral(pattern: string): string {
  let best = "";
  for (const piece of pattern.split(/[*?[\]{}/]+/)) if (piece.length > best.length) best = piece;
  return best;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const LITERALS = new RegExp([...new Set(SENSITIVE_PATTERNS.map((pattern) => escape(longestLiteral(pattern).toLowerCase())))].join("|"), "i");

/** True for files that may hold secrets (.env, keys, cloud credentials …). */
export function isSensitivePath(absPath: string): boolean {
  if (!LITERALS.test(absPath)) return false;
  return sensitivePattern(absPath) !== undefined;
}

/** Sensitive files, plus the session's own predicate when there is one. */
export function hiddenPredicate(extra?: HiddenPredicate): HiddenPredicate {
  return extra ? (absPath) => isSensitivePath(absPath) || extra(absPath) : isSensitivePath;
}
