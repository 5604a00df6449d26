// How deep and how large a JSON value is, measured without recursion, and a bounded copy of one.
// Garuda walks JSON from outside (the model's tool input, session files, server tool results)
// in many places: JSON.stringify, redaction, display. A value nested 100,000 levels deep parses
// fine but overflows the stack of every recursive walk after it, so what comes in is measured
// here first (by loops, never recursion), and every walk that copies a value goes through
// mapJson(), whose recursion stops at a depth it is given.
import { groupedCount } from "./count.ts";

/** The deepest nesting Garuda takes in a tool input (objects and arrays, 1 = a flat object). */
export const MAX_JSON_DEPTH = 64;

/** What stands in for a part of a value nested deeper than a walk goes. */
export const TOO_DEEP = "[… nested too deep, left out]";

/**
 * The deepest nesting of objects and arrays in a JSON text, by one pass over its characters
 * (brackets inside strings do not count). Does not check that the text is valid JSON.
 */
export function jsonTextDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return deepest;
}

export interface JsonShape {
  /** Nesting depth of objects and arrays (0 for a string or number); at most `maxDepth + 1`. */
  depth: number;
  /** About the length of the value as JSON text (strings and keys counted whole, quotes and commas roughly). */
  chars: number;
}

/**
 * Depth and size of a JSON-like value, walked with a stack of its own. It does not look below
 * `maxDepth` (a depth of maxDepth + 1 says "deeper"), so a cycle or a huge nesting costs little.
 */
export function jsonShape(value: unknown, maxDepth = MAX_JSON_DEPTH): JsonShape {
  let deepest = 0;
  let chars = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: item, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof item === "string") {
      chars += item.length + 2;
      continue;
    }
    if (item === null || typeof item !== "object") {
      chars += item === undefined ? 0 : String(item).length;
      continue;
    }
    const level = depth + 1;
    if (level > deepest) deepest = level;
    chars += 2;
    if (level > maxDepth) continue;
    if (Array.isArray(item)) {
      chars += item.length;
      for (const entry of item) stack.push({ value: entry, depth: level });
    } else {
      for (const [key, entry] of Object.entries(item as Record<string, unknown>)) {
        chars += key.length + 4;
        stack.push({ value: entry, depth: level });
      }
    }
  }
  return { depth: deepest, chars };
}

/** Maps one string of a value; `key` is the object key it sits under, if any. */
export type StringMap = (text: string, key: string | undefined) => string;

/** What stands for the entries of an array or object past a walk's `maxEntries`. */
const moreEntries = (count: number) => `[… ${groupedCount(count)} more entries left out]`;

/**
 * A copy of a JSON-like value with every string mapped (keys stay as they are), nested at most
 * `maxDepth` levels: a deeper object or array becomes the TOO_DEEP marker. The recursion is
 * never deeper than `maxDepth`, whatever the value. An array or object with more than
 * `maxEntries` entries keeps the first ones and a marker of how many were left out (an array
 * as its last entry, an object under the key "…").
 */
export function mapJson(
  value: unknown,
  map: StringMap,
  maxDepth = MAX_JSON_DEPTH,
  maxEntries = Number.POSITIVE_INFINITY,
): unknown {
  const walk = (item: unknown, key: string | undefined, depth: number): unknown => {
    if (typeof item === "string") return map(item, key);
    if (item === null || typeof item !== "object") return item;
    if (depth >= maxDepth) return TOO_DEEP;
    if (Array.isArray(item)) {
      const kept = item.slice(0, maxEntries).map((entry) => walk(entry, undefined, depth + 1));
      return item.length > kept.length ? [...kept, moreEntries(item.length - kept.length)] : kept;
    }
    const entries = Object.entries(item as Record<string, unknown>);
    const out: Record<string, unknown> = {};
    for (const [name, entry] of entries.slice(0, maxEntries)) out[name] = walk(entry, name, depth + 1);
    if (entries.length > maxEntries) out["…"] = moreEntries(entries.length - maxEntries);
    return out;
  };
  return walk(value, undefined, 0);
}
