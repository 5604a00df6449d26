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
import { inWalkOrder, placeOf, plainFile, type RipgrepWalk, runWalk, walkArgs } from "../ripgrepSearch.ts";
import { cFamilyOf, mayDefineOnLine } from "./cDefinitionSites.ts";
import { LANGUAGE_EXTENSIONS, languageOf } from "./parser.ts";

export interface Mentions {
  /** Files to search, relative to the base, with what a reader opens. */
  files: Array<{ rel: string; realPath: string }>;
}

/** `*.[cC][pP][pP]`: a glob for an extension in any case, as languageOf reads it. */
const anyCase = (extension: string) =>
  `*.${[...extension].map((c) => (c.toLowerCase() === c.toUpperCase() ? c : `[${c.toLowerCase()}${c.toUpperCase()}]`)).join("")}`;

export async function mentionsWithRipgrep(search: {
  runner: RipgrepRunner;
  walk: RipgrepWalk;
  word: string;
  secrets: SecretIdentitySet;
  signal: AbortSignal;
}): Promise<Mentions | "cancelled" | undefined> {
  const args = [
    ...walkArgs(search.walk),
    ...LANGUAGE_EXTENSIONS.flatMap((extension) => ["--type-add", `garudacode:${anyCase(extension)}`]),
    "--type",
    "garudacode",
    "--null",
    "--with-filename",
    "--no-heading",
    "--no-line-number",
    "--color",
    "never",
    "--fixed-strings",
    "--case-sensitive",
    "--encoding",
    "none",
    "--regexp",
    search.word,
    ".",
  ];
  const place = placeOf(search.walk);
  const files: Mentions["files"] = [];
  let last: string | undefined;
  let unreadable = false;
  // rg's `path\0line` records, taken as rg prints them: a file is taken at its first line that
  // may define the word (any line, outside C and C++), and checked then, while rg searches on.
  const take = (record: string) => {
    const nul = record.indexOf("\0");
    if (nul === -1) return;
    const rel = record.slice(0, nul).replace(/^\.\//, "");
    if (rel === last || languageOf(rel) === undefined) return;
    // A name that is not UTF-8 cannot be told apart from another; the tools' own walk answers.
    if (rel.includes("\uFFFD")) unreadable = true;
    const family = cFamilyOf(rel);
    // (A first line's byte-order mark is not text, as the worker's decoding reads it.)
    const line = record.slice(nul + 1).replace(/^\uFEFF/, "");
    if (family !== undefined && !mayDefineOnLine(family, line, search.word)) return;
    last = rel;
    const at = place(rel);
    // The worker reads each file pinned; a link's target is read as walk.ts would have it read.
    if (at && !at.outside && plainFile(at, search.secrets)) files.push({ rel, realPath: at.realPath });
  };
  const run = await runWalk(search.runner, search.walk, args, search.signal, { separator: 10, onRecord: take });
  if (run === undefined || run === "cancelled") return run;
  return unreadable ? undefined : { files: inWalkOrder(files, (file) => file.rel) };
}
