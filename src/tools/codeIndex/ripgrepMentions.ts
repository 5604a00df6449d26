// find_definition's first step through ripgrep (../ripgrepSearch.ts): the source files under the
// folder that mention the name, in walk.ts's order, which the search worker then reads as it reads
// every file of the tools' own walk (the same checks, and in C and C++ the same test of whether a
// mention could be a definition). rg only saves the walk and the reading of the files that never
// mention the name. A file with more than one name, or a secret's, is left out here without a word:
// the worker would name it only because rg said it mentions the name, which would tell about a
// secret's contents. undefined: rg could not answer; the caller walks its own way.
import { realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import type { RipgrepRunner } from "../../sandbox/ripgrep/runner.ts";
import type { SecretIdentitySet } from "../../files/secretIdentities.ts";
import { insideRoot } from "../../permission/pathMatch.ts";
import {
  plainFile,
  printedPaths,
  type RipgrepWalk,
  runWalk,
  skippedOf,
  visibility,
  walkArgs,
  walkOrder,
} from "../ripgrepSearch.ts";
import { LANGUAGE_EXTENSIONS, languageOf } from "./parser.ts";

export interface Mentions {
  /** Files to search, relative to the base, with what a reader opens. */
  files: Array<{ rel: string; realPath: string }>;
  /** Source files that are pipes or devices (walk.ts lists them; find_definition names them). */
  special: string[];
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
  const outcome = await runWalk(search.runner, search.walk, args, search.signal);
  if (outcome === undefined || outcome === "cancelled") return outcome;
  const printed = printedPaths(outcome.stdout);
  if (!printed) return undefined;
  const visible = visibility(search.walk);
  const wanted = (rel: string) => languageOf(rel) !== undefined && visible(rel);
  const files: Mentions["files"] = [];
  for (const rel of printed) {
    const realPath = join(search.walk.base, rel);
    if (wanted(rel) && plainFile(realPath, search.secrets) === "plain") files.push({ rel, realPath });
  }
  const skipped = skippedOf(outcome.stderr);
  // Links rg does not follow: the worker searches their targets, as after the tools' own walk.
  const special = skipped.special.filter(wanted);
  for (const rel of skipped.links) {
    if (!wanted(rel)) continue;
    try {
      const realPath = realpathSync(join(search.walk.base, rel));
      const stat = statSync(realPath);
      if (!stat.isFile()) {
        if (!stat.isDirectory()) special.push(rel);
        continue;
      }
      const inside = insideRoot(realPath, search.walk.root) !== undefined;
      if (inside && !search.walk.withheld(realPath)) files.push({ rel, realPath });
    } catch {
      // Dangling.
    }
  }
  return { files: files.sort((a, b) => walkOrder(a.rel, b.rel)), special: special.sort(walkOrder) };
}
