// Glob patterns as ripgrep's --glob reads them: a pattern without a slash matches a file name
// at any depth (`*.ts`), one with a slash matches the path from the search folder
// (`src/**/*.ts`). `**`, `*`, `?`, `[…]` and `{a,b}` are supported (Bun.Glob).
import { basename } from "node:path";

const GLOB_CHARS = /[*?[\]{}]/;

export interface CompiledGlob {
  pattern: string;
  /** Literal leading folders (`src/lib` of `src/lib/**\/*.ts`): the only place a match can be. */
  prefix: string;
  /** The pattern relative to the prefix. */
  rest: string;
  matches(relPath: string): boolean;
}

/** A problem with the pattern, said for the model, or undefined. */
export function globProblem(pattern: string): string | undefined {
  const p = pattern.trim();
  if (p.length === 0) return "The pattern is empty. Give a glob such as **/*.ts.";
  if (p.startsWith("/") || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith("~"))
    return (
      `The pattern "${p}" is a path, not a pattern relative to the search folder. Put ` +
      `the folder in "path" and the file pattern in "pattern".`
    );
  if (p.split("/").includes(".."))
    return `The pattern "${p}" climbs out of the search folder with "..". Put the folder in "path" instead.`;
  return undefined;
}

export function compileGlob(pattern: string): CompiledGlob {
  const p = pattern.trim().replace(/^(\.\/)+/, "");
  if (!p.includes("/")) {
    const glob = new Bun.Glob(p);
    return { pattern: p, prefix: "", rest: p, matches: (rel) => glob.match(basename(rel)) };
  }
  const parts = p.split("/");
  const literal: string[] = [];
  while (parts.length > 1 && !GLOB_CHARS.test(parts[0] as string) && !(parts[0] as string).startsWith("!"))
    literal.push(parts.shift() as string);
  const glob = new Bun.Glob(p);
  return { pattern: p, prefix: literal.join("/"), rest: parts.join("/"), matches: (rel) => glob.match(rel) };
}
