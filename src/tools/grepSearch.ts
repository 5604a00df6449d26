// The search behind grep and find_definition: one regular expression over files, line by line.
// It runs in a worker thread (grepWorker.ts, searchWorker.ts), so a slow pattern or a slow disk
// holds up no session. Each file is opened by the real path the walk (or the permission check)
// saw and checked to still be that file, without following a link or waiting on a pipe
// (checkedFile.ts); a file with other names (hard links) is not read unless it was approved as
// such, since one of its names may be a secret, and a file that is a secret on the list under
// another name (its device and inode, from the fstat every read makes anyway: a hard link or a
// mount, which has one name only) is never read. Each file is first tested whole (most files do
// not match, and one test over the text is much faster than one per line); only a file that may
// match is split into lines.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { codeOf, messageOf } from "../errors/caught.ts";
import { identityKey } from "../files/secretIdentities.ts";
import { READ_FLAGS, verify } from "./checkedFile.ts";
import { cFamilyOf, mayDefineIn } from "./codeIndex/cDefinitionSites.ts";
import { decodeText } from "./textFile.ts";
import { groupedCount } from "../text/count.ts";

export type GrepMode = "files" | "content" | "count";

export const MAX_SEARCH_BYTES = 1024 * 1024;
const MAX_LINE_CHARS = 500;

/** What the worker needs to search: plain data, sent once per search. */
export interface SearchSpec {
  pattern: string;
  ignoreCase: boolean;
  mode: GrepMode;
  /** Context lines around each shown hit (content mode). */
  context: number;
  /** How many hits of one file may be shown; only their lines (and context) come back. */
  maxShown: number;
  /** Files bigger than this are not searched ("too_big"). */
  maxBytes: number;
  /** Hard-linked files may be read (the one file the permission check approved knowing its links). */
  allowLinks: boolean;
  /** The identities of the secrets on the list (identityKey()): such files are never read. */
  secretKeys: readonly string[];
  /**
   * find_definition's name: a C or C++ file is a hit only when a mention of it could be a
   * definition (codeIndex/cDefinitionSites.ts), so files that only call it are not parsed.
   */
  definitionsOf?: string;
}

export type FileOutcome =
  /**
   * `lines`: 1-based numbers of the matching lines (for "files": the first only); `shown`: text of the lines content
   * mode shows.
   */
  | { kind: "hits"; lines: number[]; shown?: Array<[number, string]> }
  | { kind: "none" }
  | { kind: "binary" }
  | { kind: "too_big"; size: number }
  | { kind: "unreadable" }
  /** A pipe, socket or device took the file's place: not read. */
  | { kind: "special" }
  /** The path no longer leads to the file the walk saw (a link or another file in its place). */
  | { kind: "changed" }
  /** The file has other names (hard links). */
  | { kind: "linked"; links: number }
  /** The file is a secret on the list under another name (a hard link, a mount). */
  | { kind: "secret" };

export interface Matcher {
  /** `g` and `m` flags: the whole-text test. */
  whole: RegExp;
  /** Per line. */
  line: RegExp;
  /** For a pattern that is plain text (`NEEDLE`, `Client\.send`): its UTF-8 bytes, looked for before any decoding. */
  literal?: Buffer;
}

/** Plain characters and backslash-escaped punctuation only: the pattern matches exactly one text. */
const PLAIN = /^(?:[^\\^$.*+?()[\]{}|]|\\[\\^$.*+?()[\]{}|/-])+$/;

/** The text a plain pattern matches, when it is plain (and its bytes cannot be confused by decoding). */
function literalOf(pattern: string, ignoreCase: boolean): Buffer | undefined {
  if (ignoreCase || !PLAIN.test(pattern)) return undefined;
  const text = pattern.replace(/\\(.)/g, "$1");
  // U+FFFD also stands for bytes that are not UTF-8, and a \r would be normalized away: leave those to the regex.
  return text.includes("\uFFFD") || text.includes("\r") ? undefined : Buffer.from(text, "utf8");
}

/** Compiles the model's pattern, or says what is wrong with it. */
export function compilePattern(pattern: string, ignoreCase: boolean): Matcher | string {
  const flags = ignoreCase ? "i" : "";
  try {
    const matcher: Matcher = { whole: new RegExp(pattern, `gm${flags}`), line: new RegExp(pattern, flags) };
    const literal = literalOf(pattern, ignoreCase);
    return literal ? { ...matcher, literal } : matcher;
  } catch (cause) {
    const why = messageOf(cause);
    return (
      `The pattern is not a valid JavaScript regular expression (${why}). Escape ` +
      `special characters such as ( ) [ ] { } . * + ? with a backslash to search for ` +
      `them literally.`
    );
  }
}

export function clipLine(line: string): string {
  return line.length > MAX_LINE_CHARS
    ? `${line.slice(0, MAX_LINE_CHARS)}… [${groupedCount(line.length)} characters]`
    : line;
}

function hasNul(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).indexOf(0) !== -1;
}

/**
 * Reads the file at `realPath` into `buffer` if it is still the regular file the walk saw there:
 * O_NOFOLLOW and O_NONBLOCK (a link or a pipe put in its place is not followed or waited on), then
 * the open file is checked to be at that path (a folder on the way swapped for a link shows).
 */
function readPinned(
  realPath: string,
  buffer: Uint8Array,
  allowLinks: boolean,
  secrets: ReadonlySet<string>,
): { bytes: Uint8Array } | FileOutcome {
  let fd: number;
  try {
    fd = openSync(realPath, READ_FLAGS);
  } catch (error) {
    const code = codeOf(error);
    return code === "ELOOP" || code === "EMLINK" ? { kind: "changed" } : { kind: "unreadable" };
  }
  try {
    if (!verify(fd, realPath).ok) return { kind: "changed" };
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { kind: "special" };
    if (secrets.has(identityKey(stat.dev, stat.ino))) return { kind: "secret" };
    if (stat.nlink > 1 && !allowLinks) return { kind: "linked", links: stat.nlink };
    if (stat.size > buffer.length) return { kind: "too_big", size: stat.size };
    // Up to the size fstat gave (what grows meanwhile is not searched), or to the buffer's end for
    // files that report no size (some virtual file systems).
    const want = stat.size > 0 ? stat.size : buffer.length;
    let length = 0;
    for (let n = -1; n !== 0 && length < want; length += n) n = readSync(fd, buffer, length, want - length, null);
    return { bytes: buffer.subarray(0, length) };
  } catch {
    return { kind: "unreadable" };
  } finally {
    closeSync(fd);
  }
}

/** The lines content mode shows: the first `maxShown` hits and their context, clipped. */
function shownLines(lines: string[], hits: number[], spec: SearchSpec): Array<[number, string]> {
  const wanted = new Set<number>();
  for (const hit of hits.slice(0, spec.maxShown)) {
    for (let line = Math.max(1, hit - spec.context); line <= Math.min(lines.length, hit + spec.context); line++)
      wanted.add(line);
  }
  return [...wanted].sort((a, b) => a - b).map((line) => [line, clipLine(lines[line - 1] as string)]);
}

/** Searches the text of one file. */
function searchBytes(bytes: Uint8Array, matcher: Matcher, spec: SearchSpec): FileOutcome {
  if (hasNul(bytes)) return { kind: "binary" };
  // Most files do not hold a plain pattern at all: a byte search says so without decoding them.
  if (matcher.literal && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf(matcher.literal) === -1)
    return { kind: "none" };
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
      if (spec.mode === "files") break;
    }
  }
  if (hits.length === 0) return { kind: "none" };
  return spec.mode === "content"
    ? { kind: "hits", lines: hits, shown: shownLines(lines, hits, spec) }
    : { kind: "hits", lines: hits };
}

/**
 * Searches one file; `buffer` bounds the size (generated files, logs and data are skipped);
 * `secrets`: spec.secretKeys as a set, made once per search; `work.bytes` grows by what was read.
 */
export function searchFile(
  realPath: string,
  matcher: Matcher,
  spec: SearchSpec,
  buffer: Uint8Array,
  secrets: ReadonlySet<string>,
  work: { bytes: number } = { bytes: 0 },
): FileOutcome {
  const read = readPinned(realPath, buffer, spec.allowLinks, secrets);
  if (!("bytes" in read)) return read;
  work.bytes += read.bytes.length;
  const outcome = searchBytes(read.bytes, matcher, spec);
  const family = spec.definitionsOf === undefined ? undefined : cFamilyOf(realPath);
  if (outcome.kind !== "hits" || family === undefined || spec.definitionsOf === undefined) return outcome;
  return mayDefineIn(family, decodeText(read.bytes), spec.definitionsOf) ? outcome : { kind: "none" };
}
