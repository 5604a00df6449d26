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
import { decodeText } from "../textFile.ts";
import { cFamilyOf, mayDefineOnLine } from "./cDefinitionSites.ts";
import { LANGUAGE_EXTENSIONS, languageOf } from "./parser.ts";

export interface Mentions {
  /** Files to search, relative to the base, with what a reader opens. */
  files: Array<{ rel: string; realPath: string }>;
}

/** `*.[cC][pP][pP]`: a glob for an extension in any case, as languageOf reads it. */
const anyCase = (extension: string) =>
  `*.${[...extension].map((c) => (c.toLowerCase() === c.toUpperCase() ? c : `[${c.toLowerCase()}${c.toUpperCase()}]`)).join("")}`;

/**
 * The files of rg's `path\0line` output that may define `word`: every source file that mentions
 * it, but a C or C++ file only when one of its lines could be a definition (mayDefineOnLine, which
 * lets through every file the worker's test would: the worker decides).
 */
function mentioningFiles(stdout: Buffer, word: string): string[] | undefined {
  const files: string[] = [];
  let last: string | undefined;
  let start = 0;
  while (start < stdout.length) {
    let end = stdout.indexOf(10, start);
    if (end === -1) end = stdout.length;
    const nul = stdout.indexOf(0, start);
    if (nul !== -1 && nul < end) {
      const rel = stdout.toString("utf8", start, nul).replace(/^\.\//, "");
      if (rel.includes("\uFFFD")) return undefined;
      if (rel !== last) {
        const family = cFamilyOf(rel);
        if (family === undefined || mayDefineOnLine(family, decodeText(stdout.subarray(nul + 1, end)), word)) {
          files.push(rel);
          last = rel;
        }
      }
    }
    start = end + 1;
  }
  return files;
}

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
  const run = await runWalk(search.runner, search.walk, args, search.signal);
  if (run === undefined || run === "cancelled") return run;
  const printed = mentioningFiles(run.outcome.stdout, search.word);
  if (!printed) return undefined;
  const place = placeOf(search.walk);
  const files: Mentions["files"] = [];
  for (const rel of printed) {
    if (languageOf(rel) === undefined) continue;
    const at = place(rel);
    // The worker reads each file pinned; a link's target is read as walk.ts would have it read.
    if (at && !at.outside && plainFile(at, search.secrets)) files.push({ rel, realPath: at.realPath });
  }
  return { files: inWalkOrder(files, (file) => file.rel) };
}
