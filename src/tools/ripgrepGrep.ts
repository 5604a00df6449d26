// grep's search through ripgrep (ripgrepSearch.ts): rg finds the files and lines, the answer is
// the tools' own (grepSearch.ts): the same hits and totals, files in walk.ts's order. Where rg's
// pattern is not exactly JavaScript's, each line it reports is tested again with the JavaScript
// pattern (ripgrepPattern.ts makes rg's match at least those lines).
//
// rg reads a file by its name, as it finds it; the tools' own search opens each file once,
// pinned (checkedFile.ts), so a name swapped for a link to another file (a .env) meanwhile is
// never read. Here a hit is kept from rg only when nothing on its way changed since rg started
// (its folders' ctime) and it is a plain file (one name, no secret's identity); a link's hits,
// and those under a folder that changed, come from the tools' own pinned read of the file. A
// file with more than one name, or a secret's, is left out without a word: naming only those
// rg found a match in would tell about a secret's contents. undefined: rg could not answer; the
// caller searches its own way.
import type { RipgrepRunner } from "../sandbox/ripgrep/runner.ts";
import type { SecretIdentitySet } from "../files/secretIdentities.ts";
import { clipLine, type FileOutcome, type Matcher, type SearchSpec, searchFile } from "./grepSearch.ts";
import { type RustPattern, rustPattern } from "./ripgrepPattern.ts";
import {
  changedFolders,
  inWalkOrder,
  placeOf,
  plainFile,
  type RipgrepWalk,
  runWalk,
  walkArgs,
} from "./ripgrepSearch.ts";
import { decodeText } from "./textFile.ts";

export interface RipgrepGrep {
  runner: RipgrepRunner;
  walk: RipgrepWalk;
  spec: SearchSpec;
  matcher: Matcher;
  secrets: SecretIdentitySet;
  /** Only files whose path from the base passes (grep's glob). */
  include?: (rel: string) => boolean;
  signal: AbortSignal;
}

export interface FoundFile {
  /** Relative to the base, with `/`. */
  rel: string;
  outcome: FileOutcome;
}

/**
 * The line rg prints between groups of context lines (with --crlf, ending in \r): the only one without a file's name.
 */
const GROUP_BREAKS = [Buffer.from("--"), Buffer.from("--\r")];

/** One of rg's `path\0line:text` (a match) and `path\0line-text` (context) lines. */
interface PrintedLine {
  rel: string;
  line: number;
  match: boolean;
  text: string;
}

/**
 * One printed line, "break" for the group break, or undefined when rg's answer cannot be taken.
 * A name may hold a line end: `./x\nREADME.md\0…` (a link to .env by that name) would read as
 * README.md's line. Every name starts a line with `./`, so a line with no NUL other than the
 * group break says so; then nothing is taken from rg and the tools' own search answers.
 */
function printedLine(record: Buffer): PrintedLine | "break" | undefined {
  const nul = record.indexOf(0);
  if (nul === -1) return GROUP_BREAKS.some((line) => record.equals(line)) ? "break" : undefined;
  const rel = record.toString("utf8", 0, nul).replace(/^\.\//, "");
  // A name that is not UTF-8 cannot be told apart from another; the tools' own search answers.
  if (rel.includes("\uFFFD")) return undefined;
  let at = nul + 1;
  let line = 0;
  while (at < record.length && (record[at] as number) >= 48 && (record[at] as number) <= 57)
    line = line * 10 + (record[at++] as number) - 48;
  let text = decodeText(record.subarray(at + 1));
  if (text.endsWith("\r")) text = text.slice(0, -1);
  return { rel, line, match: record[at] === 58, text }; // ':'
}

/**
 * One file's outcome from its printed lines, in order: the JavaScript pattern decides which are
 * hits. Only what the answer needs is kept — every hit's number, the text of the first maxShown
 * hits and their context — so a file of millions of matching lines costs their numbers, not
 * their text (rg prints up to 256 MB; kept whole, that was gigabytes in the agent).
 */
function fileLines(matcher: Matcher, spec: SearchSpec): { add(printed: PrintedLine): void; outcome(): FileOutcome } {
  const hits: number[] = [];
  const shown = new Map<number, string>();
  const recent: PrintedLine[] = [];
  let shownUntil = 0;
  return {
    add(printed) {
      const { line, text } = printed;
      if (printed.match && matcher.line.test(text)) {
        hits.push(line);
        if (hits.length <= spec.maxShown) {
          for (const before of recent)
            if (before.line >= line - spec.context) shown.set(before.line, clipLine(before.text));
          shownUntil = line + spec.context;
        }
      }
      if (line <= shownUntil) shown.set(line, clipLine(text));
      if (spec.context > 0) {
        recent.push(printed);
        if (recent.length > spec.context) recent.shift();
      }
    },
    outcome() {
      if (hits.length === 0) return { kind: "none" };
      if (spec.mode === "files") return { kind: "hits", lines: hits.slice(0, 1) };
      if (spec.mode === "count") return { kind: "hits", lines: hits };
      return { kind: "hits", lines: hits, shown: [...shown].sort((a, b) => a[0] - b[0]) };
    },
  };
}

/**
 * A count-mode (`path\0count`) or files-mode (`path`) record: the file and its outcome, or undefined when unreadable.
 */
function totalOf(record: string, mode: "count" | "files"): { rel: string; outcome: FileOutcome } | undefined {
  const nul = mode === "count" ? record.indexOf("\0") : record.length;
  const rel = record.slice(0, nul).replace(/^\.\//, "");
  const count = mode === "count" ? Number(record.slice(nul + 1)) : 1;
  // A name that is not UTF-8 cannot be told apart from another; the tools' own search answers.
  if (nul === -1 || rel.includes("\uFFFD") || !Number.isInteger(count)) return undefined;
  // Counts only: the line numbers are not known and not needed (grep counts and names files).
  return { rel, outcome: { kind: "hits", lines: new Array<number>(count).fill(0) } };
}

/**
 * What is kept of rg's answer for one file, into `found` (see the top of this file): undefined
 * when the file is left out whatever its lines; else what takes its outcome. A plain file under
 * folders that did not change keeps rg's outcome; a link, or a file under a folder that changed,
 * is searched again by the tools' own pinned read.
 */
function keeper(
  search: RipgrepGrep,
  startedMs: number,
  found: FoundFile[],
): (rel: string) => ((fromRg: FileOutcome) => void) | undefined {
  const place = placeOf(search.walk);
  const changed = changedFolders(search.walk, startedMs);
  const include = search.include ?? (() => true);
  const secretKeys = new Set(search.spec.secretKeys);
  let buffer: Uint8Array | undefined;
  return (rel) => {
    if (!include(rel)) return undefined;
    const at = place(rel);
    // walk.ts's grep skips a link out of the project; anything not plain is left out unnamed.
    if (!at || at.outside || !plainFile(at, search.secrets)) return undefined;
    // Files over the size the tools' own search reads are not searched (rg's --max-filesize would
    // cost a stat of every file; the one each hit gets here says it).
    if (at.file.size > search.spec.maxBytes) return undefined;
    return (fromRg) => {
      if (fromRg.kind !== "hits") return;
      if (!at.link && !changed(at.abs)) {
        found.push({ rel, outcome: fromRg });
        return;
      }
      buffer ??= new Uint8Array(search.spec.maxBytes);
      const own = searchFile(at.realPath, search.matcher, search.spec, buffer, secretKeys);
      if (own.kind === "hits") found.push({ rel, outcome: own });
    };
  };
}

/** How rg prints: counts or names where they are all grep needs, else every matching line. */
function outputArgs(pattern: RustPattern, spec: SearchSpec): string[] {
  if (pattern.exact && spec.mode === "count") return ["--count"];
  if (pattern.exact && spec.mode === "files") return ["--files-with-matches"];
  return [
    "--line-number",
    "--no-heading",
    "--with-filename",
    ...(spec.context > 0 ? ["--context", String(spec.context)] : []),
  ];
}

export async function grepWithRipgrep(search: RipgrepGrep): Promise<FoundFile[] | "cancelled" | undefined> {
  const pattern = rustPattern(search.spec.pattern, search.spec.ignoreCase);
  if (pattern === undefined) return undefined;
  const args = [
    ...walkArgs(search.walk),
    "--encoding",
    "none",
    "--crlf",
    "--null",
    "--color",
    "never",
    ...outputArgs(pattern, search.spec),
    pattern.ignoreCase ? "--ignore-case" : "--case-sensitive",
    "--regexp",
    pattern.pattern,
    ".",
  ];
  const found: FoundFile[] = [];
  const mode = search.spec.mode;
  if (pattern.exact && mode !== "content") {
    // Counts or names: each file is checked as rg prints it, while rg searches on.
    let keep: ReturnType<typeof keeper> | undefined;
    let unreadable = false;
    const run = await runWalk(search.runner, search.walk, args, search.signal, {
      separator: mode === "files" ? 0 : 10,
      onRecord(record, startedMs) {
        if (record === "") return;
        const total = totalOf(record, mode);
        if (!total) unreadable = true;
        else if (!unreadable) {
          keep ??= keeper(search, startedMs, found);
          keep(total.rel)?.(total.outcome);
        }
      },
    });
    if (run === undefined || run === "cancelled" || unreadable) return run === "cancelled" ? run : undefined;
    return inWalkOrder(found, (file) => file.rel);
  }
  // Every matching line: each file is kept or dropped as its last line is printed (rg prints a
  // file's lines together, in order), while rg searches on; a file left out whatever its lines
  // (too big, not plain) has them dropped as they come.
  let keep: ReturnType<typeof keeper> | undefined;
  let file: { rel: string; lines?: ReturnType<typeof fileLines>; take?: (fromRg: FileOutcome) => void } | undefined;
  const finished = new Set<string>();
  let unreadable = false;
  const finish = () => {
    if (file?.lines && file.take) file.take(file.lines.outcome());
    file = undefined;
  };
  const run = await runWalk(search.runner, search.walk, args, search.signal, {
    separator: 10,
    onBytes(record, startedMs) {
      if (unreadable) return;
      const printed = printedLine(record);
      if (printed === "break") return;
      if (printed === undefined) {
        unreadable = true;
        return;
      }
      if (printed.rel !== file?.rel) {
        finish();
        // A file printed in two parts: not rg's way; its answer is not taken.
        if (finished.has(printed.rel)) unreadable = true;
        finished.add(printed.rel);
        keep ??= keeper(search, startedMs, found);
        const take = keep(printed.rel);
        file = take ? { rel: printed.rel, lines: fileLines(search.matcher, search.spec), take } : { rel: printed.rel };
      }
      file?.lines?.add(printed);
    },
  });
  if (run === undefined || run === "cancelled" || unreadable) return run === "cancelled" ? run : undefined;
  finish();
  return inWalkOrder(found, (file) => file.rel);
}
