// grep's search through ripgrep (ripgrepSearch.ts): rg finds the lines, each of which is tested
// again with the model's JavaScript pattern (ripgrepPattern.ts makes rg's pattern match at least
// those lines), so the hits, totals and order are those of the tools' own search (grepSearch.ts):
// every match counted, files in walk.ts's order. A file rg prints is shown only if it is still
// a plain file with one name that is no secret (a hard link or mount of a secret is left out, as
// any file with more than one name: whether it matched is not said, since which of them match would
// tell about a secret's contents). Links to files, which rg does not follow, are searched here as
// walk.ts would list them. undefined: rg could not answer; the caller searches its own way.
import { realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import type { RipgrepRunner } from "../sandbox/ripgrep/runner.ts";
import type { SecretIdentitySet } from "../files/secretIdentities.ts";
import { insideRoot } from "../permission/pathMatch.ts";
import { clipLine, type FileOutcome, type Matcher, type SearchSpec, searchFile } from "./grepSearch.ts";
import { type RustPattern, rustPattern } from "./ripgrepPattern.ts";
import { plainFile, type RipgrepWalk, runWalk, skippedOf, visibility, walkArgs, walkOrder } from "./ripgrepSearch.ts";
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

/** A link rg did not follow, searched as walk.ts and the search worker would. */
function linkOutcome(search: RipgrepGrep, rel: string, buffer: () => Uint8Array): FileOutcome | undefined {
  let real: string;
  try {
    real = realpathSync(join(search.walk.base, rel));
    const stat = statSync(real);
    if (stat.isDirectory()) return undefined;
    if (!stat.isFile()) return { kind: "special" };
  } catch {
    return undefined; // dangling
  }
  if (search.walk.withheld(real) || insideRoot(real, search.walk.root) === undefined) return undefined;
  return searchFile(real, search.matcher, search.spec, buffer(), new Set(search.spec.secretKeys));
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
    "--max-filesize",
    String(search.spec.maxBytes),
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
  const outcome = await runWalk(search.runner, search.walk, args, search.signal);
  if (outcome === undefined || outcome === "cancelled") return outcome;
  const outcomes = outcomesOf(outcome.stdout, pattern, search);
  if (!outcomes) return undefined;
  const visible = visibility(search.walk);
  const include = search.include ?? (() => true);
  const wanted = (rel: string) => include(rel) && visible(rel);
  const found: FoundFile[] = [];
  for (const [rel, result] of outcomes) {
    if (result.kind !== "hits" || !wanted(rel)) continue;
    if (plainFile(join(search.walk.base, rel), search.secrets) === "plain") found.push({ rel, outcome: result });
  }
  const skipped = skippedOf(outcome.stderr);
  for (const rel of skipped.tooBig) if (wanted(rel)) found.push({ rel, outcome: { kind: "too_big", size: 0 } });
  // As walk.ts lists them: whatever grep's glob says (the note names every pipe it did not open).
  for (const rel of skipped.special) if (visible(rel)) found.push({ rel, outcome: { kind: "special" } });
  let buffer: Uint8Array | undefined;
  for (const rel of skipped.links) {
    if (!wanted(rel)) continue;
    const result = linkOutcome(search, rel, () => {
      buffer ??= new Uint8Array(search.spec.maxBytes);
      return buffer;
    });
    if (result) found.push({ rel, outcome: result });
  }
  return found.sort((a, b) => walkOrder(a.rel, b.rel));
}
