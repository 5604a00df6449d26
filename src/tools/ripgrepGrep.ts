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

/** rg's `path\0line:text` (a match) and `path\0line-text` (context) lines, by file. */
function parse(stdout: Buffer): Map<string, Lines> | undefined {
  const files = new Map<string, Lines>();
  let start = 0;
  while (start < stdout.length) {
    let end = stdout.indexOf(10, start);
    if (end === -1) end = stdout.length;
    const nul = stdout.indexOf(0, start);
    if (nul !== -1 && nul < end) {
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

/** rg's `path\0count\n` (count mode) or `path\0` (files mode) lines, by file. */
function parseTotals(stdout: Buffer, mode: "count" | "files"): Map<string, number> | undefined {
  const files = new Map<string, number>();
  const text = stdout.toString("utf8");
  const entries = mode === "files" ? text.split("\0") : text.split("\n");
  for (const entry of entries) {
    if (entry === "") continue;
    const nul = entry.indexOf("\0");
    const rel = (mode === "files" ? entry : entry.slice(0, nul)).replace(/^\.\//, "");
    if (rel.includes("\uFFFD") || (mode === "count" && nul === -1)) return undefined;
    files.set(rel, mode === "files" ? 1 : Number(entry.slice(nul + 1)));
  }
  return files;
}

/** What rg printed for each file, as the outcome the tools' own search would give. */
function outcomesOf(stdout: Buffer, pattern: RustPattern, search: RipgrepGrep): Map<string, FileOutcome> | undefined {
  const { spec, matcher } = search;
  const outcomes = new Map<string, FileOutcome>();
  if (pattern.exact && spec.mode !== "content") {
    const totals = parseTotals(stdout, spec.mode);
    if (!totals) return undefined;
    // Counts only: the line numbers are not known and not needed (grep counts and names files).
    for (const [rel, count] of totals) outcomes.set(rel, { kind: "hits", lines: new Array<number>(count).fill(0) });
    return outcomes;
  }
  const files = parse(stdout);
  if (!files) return undefined;
  for (const [rel, lines] of files) outcomes.set(rel, outcomeOf(lines, matcher, spec));
  return outcomes;
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
  const run = await runWalk(search.runner, search.walk, args, search.signal);
  if (run === undefined || run === "cancelled") return run;
  const outcomes = outcomesOf(run.outcome.stdout, pattern, search);
  if (!outcomes) return undefined;
  const place = placeOf(search.walk);
  const changed = changedFolders(search.walk, run.startedMs);
  const include = search.include ?? (() => true);
  const secretKeys = new Set(search.spec.secretKeys);
  let buffer: Uint8Array | undefined;
  const found: FoundFile[] = [];
  for (const [rel, fromRg] of outcomes) {
    if (fromRg.kind !== "hits" || !include(rel)) continue;
    const at = place(rel);
    // walk.ts's grep skips a link out of the project; anything not plain is left out unnamed.
    if (!at || at.outside || !plainFile(at, search.secrets)) continue;
    // Files over the size the tools' own search reads are not searched (rg's --max-filesize would
    // cost a stat of every file; the one each hit gets here says it).
    if (at.file.size > search.spec.maxBytes) continue;
    if (!at.link && !changed(at.abs)) {
      found.push({ rel, outcome: fromRg });
      continue;
    }
    buffer ??= new Uint8Array(search.spec.maxBytes);
    const own = searchFile(at.realPath, search.matcher, search.spec, buffer, secretKeys);
    if (own.kind === "hits") found.push({ rel, outcome: own });
  }
  return inWalkOrder(found, (file) => file.rel);
}
