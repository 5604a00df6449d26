// glob's file list through ripgrep (`rg --files`, ripgrepSearch.ts): the names of the files
// walk.ts would list under the folder, links to files included. rg is told the pattern's last part as a file type, so
// it lists only names that
// could match; the pattern itself (globMatch.ts) then decides, as in the tools' own walk.
// undefined: rg could not answer; the caller walks its own way.
import { lstatSync } from "node:fs";
import type { RipgrepRunner } from "../sandbox/ripgrep/runner.ts";
import type { CompiledGlob } from "./globMatch.ts";
import { type Place, placeOf, type RipgrepWalk, runWalk, unopened, walkArgs } from "./ripgrepSearch.ts";

export interface RipgrepGlob {
  runner: RipgrepRunner;
  /** `base`: the folder the glob's literal prefix names (the walk's start). */
  walk: RipgrepWalk;
  glob: CompiledGlob;
  signal: AbortSignal;
}

/** A listed file: its path relative to the walk's base, and where it is (with the stat glob sorts by). */
export interface ListedFile {
  rel: string;
  place: Place;
}

function isLink(abs: string): boolean {
  try {
    return lstatSync(abs).isSymbolicLink();
  } catch {
    return false;
  }
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
  const place = placeOf(search.walk);
  const prefix = search.glob.prefix === "" ? "" : `${search.glob.prefix}/`;
  const listed: ListedFile[] = [];
  let unreadable = false;
  const take = (rel: string) => {
    if (!search.glob.matches(prefix + rel)) return;
    const at = place(rel);
    if (at) listed.push({ rel, place: at });
  };
  // Each name is checked as rg prints it, while rg walks on.
  const run = await runWalk(search.runner, search.walk, args, search.signal, {
    separator: 0,
    onRecord(record) {
      if (record === "") return;
      // A name that is not UTF-8 cannot be told apart from another; the tools' own walk answers.
      if (record.includes("\uFFFD")) unreadable = true;
      else take(record.replace(/^\.\//, ""));
    },
  });
  if (run === undefined || run === "cancelled") return run;
  if (unreadable) return undefined;
  // Links out of the project lead nowhere in rg's sandbox: rg names them among its errors. A
  // name may hold a line end and so spell more error lines (`x: No such file … (os error 2)\nrg:
  // ./ignored.txt`); a name there that is not a link was made up so: the tools' own walk answers.
  for (const rel of unopened(run.outcome.stderr)) {
    if (!isLink(`${search.walk.base}/${rel}`)) return undefined;
    take(rel);
  }
  return listed;
}
