// grep: a regular expression over the project's files, in-process (only src/sandbox may start a
// program, so no ripgrep), respecting .gitignore and the session's hidden paths.
import { statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { FileToolDeps } from "./fileToolDeps.ts";
import { compileGlob, globProblem } from "./globMatch.ts";
import description from "./grep.txt" with { type: "text" };
import { compilePattern, type FileOutcome, type GrepMode, MAX_SEARCH_BYTES, searchBuffer, searchFile } from "./grepSearch.ts";
import { displayPath, pathPreview, pathTarget, placeName, resolveToolPath } from "./paths.ts";
import { formatBytes, MAX_TEXT_BYTES } from "./textFile.ts";
import type { Tool, ToolResult } from "./types.ts";
import { walkFiles } from "./walk.ts";

export const DEFAULT_MAX_RESULTS = 100;
export const MAX_RESULTS = 500;
const MAX_OUTPUT_CHARS = 50_000;
const MAX_LINE_CHARS = 500;

const input = z.object({
  pattern: z.string().min(1).describe("JavaScript regular expression, matched per line."),
  path: z.string().optional().describe("Folder or file (default: project root)."),
  glob: z.string().optional().describe("Only files matching this glob."),
  ignoreCase: z.boolean().optional(),
  mode: z.enum(["content", "files", "count"]).optional(),
  context: z.number().int().min(0).max(5).optional().describe("Context lines (content mode)."),
  maxResults: z.number().int().min(1).max(MAX_RESULTS).optional(),
});
export type GrepInput = z.infer<typeof input>;

const error = (output: string): ToolResult => ({ output, isError: true });
const n = (value: number) => value.toLocaleString("en-US");
const plural = (value: number, word: string) => `${n(value)} ${word}${value === 1 ? "" : "s"}`;

function clip(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [${n(line.length)} characters]` : line;
}

/** Lines of one file for content mode: matches as `path:line:text`, context as `path-line-text`. */
function contentBlock(name: string, lines: string[], hits: number[], context: number): string[] {
  const out: string[] = [];
  const hitSet = new Set(hits);
  let shownTo = 0;
  for (const hit of hits) {
    const from = Math.max(1, hit - context);
    const to = Math.min(lines.length, hit + context);
    if (context > 0 && shownTo > 0 && from > shownTo + 1) out.push("--");
    for (let line = Math.max(from, shownTo + 1); line <= to; line++) {
      out.push(`${name}${hitSet.has(line) ? ":" : "-"}${line}${hitSet.has(line) ? ":" : "-"}${clip(lines[line - 1] as string)}`);
    }
    shownTo = Math.max(shownTo, to);
  }
  return out;
}

interface Tally {
  files: number;
  lines: number;
  shownItems: number;
  out: string[];
  chars: number;
  fullOutput: boolean;
  tooBig: string[];
}

export function grepTool(deps: FileToolDeps): Tool<GrepInput> {
  return {
    name: "grep",
    description,
    input,
    readOnly: true,
    describe(args, root) {
      const base = resolveToolPath(args.path ?? ".", root);
      return { title: `Search ${args.pattern}`, kind: "search", locations: [{ path: base.path }] };
    },
    permission(args, ctx) {
      const base = resolveToolPath(args.path ?? ".", ctx.root, ctx.home);
      return { tool: "grep", readOnly: true, target: pathTarget(base, "read"), preview: `${args.pattern} in ${pathPreview(base)}` };
    },
    async run(args, ctx) {
      const matcher = compilePattern(args.pattern, args.ignoreCase === true);
      if (typeof matcher === "string") return error(matcher);
      if (args.glob !== undefined) {
        const problem = globProblem(args.glob);
        if (problem) return error(problem.replace("The pattern", "The glob"));
      }
      const mode: GrepMode = args.mode ?? "content";
      const context = mode === "content" ? (args.context ?? 0) : 0;
      const maxResults = args.maxResults ?? DEFAULT_MAX_RESULTS;
      const base = resolveToolPath(args.path ?? ".", ctx.root, ctx.home);
      let isDir: boolean;
      try {
        isDir = statSync(base.realPath).isDirectory();
      } catch {
        return error(`Not found: ${base.display}. Give an existing folder or file in "path", or leave it out to search the whole project.`);
      }
      const tally: Tally = { files: 0, lines: 0, shownItems: 0, out: [], chars: 0, fullOutput: false, tooBig: [] };
      const take = (nameOf: () => string, outcome: FileOutcome) => {
        if (outcome.kind === "too_big") tally.tooBig.push(nameOf());
        if (outcome.kind !== "hits") return;
        const name = nameOf();
        const hits = outcome.hits.lines;
        tally.files++;
        tally.lines += hits.length;
        if (tally.fullOutput || tally.shownItems >= maxResults) return;
        let block: string[];
        let items = 1;
        if (mode === "files") {
          block = [name];
        } else if (mode === "count") {
          block = [`${name}:${hits.length}`];
        } else {
          const room = hits.slice(0, maxResults - tally.shownItems);
          block = contentBlock(name, outcome.hits.text ?? [], room, context);
          if (context > 0 && tally.out.length > 0) block.unshift("--");
          items = room.length;
        }
        const size = block.reduce((sum, line) => sum + line.length + 1, 0);
        if (tally.chars + size > MAX_OUTPUT_CHARS) {
          tally.fullOutput = true;
          return;
        }
        tally.shownItems += items;
        tally.out.push(...block);
        tally.chars += size;
      };

      if (!isDir) {
        if (deps.hidden(base.path) || deps.hidden(base.realPath)) return error(`${base.display} may not be searched (the policy hides it).`);
        const outcome = searchFile(base.realPath, matcher, mode, searchBuffer(MAX_TEXT_BYTES));
        if (outcome.kind === "binary") return { output: `${base.display} is a binary file; nothing was searched.`, summary: "Binary file" };
        if (outcome.kind === "too_big") return error(`${base.display} is ${formatBytes(outcome.size)}; grep searches files up to ${formatBytes(MAX_TEXT_BYTES)}.`);
        take(() => base.display, outcome);
      } else {
        const glob = args.glob === undefined ? undefined : compileGlob(args.glob);
        const buffer = searchBuffer();
        const named = `${args.glob ?? ""} ${args.path ?? ""}`.split(/[/\\\s]/).includes("node_modules");
        const stats = await walkFiles({
          root: ctx.root,
          base: base.realPath,
          signal: ctx.signal,
          hidden: deps.hidden,
          includeNodeModules: named,
          onFile(file) {
            if (file.outside || (glob && !glob.matches(file.rel))) return;
            take(() => displayPath(join(base.path, file.rel), ctx.root), searchFile(file.realPath ?? file.abs, matcher, mode, buffer));
          },
        });
        if (stats.aborted) return error("Cancelled.");
      }

      const notes: string[] = [];
      const what = mode === "content" ? "matching lines" : "files";
      const total = mode === "content" ? tally.lines : tally.files;
      if (tally.shownItems < total) {
        const why = tally.fullOutput ? ` (the output limit is ${n(MAX_OUTPUT_CHARS)} characters)` : "";
        const raise = maxResults < MAX_RESULTS && !tally.fullOutput ? `, or raise maxResults (up to ${MAX_RESULTS})` : "";
        const count = mode === "count" ? "" : ', use mode "count" for totals per file';
        notes.push(`[Showing ${n(tally.shownItems)} of ${n(total)} ${what}${why}. Narrow the search with path or glob${count}${raise}.]`);
      }
      if (tally.tooBig.length > 0) {
        const names = tally.tooBig.slice(0, 5).join(", ") + (tally.tooBig.length > 5 ? ` and ${tally.tooBig.length - 5} more` : "");
        notes.push(`[Not searched: ${plural(tally.tooBig.length, "file")} over ${formatBytes(MAX_SEARCH_BYTES)} (${names}). Give one as path to search it (up to ${formatBytes(MAX_TEXT_BYTES)}).]`);
      }
      const inFiles = plural(tally.files, "file");
      const summary = mode === "files" ? inFiles : `${n(tally.lines)} ${mode === "count" ? "matching line" : "match"}${tally.lines === 1 ? "" : mode === "count" ? "s" : "es"} in ${inFiles}`;
      if (tally.files === 0) {
        return { output: [`No matches for ${args.pattern} in ${placeName(base)}.`, ...notes].join("\n"), summary: "No matches" };
      }
      return { output: [...tally.out, ...notes].join("\n"), summary };
    },
  };
}
