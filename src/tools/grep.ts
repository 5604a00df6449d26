// grep: a regular expression over the project's files, respecting .gitignore and the session's
// hidden paths. Where the binary carries ripgrep, rg searches a folder in its own sandbox
// (ripgrepGrep.ts: the same hits, totals and notes, at rg's speed); else, and for one file, the
// search is in-process. The walk stays in
// the folder the permission check named (walk.ts); the files are read and matched in a worker
// thread with a budget of work (searchWorker.ts, searchBudget.ts), so neither a pipe named like a file nor a pattern
// that backtracks for seconds can hold up the session or any other.
import { join } from "node:path";
import { z } from "zod";
import type { FileToolDeps } from "./fileToolDeps.ts";
import { compileGlob, globProblem } from "./globMatch.ts";
import description from "./grep.txt" with { type: "text" };
import { compilePattern, type FileOutcome, type GrepMode, MAX_SEARCH_BYTES, type SearchSpec } from "./grepSearch.ts";
import { changedWhileWaiting, type CheckedState, displayPath, placeName } from "./paths.ts";
import { notFound, searchPlace, searchPlan } from "./readPlans.ts";
import { SEARCH_BUDGET, type SearchBudget } from "./searchBudget.ts";
import { type SearchEnd, SearchWorker } from "./searchWorker.ts";
import { type SearchTally, searchNotes } from "./searchNotes.ts";
import { secretTwinAt, twinRefusal } from "./secretTwins.ts";
import { formatBytes, MAX_TEXT_BYTES } from "./textFile.ts";
import type { PlanWithState, Tool, ToolResult } from "./types.ts";
import { walkFiles } from "./walk.ts";
import { grepWithRipgrep } from "./ripgrepGrep.ts";
import { ripgrepFor } from "./ripgrepSearch.ts";
import { groupedCount } from "../text/count.ts";

const DEFAULT_MAX_RESULTS = 100;
const MAX_RESULTS = 500;
const MAX_OUTPUT_CHARS = 50_000;

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

export interface GrepLimits {
  /** The work one search may do (default SEARCH_BUDGET). */
  budget?: SearchBudget;
}

const error = (output: string): ToolResult => ({ output, isError: true });
const n = (value: number) => groupedCount(value);
const plural = (value: number, word: string) => `${n(value)} ${word}${value === 1 ? "" : "s"}`;

/** Lines of one file for content mode: matches as `path:line:text`, context as `path-line-text`. */
function contentBlock(name: string, shown: ReadonlyMap<number, string>, hits: number[], context: number): string[] {
  const out: string[] = [];
  const hitSet = new Set(hits);
  let shownTo = 0;
  for (const hit of hits) {
    const from = Math.max(1, hit - context);
    const to = hit + context;
    if (context > 0 && shownTo > 0 && from > shownTo + 1) out.push("--");
    for (let line = Math.max(from, shownTo + 1); line <= to; line++) {
      const text = shown.get(line);
      if (text === undefined) continue;
      out.push(`${name}${hitSet.has(line) ? ":" : "-"}${line}${hitSet.has(line) ? ":" : "-"}${text}`);
      shownTo = line;
    }
    shownTo = Math.max(shownTo, hit);
  }
  return out;
}

interface Output {
  shownItems: number;
  out: string[];
  chars: number;
  fullOutput: boolean;
}

export function grepTool(
  deps: FileToolDeps,
  limits: GrepLimits = {},
): Tool<GrepInput, PlanWithState<GrepInput, CheckedState>> {
  const budget = limits.budget ?? SEARCH_BUDGET;
  return {
    name: "grep",
    description,
    input,
    readOnly: true,
    plan: (args, ctx) => searchPlan("grep", args, args.pattern, ctx),
    async run(plan, ctx) {
      const args = plan.input;
      const matcher = compilePattern(args.pattern, args.ignoreCase === true);
      if (typeof matcher === "string") return error(matcher);
      if (args.glob !== undefined) {
        const problem = globProblem(args.glob);
        if (problem) return error(problem.replace("The pattern", "The glob"));
      }
      const mode: GrepMode = args.mode ?? "content";
      const context = mode === "content" ? (args.context ?? 0) : 0;
      const maxResults = args.maxResults ?? DEFAULT_MAX_RESULTS;
      // The folder or file the permission check named, and no other: the path may have been re-pointed since.
      const place = searchPlace(plan, ctx, deps);
      if ("error" in place) return error(place.error);
      const { base, target, kind } = place;
      if (kind === "missing") return error(notFound(base));
      if (kind === "special")
        return error(
          `${base.display} is not a regular file (a device, socket or pipe); grep searches files and folders only.`,
        );
      if (kind === "file" && (deps.withheld(base.path) || deps.withheld(target)))
        return error(`${base.display} may not be searched (the policy hides it).`);

      const spec: SearchSpec = {
        pattern: args.pattern,
        ignoreCase: args.ignoreCase === true,
        mode,
        context,
        maxShown: maxResults,
        maxBytes: kind === "file" ? MAX_TEXT_BYTES : MAX_SEARCH_BYTES,
        // A named file with other names was asked about as such (its permission check saw the links).
        allowLinks: kind === "file" && plan.state.checked.links > 1,
        secretKeys: (await deps.identities.current()).keys(),
      };
      const tally: SearchTally = { files: 0, lines: 0, tooBig: [], special: [], linked: [], secret: [], changed: [] };
      const output: Output = { shownItems: 0, out: [], chars: 0, fullOutput: false };
      // `nameOf` is called only for files worth a line: most files have no hit, and past
      // maxResults a hit is only counted (30,000 files of a count named for nothing cost 0.1 s).
      const take = (nameOf: () => string, outcome: FileOutcome) => {
        if (outcome.kind === "none") return;
        if (outcome.kind !== "hits") {
          const name = nameOf();
          if (outcome.kind === "too_big") tally.tooBig.push(name);
          else if (outcome.kind === "special") tally.special.push(name);
          else if (outcome.kind === "linked") tally.linked.push(name);
          else if (outcome.kind === "secret") tally.secret.push(name);
          else if (outcome.kind === "changed") tally.changed.push(name);
          return;
        }
        const hits = outcome.lines;
        tally.files++;
        tally.lines += hits.length;
        if (output.fullOutput || output.shownItems >= maxResults) return;
        const name = nameOf();
        let block: string[];
        let items = 1;
        if (mode === "files") {
          block = [name];
        } else if (mode === "count") {
          block = [`${name}:${hits.length}`];
        } else {
          const room = hits.slice(0, maxResults - output.shownItems);
          block = contentBlock(name, new Map(outcome.shown ?? []), room, context);
          if (context > 0 && output.out.length > 0) block.unshift("--");
          items = room.length;
        }
        const size = block.reduce((sum, line) => sum + line.length + 1, 0);
        if (output.chars + size > MAX_OUTPUT_CHARS) {
          output.fullOutput = true;
          return;
        }
        output.shownItems += items;
        output.out.push(...block);
        output.chars += size;
      };

      let end: SearchEnd;
      const glob = args.glob === undefined ? undefined : compileGlob(args.glob);
      const named = `${args.glob ?? ""} ${args.path ?? ""}`.split(/[/\\\s]/).includes("node_modules");
      const rg = kind === "folder" ? ripgrepFor(ctx, target, named, deps.withheld) : undefined;
      const viaRipgrep =
        rg &&
        (await grepWithRipgrep({
          ...rg,
          spec,
          matcher,
          secrets: await deps.identities.current(),
          ...(glob && { include: (rel: string) => glob.matches(rel) }),
          signal: ctx.signal,
        }));
      if (viaRipgrep === "cancelled") return error("Cancelled.");
      if (viaRipgrep) {
        for (const file of viaRipgrep) take(() => displayPath(join(base.path, file.rel), ctx.root), file.outcome);
        end = { kind: "done" };
      } else if (kind === "file") {
        const search = new SearchWorker({ spec, signal: ctx.signal, budget, pool: deps.searches });
        let single: FileOutcome | undefined;
        await search.add(target, (outcome) => {
          single = outcome;
        });
        end = await search.finish();
        if (single?.kind === "binary")
          return { output: `${base.display} is a binary file; nothing was searched.`, summary: "Binary file" };
        if (single?.kind === "too_big")
          return error(
            `${base.display} is ${formatBytes(single.size)}; grep searches files up to ${formatBytes(MAX_TEXT_BYTES)}.`,
          );
        if (single?.kind === "secret") {
          const twin = await secretTwinAt(deps.identities, target);
          return error(twinRefusal(base.display, twin ?? "a secret file on the list", ctx.home));
        }
        if (single?.kind === "changed" || single?.kind === "linked" || single?.kind === "special")
          return error(changedWhileWaiting(base, target, ctx.root, deps.withheld, "read"));
        if (single) take(() => base.display, single);
      } else {
        const search = new SearchWorker({ spec, signal: ctx.signal, budget, pool: deps.searches });
        const walked = await walkFiles({
          root: ctx.root,
          base: target,
          signal: ctx.signal,
          withheld: deps.withheld,
          includeNodeModules: named,
          onFile(file) {
            if (file.outside || (glob && !glob.matches(file.rel))) return;
            return search.add(file.realPath, (outcome) =>
              take(() => displayPath(join(base.path, file.rel), ctx.root), outcome),
            );
          },
        });
        end = await search.finish();
        if (walked.baseChanged)
          return error(changedWhileWaiting(base, target, ctx.root, deps.withheld, "read", walked.baseChanged.now));
        if (walked.aborted) end = { kind: "cancelled" };
        for (const rel of walked.changed) tally.changed.push(displayPath(join(base.path, rel), ctx.root));
        for (const rel of walked.special) tally.special.push(displayPath(join(base.path, rel), ctx.root));
      }
      if (end.kind === "cancelled") return error("Cancelled.");
      if (end.kind === "failed") return error(`The search failed: ${end.message}`);

      const notes: string[] = [];
      const what = mode === "content" ? "matching lines" : "files";
      const total = mode === "content" ? tally.lines : tally.files;
      if (output.shownItems < total) {
        const why = output.fullOutput ? ` (the output limit is ${n(MAX_OUTPUT_CHARS)} characters)` : "";
        const raise =
          maxResults < MAX_RESULTS && !output.fullOutput ? `, or raise maxResults (up to ${MAX_RESULTS})` : "";
        const count = mode === "count" ? "" : ', use mode "count" for totals per file';
        notes.push(
          `[Showing ${n(output.shownItems)} of ${n(total)} ${what}${why}. Narrow the ` +
            `search with path or glob${count}${raise}.]`,
        );
      }
      notes.push(...searchNotes(tally, end, "grep"));
      const inFiles = plural(tally.files, "file");
      const found =
        mode === "count"
          ? plural(tally.lines, "matching line")
          : `${n(tally.lines)} match${tally.lines === 1 ? "" : "es"}`;
      const summary = mode === "files" ? inFiles : `${found} in ${inFiles}`;
      if (tally.files === 0) {
        return {
          output: [`No matches for ${args.pattern} in ${placeName(base)}.`, ...notes].join("\n"),
          summary: "No matches",
        };
      }
      return { output: [...output.out, ...notes].join("\n"), summary };
    },
  };
}
