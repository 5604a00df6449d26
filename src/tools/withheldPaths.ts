// Which paths the listing and search tools never show: sensitive files (the permission engine's
// list: name patterns, and the home and system places the sandbox hides, secrets.ts) and whatever
// the session adds (the team policy's denied paths). The name patterns are fronted by a cheap
// substring test derived from the same patterns: every pattern has a literal piece that must occur
// in a matching path, so most paths are cleared without a glob match.
import { type SecretPlace, secretPlaceOf, secretPlaces } from "../files/secrets.ts";
import { SENSITIVE_PATTERNS, sensitivePattern } from "../permission/sensitive.ts";

export type WithheldPredicate = (absPath: string) => boolean;

function longestLiteral(pattern: string): string {
  let best = "";
  for (const piece of pattern.split(/[*?[\]{}/]+/)) if (piece.length > best.length) best = piece;
  return best;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const LITERALS = new RegExp(
  [...new Set(SENSITIVE_PATTERNS.map((pattern) => escape(longestLiteral(pattern).toLowerCase())))].join("|"),
  "i",
);

/** True for files that may hold secrets (.env, keys, cloud credentials …), and for the places given. */
export function isSensitivePath(absPath: string, places: readonly SecretPlace[] = []): boolean {
  if (places.length > 0 && secretPlaceOf(absPath.toLowerCase(), places) !== undefined) return true;
  if (!LITERALS.test(absPath)) return false;
  return sensitivePattern(absPath) !== undefined;
}

export interface WithheldOptions {
  /** The user's home folder: its secret places (files/secrets.ts) are withheld too. */
  home: string;
  /** Further folders the sandbox hides from commands (e.g. $XDG_RUNTIME_DIR). */
  withheldFromCommands?: readonly string[];
  /** The session's own predicate (team policy denials), when there is one. */
  extra?: WithheldPredicate;
}

/** Sensitive files and secret places, plus the session's own predicate when there is one. */
export function withheldPredicate(options: WithheldOptions): WithheldPredicate {
  const places = secretPlaces(options.home, options.withheldFromCommands);
  const extra = options.extra;
  return extra
    ? (absPath) => isSensitivePath(absPath, places) || extra(absPath)
    : (absPath) => isSensitivePath(absPath, places);
}
