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

interface Lines {
  /** Line numbers rg reported as matching. */
  matched: number[];
  text: Map<number, string>;
}

/** The line rg prints between groups of context lines: the only one without a file's name. */
const GROUP_BREAK = Buffer.from("--");

/**
 * rg's `path\0line:text` (a match) and `path\0line-text` (context) lines, by file. A name may hold
 * a line end: `./x\nREADME.md\0…` (a link to .env by that name) would read as README.md's line.
 * Every name starts a line with `./`, so a line with no NUL other than the group break says so;
 * then nothing is taken from rg (undefined) and the tools' own search answers.
 */
function parse(stdout: Buffer): Map<string, Lines> | undefined {
  const files = new Map<string, Lines>();
  let start = 0;
  while (start < stdout.length) {
    let end = stdout.indexOf(10, start);
    if (end === -1) end = stdout.length;
    const nul = stdout.indexOf(0, start);
    if (nul === -1 || nul > end) {
      if (!stdout.subarray(start, end).equals(GROUP_BREAK)) return undefined;
    } else {
      const rel = stdout.toString("utf8", start, nul).replace(/^\.\//, "");
      // A name that is not UTF-8 cannot be told apart from another; the tools' own search answers.
      if (rel.includes("\uFFFD")) return undefined;
      let at = nul + 1;
      let line = 0;
      while (at < end && (stdout[at] as number) >= 48 && (stdout[at] as number) <= 57)
        line = line * 10 + (stdout[at++] as number) - 48;
      const kind = stdout[at];
      let text = decodeText(stdout.subarray(at + 1, end));
      if (text.endsWith("\r")) text = text.slice(0, -1);
      let lines = files.get(rel);
      if (!lines) {
        lines = { matched: [], text: new Map() };
        files.set(rel, lines);
      }
      if (kind === 58) lines.matched.push(line); // ':'
      lines.text.set(line, text);
    }
    start = end + 1;
  }
  return files;
}

/** One file's outcome from rg's lines: the JavaScript pattern decides which are hits. */
function outcomeOf(lines: Lines, matcher: Matcher, spec: SearchSpec): FileOutcome {
  const hits = lines.matched.filter((line) => matcher.line.test(lines.text.get(line) as string));
  if (hits.length === 0) return { kind: "none" };
  if (spec.mode === "files") return { kind: "hits", lines: hits.slice(0, 1) };
  if (spec.mode === "count") return { kind: "hits", lines: hits };
  const wanted = new Set<number>();
  for (const hit of hits.slice(0, spec.maxShown))
    for (let line = Math.max(1, hit - spec.context); line <= hit + spec.context; line++)
      if (lines.text.has(line)) wanted.add(line);
  const shown = [...wanted]
    .sort((a, b) => a - b)
    .map((line): [number, string] => [line, clipLine(lines.text.get(line) as string)]);
  return { kind: "hits", lines: hits, shown };
}

/** A count-mode (`path\0count`) or files-mode (`path`) record: the file and its outcome, or undefined when unreadable. */
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
 * What is kept of rg's answer for one file, into `found` (see the top of this file): a plain file
 * under folders that did not change keeps rg's outcome; a link, or a file under a folder that
 * changed, is searched again by the tools' own pinned read.
 */
function keeper(
  search: RipgrepGrep,
  startedMs: number,
  found: FoundFile[],
): (rel: string, fromRg: FileOutcome) => void {
  const place = placeOf(search.walk);
  const changed = changedFolders(search.walk, startedMs);
  const include = search.include ?? (() => true);
  const secretKeys = new Set(search.spec.secretKeys);
  let buffer: Uint8Array | undefined;
  return (rel, fromRg) => {
    if (fromRg.kind !== "hits" || !include(rel)) return;
    const at = place(rel);
    // walk.ts's grep skips a link out of the project; anything not plain is left out unnamed.
    if (!at || at.outside || !plainFile(at, search.secrets)) return;
    // Files over the size the tools' own search reads are not searched (rg's --max-filesize would
    // cost a stat of every file; the one each hit gets here says it).
    if (at.file.size > search.spec.maxBytes) return;
    if (!at.link && !changed(at.abs)) {
      found.push({ rel, outcome: fromRg });
      return;
    }
    buffer ??= new Uint8Array(search.spec.maxBytes);
    const own = searchFile(at.realPath, search.matcher, search.spec, buffer, secretKeys);
    if (own.kind === "hits") found.push({ rel, outcome: own });
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
          keep(total.rel, total.outcome);
        }
      },
    });
    if (run === undefined || run === "cancelled" || unreadable) return run === "cancelled" ? run : undefined;
    return inWalkOrder(found, (file) => file.rel);
  }
  const run = await runWalk(search.runner, search.walk, args, search.signal);
  if (run === undefined || run === "cancelled") return run;
  const files = parse(run.outcome.stdout);
  if (!files) return undefined;
  const keep = keeper(search, run.startedMs, found);
  for (const [rel, lines] of files) keep(rel, outcomeOf(lines, search.matcher, search.spec));
  return inWalkOrder(found, (file) => file.rel);
}
