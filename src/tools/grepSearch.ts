// The search behind grep: one regular expression over files, line by line. Each file is first
// tested whole (most files do not match, and one test over the text is much faster than one
// per line); only a file that may match is split into lines.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { decodeText } from "./textFile.ts";

export type GrepMode = "files" | "content" | "count";

export const MAX_SEARCH_BYTES = 1024 * 1024;

export interface FileHits {
  /** 1-based numbers of the matching lines (for "files": the first only). */
  lines: number[];
  /** The file's lines, kept only in content mode. */
  text?: string[];
}

export type FileOutcome = { kind: "hits"; hits: FileHits } | { kind: "none" } | { kind: "binary" } | { kind: "too_big"; size: number } | { kind: "unreadable" };

export interface Matcher {
  /** `g` and `m` flags: the whole-text test. */
  whole: RegExp;
  /** Per line. */
  line: RegExp;
}

/** Compiles the model's pattern, or says what is wrong with it. */
export function compilePattern(pattern: string, ignoreCase: boolean): Matcher | string {
  const flags = ignoreCase ? "i" : "";
  try {
    return { whole: new RegExp(pattern, `gm${flags}`), line: new RegExp(pattern, flags) };
  } catch (cause) {
    const why = cause instanceof Error ? cause.message : String(cause);
    return `The pattern is not a valid JavaScript regular expression (${why}). Escape special characters such as ( ) [ ] { } . * + ? with a backslash to search for them literally.`;
  }
}

function hasNul(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).indexOf(0) !== -1;
}

/** Reads a whole file into `buffer` (one open, one stat, usually one read); undefined when it does not fit. */
function readInto(path: string, buffer: Uint8Array): { bytes: Uint8Array } | { size: number } {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size > buffer.length) return { size };
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, null);
    return { bytes: buffer.subarray(0, length) };
  } finally {
    closeSync(fd);
  }
}

/** A reusable read buffer for one search (a file bigger than it is not searched). */
export function searchBuffer(maxBytes = MAX_SEARCH_BYTES): Uint8Array {
  return new Uint8Array(maxBytes);
}

/** Searches one file; `buffer` bounds the size (generated files, logs and data are skipped). */
export function searchFile(path: string, matcher: Matcher, mode: GrepMode, buffer: Uint8Array): FileOutcome {
  let bytes: Uint8Array;
  try {
    const read = readInto(path, buffer);
    if ("size" in read) return { kind: "too_big", size: read.size };
    bytes = read.bytes;
  } catch {
    return { kind: "unreadable" };
  }
  if (hasNul(bytes)) return { kind: "binary" };
  let text = decodeText(bytes);
  if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
  matcher.whole.lastIndex = 0;
  if (!matcher.whole.test(text)) return { kind: "none" };
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const hits: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (matcher.line.test(lines[i] as string)) {
      hits.push(i + 1);
      if (mode === "files") break;
    }
  }
  if (hits.length === 0) return { kind: "none" };
  return { kind: "hits", hits: mode === "content" ? { lines: hits, text: lines } : { lines: hits } };
}
