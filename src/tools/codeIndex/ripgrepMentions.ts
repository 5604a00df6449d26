// find_definition's first step through ripgrep (../ripgrepSearch.ts): the source files under the
// folder that mention the name — in C and C++ only those with a line that could define it — in
// walk.ts's order. The search worker then reads each as it reads every file of the tools' own
// walk (pinned, the same checks, the same test of whether a C or C++ mention could be a
// definition), so the answer is the tools' own; rg saves the walk and the reading of the files
// that never mention the name or only use it. A file with more than one name, or a secret's, is
// left out here without a word: the worker would name it only because rg said it mentions the
// name, which would tell about a secret's contents. undefined: rg could not answer; the caller
// walks its own way.
import type { RipgrepRunner } from "../../sandbox/ripgrep/runner.ts";
import type { SecretIdentitySet } from "../../files/secretIdentities.ts";
import {
  inWalkOrder,
  besideThreads,
  placeOf,
  plainFile,
  type RipgrepWalk,
  runWalk,
  walkArgs,
} from "../ripgrepSearch.ts";
import { C_FAMILY_EXTENSIONS, cFamilyOf, mayDefineOnLine } from "./cDefinitionSites.ts";
import { LANGUAGE_EXTENSIONS, languageOf } from "./parser.ts";

export interface Mentions {
  /** Files to search, relative to the base, with what a reader opens. */
  files: Array<{ rel: string; realPath: string }>;
}

/** `*.[cC][pP][pP]`: a glob for an extension in any case, as languageOf reads it. */
const C_EXTENSIONS = Object.keys(C_FAMILY_EXTENSIONS);
const OTHER_EXTENSIONS = LANGUAGE_EXTENSIONS.filter((extension) => !C_EXTENSIONS.includes(extension));

const anyCase = (extension: string) => {
  const letters = [...extension].map((c) =>
    c.toLowerCase() === c.toUpperCase() ? c : `[${c.toLowerCase()}${c.toUpperCase()}]`,
  );
  return `*.${letters.join("")}`;
};

/**
 * Where a C or C++ mention may be a definition (mayDefineOnLine), as a Rust pattern that matches at least those lines.
 */
export function definitionLinePattern(word: string): string {
  const escaped = word.replace(/[\\.+*?()|[\]{}^$#&\-~]/g, "\\$&");
  // At the line's start, or after a word (a type, `#define`) or one of * & } : ~ ) > / " ' (the
  // last three: a comment or a string just before), with blanks between; then not a longer name.
  return `(?:^|[\\p{L}\\p{N}_$*&}:~)>/"'])[ \\t]*${escaped}(?:[^\\p{L}\\p{N}_$]|$)`;
}

export interface MentionSearch {
  runner: RipgrepRunner;
  walk: RipgrepWalk;
  word: string;
  secrets: SecretIdentitySet;
  signal: AbortSignal;
}

/**
 * Two rg runs at once: C and C++ files for the lines where the word may be defined (most of a
 * C project's mentions are calls, which rg then neither prints nor hands over), the other
 * languages for the files that mention it at all.
 */
export async function mentionsWithRipgrep(search: MentionSearch): Promise<Mentions | "cancelled" | undefined> {
  const place = placeOf(search.walk);
  const files: Mentions["files"] = [];
  let unreadable = false;
  const take = (rel: string) => {
    // A name that is not UTF-8 cannot be told apart from another; the tools' own walk answers.
    if (rel.includes("\uFFFD")) unreadable = true;
    const at = place(rel);
    // The worker reads each file pinned; a link's target is read as walk.ts would have it read.
    if (at && !at.outside && plainFile(at, search.secrets)) files.push({ rel, realPath: at.realPath });
  };
  const types = (name: string, extensions: readonly string[]) => [
    ...extensions.flatMap((extension) => ["--type-add", `${name}:${anyCase(extension)}`]),
    "--type",
    name,
  ];
  const common = [...walkArgs(search.walk), "--null", "--color", "never", "--case-sensitive", "--encoding", "none"];
  let last: string | undefined;
  const cRun = runWalk(
    search.runner,
    search.walk,
    [
      ...common,
      ...types("garudac", C_EXTENSIONS),
      "--with-filename",
      "--no-heading",
      "--no-line-number",
      "--regexp",
      definitionLinePattern(search.word),
      ".",
    ],
    search.signal,
    {
      separator: 10,
      // `path\0line` records, as rg prints them: a file is taken at its first line that may define the word.
      onRecord(record) {
        const nul = record.indexOf("\0");
        const rel = record.slice(0, nul).replace(/^\.\//, "");
        const family = cFamilyOf(rel);
        if (nul === -1 || rel === last || family === undefined) return;
        // (A first line's byte-order mark is not text, as the worker's decoding reads it.)
        if (!mayDefineOnLine(family, record.slice(nul + 1).replace(/^\uFEFF/, ""), search.word)) return;
        last = rel;
        take(rel);
      },
    },
  );
  const otherRun = runWalk(
    search.runner,
    search.walk,
    [
      ...common,
      ...types("garudaother", OTHER_EXTENSIONS),
      // Mostly a walk (a C project has few such files), beside the C search: one core left to that.
      ...besideThreads(),
      "--files-with-matches",
      "--fixed-strings",
      "--regexp",
      search.word,
      ".",
    ],
    search.signal,
    {
      separator: 0,
      onRecord(record) {
        const rel = record.replace(/^\.\//, "");
        if (rel !== "" && languageOf(rel) !== undefined) take(rel);
      },
    },
  );
  const [cDone, otherDone] = await Promise.all([cRun, otherRun]);
  if (cDone === "cancelled" || otherDone === "cancelled") return "cancelled";
  if (cDone === undefined || otherDone === undefined || unreadable) return undefined;
  return { files: inWalkOrder(files, (file) => file.rel) };
}
