// Cutting text and JSON values to a size, with a marker that says how much was left out, so a
// reader (the user, the model) knows the text goes on. Used wherever Garuda passes on something
// it did not write: to the editor, to the model, into the session file and the audit log.
import { mapJson, MAX_JSON_DEPTH } from "./jsonShape.ts";

/** The marker after a cut text. */
export function cutMarker(leftOut: number): string {
  return `[… ${leftOut.toLocaleString("en-US")} more characters left out]`;
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
export function cutStrings(value: unknown, maxString: number, keep?: ReadonlySet<string>, maxDepth = MAX_JSON_DEPTH): unknown {
  return mapJson(value, (text, key) => (key !== undefined && keep?.has(key) ? text : cutText(text, maxString)), maxDepth);
}

/** UTF-8 bytes of a value as JSON; Infinity when it cannot be written (too deep, a cycle). */
export function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? "");
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** The smallest string length fitJson cuts to; below it a message stops being readable. */
const MIN_STRING = 256;

/**
 * The value itself when its JSON fits in `maxBytes`, else a copy with its strings cut (each to
 * the same length, halved until the whole fits) and its nesting bounded. When even that is too
 * big (a huge array of short strings), undefined: the caller sends something else. Strings
 * under a `keep` key stay whole.
 */
export function fitJson<T>(value: T, maxBytes: number, keep?: ReadonlySet<string>): T | undefined {
  if (jsonBytes(value) <= maxBytes) return value;
  // A string can take a quarter of the budget at first (a message usually has one big field).
  for (let maxString = Math.floor(maxBytes / 4); maxString >= MIN_STRING; maxString = Math.floor(maxString / 2)) {
    const cut = cutStrings(value, maxString, keep) as T;
    if (jsonBytes(cut) <= maxBytes) return cut;
  }
  return undefined;
}
