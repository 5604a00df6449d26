// glob's file list through ripgrep (`rg --files`, ripgrepSearch.ts): the names of the files
// walk.ts would list under the folder, with the links to files that rg does not follow added from
// its debug lines. rg is told the pattern's last part as a file type, so it lists only names that
// could match; the pattern itself (globMatch.ts) then decides, as in the tools' own walk.
// undefined: rg could not answer; the caller walks its own way.
import { realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import type { RipgrepRunner } from "../sandbox/ripgrep/runner.ts";
import type { CompiledGlob } from "./globMatch.ts";
import { printedPaths, type RipgrepWalk, runWalk, skippedOf, visibility, walkArgs } from "./ripgrepSearch.ts";

export interface RipgrepGlob {
  runner: RipgrepRunner;
  /** `base`: the folder the glob's literal prefix names (the walk's start). */
  walk: RipgrepWalk;
  glob: CompiledGlob;
  signal: AbortSignal;
}

export interface ListedFile {
  /** Relative to the walk's base. */
  rel: string;
  abs: string;
  /** What a reader opens: abs, or a link's target. */
  realPath: string;
  link: boolean;
}

/** A last part rg's globs read as Bun.Glob does (plain names, `*`, `?`, `{a,b}`, classes), or undefined. */
function nameFilter(glob: CompiledGlob): string | undefined {
  const last = glob.rest.split("/").pop() ?? "";
  if (last === "" || last.includes("**") || !/^[\w.*?{},[\]-]+$/.test(last)) return undefined;
  return last;
}

export async function listWithRipgrep(search: RipgrepGlob): Promise<ListedFile[] | "cancelled" | undefined> {
  const name = nameFilter(search.glob);
  const args = [
    ...walkArgs(search.walk),
    "--files",
    "--null",
    ...(name === undefined ? [] : ["--type-add", `garudaglob:${name}`, "--type", "garudaglob"]),
    ".",
  ];
  const outcome = await runWalk(search.runner, search.walk, args, search.signal);
  if (outcome === undefined || outcome === "cancelled") return outcome;
  const printed = printedPaths(outcome.stdout);
  if (!printed) return undefined;
  const visible = visibility(search.walk);
  const prefix = search.glob.prefix === "" ? "" : `${search.glob.prefix}/`;
  const listed: ListedFile[] = [];
  for (const rel of printed) {
    if (!search.glob.matches(prefix + rel) || !visible(rel)) continue;
    const abs = join(search.walk.base, rel);
    listed.push({ rel, abs, realPath: abs, link: false });
  }
  for (const rel of skippedOf(outcome.stderr).links) {
    if (!search.glob.matches(prefix + rel) || !visible(rel)) continue;
    const abs = join(search.walk.base, rel);
    try {
      const realPath = realpathSync(abs);
      if (statSync(realPath).isFile() && !search.walk.withheld(realPath))
        listed.push({ rel, abs, realPath, link: true });
    } catch {
      // Dangling: not listed.
    }
  }
  return listed;
}
