// Cutting text and JSON values to a size, with a marker that says how much was left out, so a
// reader (the user, the model) knows the text goes on. Used wherever Garuda passes on something
// it did not write: to the editor, to the model, into the session file and the audit log.
import { mapJson, MAX_JSON_DEPTH } from "./jsonShape.ts";
import { groupedCount } from "./count.ts";

/** The marker after a cut text. */
function cutMarker(leftOut: number): string {
  return `[… ${groupedCount(leftOut)} more characters left out]`;
}

/**
 * The text, or its first `max` characters and a marker on a line of its own. Never splits a
 * surrogate pair. `total`: the length of the whole when `text` is already a part of it.
 */
export function cutText(text: string, max: number, total = text.length): string {
  if (text.length <= max && total <= text.length) return text;
  let end = Math.min(text.length, Math.max(0, max));
  // A high surrogate at the end would leave half a character.
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}\n${cutMarker(total - end)}`;
}

/**
 * A copy of a JSON-like value with every string cut to `maxString` characters (but those under
 * a `keep` key) and at most `maxDepth` levels.
 */
export function cutStrings(
  value: unknown,
  maxString: number,
  keep?: ReadonlySet<string>,
  maxEntries?: number,
): unknown {
  return mapJson(
    value,
    (text, key) => (key !== undefined && keep?.has(key) ? text : cutText(text, maxString)),
    MAX_JSON_DEPTH,
    maxEntries,
  );
}

/** UTF-8 bytes of a value as JSON; Infinity when it cannot be written (too deep, a cycle). */
export function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? "");
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** The shortest strings and the fewest entries fitJson cuts to; below them a message stops being readable. */
const MIN_STRING = 64;
const MIN_ENTRIES = 4;
/** The entries of an array or object fitJson keeps at first (a message's own lists are short). */
const FIRST_ENTRIES = 10_000;

/**
 * The value itself when its JSON fits in `maxBytes`, else a copy with its strings cut (each to
 * the same length, halved until the whole fits), its nesting bounded and, after the first try,
 * its long arrays and objects cut too. Undefined when not even the smallest cut fits. Strings
 * under a `keep` key stay whole.
 */
export function fitJson<T>(value: T, maxBytes: number, keep?: ReadonlySet<string>): T | undefined {
  if (jsonBytes(value) <= maxBytes) return value;
  // A string can take a quarter of the budget at first (a message usually has one big field).
  let maxString = Math.floor(maxBytes / 4);
  for (let round = 0; ; round++) {
    const maxEntries = round === 0 ? undefined : Math.max(MIN_ENTRIES, FIRST_ENTRIES >> round);
    const cut = cutStrings(value, maxString, keep, maxEntries) as T;
    if (jsonBytes(cut) <= maxBytes) return cut;
    if (maxString <= MIN_STRING && maxEntries === MIN_ENTRIES) return undefined;
    maxString = Math.max(MIN_STRING, Math.floor(maxString / 2));
  }
}
