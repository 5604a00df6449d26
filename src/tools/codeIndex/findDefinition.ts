// find_definition: where a name is declared across the project, from real parses. Files are
// first filtered by a plain text test for the name, so only the few that mention it are parsed.
import { statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { FileToolDeps } from "../fileToolDeps.ts";
import { MAX_SEARCH_BYTES } from "../grepSearch.ts";
import { displayPath, pathPreview, pathTarget, placeName, resolveToolPath } from "../paths.ts";
import { MAX_TEXT_BYTES, readSearchableText } from "../textFile.ts";
import type { Tool, ToolResult } from "../types.ts";
import { walkFiles } from "../walk.ts";
import description from "./findDefinition.txt" with { type: "text" };
import { definitionLine } from "./format.ts";
import { languageOf, outline } from "./parser.ts";
import { type CodeSymbol, flatten } from "./symbol.ts";

export const MAX_DEFINITIONS = 50;
export const MAX_PARSED_FILES = 2000;

const NAME = /^[\p{L}_$#][\p{L}\p{N}_$]*(\.[\p{L}_$#][\p{L}\p{N}_$]*)*$/u;

const input = z.object({
  name: z.string().min(1).describe("The name, plain (`load`) or with its container (`Client.send`)."),
  path: z.string().optional().describe("Folder or file to search (default: the whole project)."),
});
export type FindDefinitionInput = z.infer<typeof input>;

const error = (output: string): ToolResult => ({ output, isError: true });

/** Whether a symbol is a definition of the (possibly qualified) name. */
export function definesName(symbol: CodeSymbol, name: string): boolean {
  if (symbol.kind === "impl") return false;
  const dot = name.lastIndexOf(".");
  if (dot < 0) return symbol.name === name;
  const container = name.slice(0, dot);
  return symbol.name === name.slice(dot + 1) && symbol.container !== undefined && (symbol.container === container || symbol.container.endsWith(`.${container}`));
}

export interface FindDefinitionLimits {
  /** How many files that mention the name are parsed at most. */
  maxParsedFiles?: number;
}

export function findDefinitionTool(deps: FileToolDeps, limits: FindDefinitionLimits = {}): Tool<FindDefinitionInput> {
  const maxParsed = limits.maxParsedFiles ?? MAX_PARSED_FILES;
  return {
    name: "find_definition",
    description,
    input,
    readOnly: true,
    describe(args, root) {
      const base = resolveToolPath(args.path ?? ".", root);
      return { title: `Search ${args.name}`, kind: "search", locations: [{ path: base.path }] };
    },
    permission(args, ctx) {
      const base = resolveToolPath(args.path ?? ".", ctx.root, ctx.home);
      return { tool: "find_definition", readOnly: true, target: pathTarget(base, "read"), preview: `${args.name} in ${pathPreview(base)}` };
    },
    async run(args, ctx) {
      const name = args.name.trim();
      if (!NAME.test(name)) return error(`"${name}" is not a name. Give an identifier such as createClient, or Container.member; use grep to search for other text.`);
      const word = name.slice(name.lastIndexOf(".") + 1);
      const base = resolveToolPath(args.path ?? ".", ctx.root, ctx.home);
      let isDir: boolean;
      try {
        isDir = statSync(base.realPath).isDirectory();
      } catch {
        return error(`Not found: ${base.display}. Give an existing folder or file in "path", or leave it out to search the whole project.`);
      }
      const candidates: Array<{ display: string; real: string }> = [];
      let parsedCap = false;
      const consider = (display: string, real: string): boolean => {
        if (!languageOf(real) && !languageOf(display)) return true;
        if (candidates.length >= maxParsed) {
          parsedCap = true;
          return false;
        }
        candidates.push({ display, real });
        return true;
      };
      if (isDir) {
        const stats = await walkFiles({
          root: ctx.root,
          base: base.realPath,
          signal: ctx.signal,
          hidden: deps.hidden,
          onFile(file) {
            if (file.outside || !(languageOf(file.rel) ?? false)) return;
            const real = file.realPath ?? file.abs;
            const text = readSearchableText(real, MAX_SEARCH_BYTES);
            if (text === undefined || !text.includes(word)) return;
            return consider(displayPath(join(base.path, file.rel), ctx.root), real);
          },
        });
        if (stats.aborted) return error("Cancelled.");
      } else if (deps.hidden(base.path) || deps.hidden(base.realPath)) {
        return error(`${base.display} may not be read (the policy hides it).`);
      } else if (!languageOf(base.realPath) && !languageOf(base.path)) {
        return error(`find_definition reads TypeScript, JavaScript, Python, Go and Rust files; ${base.display} is none of these. Use grep instead.`);
      } else {
        consider(base.display, base.realPath);
      }

      const found: string[] = [];
      let more = 0;
      for (const candidate of candidates) {
        if (ctx.signal.aborted) return error("Cancelled.");
        const text = readSearchableText(candidate.real, isDir ? MAX_SEARCH_BYTES : MAX_TEXT_BYTES);
        const language = languageOf(candidate.real) ?? languageOf(candidate.display);
        if (text === undefined || !language || !text.includes(word)) continue;
        for (const symbol of flatten(await outline(text, language))) {
          if (!definesName(symbol, name)) continue;
          if (found.length < MAX_DEFINITIONS) found.push(definitionLine(candidate.display, symbol));
          else more++;
        }
      }
      const notes: string[] = [];
      if (more > 0) notes.push(`[Showing ${MAX_DEFINITIONS} of ${MAX_DEFINITIONS + more} definitions. Qualify the name (Container.${word}) or narrow the path.]`);
      if (parsedCap) notes.push(`[Stopped after ${maxParsed.toLocaleString("en-US")} files that mention ${word}; there may be more definitions. Narrow the search with path.]`);
      if (found.length === 0) {
        return {
          output: [`No definition of ${name} found in ${placeName(base)} (TypeScript, JavaScript, Python, Go and Rust files; .gitignore'd files are skipped). Try grep for the text.`, ...notes].join("\n"),
          summary: "No definitions",
        };
      }
      const total = found.length + more;
      return { output: [...found, ...notes].join("\n"), summary: `${total} definition${total === 1 ? "" : "s"}` };
    },
  };
}
