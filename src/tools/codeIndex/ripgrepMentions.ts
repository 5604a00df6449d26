// find_definition's first step through ripgrep (../ripgrepSearch.ts): the source files under the
// folder that mention the name, in walk.ts's order, which the search worker then reads as it reads
// every file of the tools' own walk (the same checks, and in C and C++ the same test of whether a
// mention could be a definition). rg only saves the walk and the reading of the files that never
// mention the name. A file with more than one name, or a secret's, is left out here without a word:
// the worker would name it only because rg said it mentions the name, which would tell about a
// secret's contents. undefined: rg could not answer; the caller walks its own way.
import type { RipgrepRunner } from "../../sandbox/ripgrep/runner.ts";
import type { SecretIdentitySet } from "../../files/secretIdentities.ts";
import { placeOf, plainFile, printedPaths, type RipgrepWalk, runWalk, walkArgs, walkOrder } from "../ripgrepSearch.ts";
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
  maxBytes: number;
  secrets: SecretIdentitySet;
  signal: AbortSignal;
}): Promise<Mentions | "cancelled" | undefined> {
  const args = [
    ...walkArgs(search.walk),
    ...LANGUAGE_EXTENSIONS.flatMap((extension) => ["--type-add", `garudacode:${anyCase(extension)}`]),
    "--type",
    "garudacode",
    "--files-with-matches",
    "--null",
    "--fixed-strings",
    "--case-sensitive",
    "--encoding",
    "none",
    "--max-filesize",
    String(search.maxBytes),
    "--regexp",
    search.word,
    ".",
  ];
  const run = await runWalk(search.runner, search.walk, args, search.signal);
  if (run === undefined || run === "cancelled") return run;
  const printed = printedPaths(run.outcome.stdout);
  if (!printed) return undefined;
  const place = placeOf(search.walk);
  const files: Mentions["files"] = [];
  for (const rel of printed) {
    if (languageOf(rel) === undefined) continue;
    const at = place(rel);
    // The worker reads each file pinned; a link's target is read as walk.ts would have it read.
    if (at && !at.outside && plainFile(at.realPath, search.secrets)) files.push({ rel, realPath: at.realPath });
  }
  return { files: files.sort((a, b) => walkOrder(a.rel, b.rel)) };
}
