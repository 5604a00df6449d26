// find_definition: where a name is declared across the project, from real parses. Files are
// first filtered by a plain text search for the name in the search worker (as grep's: pinned to
// the checked folder, no pipes, a budget of work), so only the few that mention it are read here
// (checked again) and parsed. Where the binary carries ripgrep, rg picks the files that mention
// the name first (ripgrepMentions.ts), and the worker reads only those.
import { join } from "node:path";
import { z } from "zod";
import { gainedLinks, loadChecked } from "../checkedFile.ts";
import type { FileToolDeps } from "../fileToolDeps.ts";
import { MAX_SEARCH_BYTES, type SearchSpec } from "../grepSearch.ts";
import { changedWhileWaiting, type CheckedState, displayPath, placeName } from "../paths.ts";
import { notFound, searchPlace, searchPlan } from "../readPlans.ts";
import { type SearchTally, searchNotes } from "../searchNotes.ts";
import { secretTwinOf, twinRefusal } from "../secretTwins.ts";
import { SEARCH_BUDGET, type SearchBudget } from "../searchBudget.ts";
import { type SearchEnd, SearchWorker } from "../searchWorker.ts";
import { MAX_TEXT_BYTES } from "../textFile.ts";
import type { PlanWithState, Tool, ToolResult } from "../types.ts";
import { Slicer, walkFiles, type WalkStats } from "../walk.ts";
import { ripgrepFor } from "../ripgrepSearch.ts";
import { mentionsWithRipgrep } from "./ripgrepMentions.ts";
import description from "./findDefinition.txt" with { type: "text" };
import { definitionLine } from "./format.ts";
import { KNOWN_LANGUAGES, languageOf } from "./parser.ts";
import { type CodeSymbol, flatten } from "./symbol.ts";
import { groupedCount } from "../../text/count.ts";

const MAX_DEFINITIONS = 50;
const MAX_PARSED_FILES = 2000;

const NAME = /^[\p{L}_$#][\p{L}\p{N}_$]*(\.[\p{L}_$#][\p{L}\p{N}_$]*)*$/u;

const input = z.object({
  name: z.string().min(1).describe("The name, plain (`load`) or with its container (`Client.send`)."),
  path: z.string().optional().describe("Folder or file to search (default: the whole project)."),
});
export type FindDefinitionInput = z.infer<typeof input>;

const error = (output: string): ToolResult => ({ output, isError: true });

/** Whether a symbol is a definition of the (possibly qualified) name. */
function definesName(symbol: CodeSymbol, name: string): boolean {
  if (symbol.kind === "impl") return false;
  const dot = name.lastIndexOf(".");
  if (dot < 0) return symbol.name === name;
  const container = name.slice(0, dot);
  return (
    symbol.name === name.slice(dot + 1) &&
    symbol.container !== undefined &&
    (symbol.container === container || symbol.container.endsWith(`.${container}`))
  );
}

export interface FindDefinitionLimits {
  /** How many files that mention the name (and, in C and C++, could define it) are parsed at most. */
  maxParsedFiles?: number;
  /** The work the text search for the name may do (default SEARCH_BUDGET). */
  budget?: SearchBudget;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function findDefinitionTool(
  deps: FileToolDeps,
  limits: FindDefinitionLimits = {},
): Tool<FindDefinitionInput, PlanWithState<FindDefinitionInput, CheckedState>> {
  const maxParsed = limits.maxParsedFiles ?? MAX_PARSED_FILES;
  const budget = limits.budget ?? SEARCH_BUDGET;
  return {
    name: "find_definition",
    description,
    input,
    readOnly: true,
    plan: (args, ctx) => searchPlan("find_definition", args, args.name, ctx),
    async run(plan, ctx) {
      const args = plan.input;
      // C++ spells a qualified name `Klass::method`; the outlines join containers with ".".
      const name = args.name.trim().replaceAll("::", ".");
      if (!NAME.test(name))
        return error(
          `"${name}" is not a name. Give an identifier such as createClient, or ` +
            `Container.member; use grep to search for other text.`,
        );
      const word = name.slice(name.lastIndexOf(".") + 1);
      // The folder or file the permission check named, and no other (as read_file: checkedFile.ts).
      const place = searchPlace(plan, ctx, deps);
      if ("error" in place) return error(place.error);
      const { base, target, kind } = place;
      if (kind === "missing") return error(notFound(base));
      if (kind === "special")
        return error(
          `${base.display} is not a regular file (a device, socket or pipe); ` +
            `find_definition reads source files and folders only.`,
        );
      const candidates: Array<{ display: string; real: string }> = [];
      const tally: SearchTally = { files: 0, lines: 0, tooBig: [], special: [], linked: [], secret: [], changed: [] };
      let end: SearchEnd = { kind: "done" };
      let parsedCap = false;
      if (kind === "folder") {
        // Which files mention the name: a plain text search in the worker, so no file is read here.
        const spec: SearchSpec = {
          pattern: escapeRegExp(word),
          ignoreCase: false,
          mode: "files",
          context: 0,
          maxShown: 1,
          maxBytes: MAX_SEARCH_BYTES,
          allowLinks: false,
          secretKeys: (await deps.identities.current()).keys(),
          // C and C++: most files that mention a name only use it; the worker leaves those out.
          definitionsOf: word,
        };
        // Where the binary carries ripgrep, rg says which files mention the name (ripgrepMentions.ts).
        const rg = ripgrepFor(ctx, target, false, deps.withheld);
        const mentions =
          rg &&
          (await mentionsWithRipgrep({
            ...rg,
            word,
            secrets: await deps.identities.current(),
            signal: ctx.signal,
          }));
        if (mentions === "cancelled") return error("Cancelled.");
        const search = new SearchWorker({ spec, signal: ctx.signal, budget, pool: deps.searches });
        const add = (rel: string, realPath: string) => {
          const display = () => displayPath(join(base.path, rel), ctx.root);
          return search.add(realPath, (outcome) => {
            if (outcome.kind === "linked") tally.linked.push(display());
            else if (outcome.kind === "secret") tally.secret.push(display());
            else if (outcome.kind === "changed") tally.changed.push(display());
            else if (outcome.kind === "special") tally.special.push(display());
            if (outcome.kind === "hits") candidates.push({ display: display(), real: realPath });
          });
        };
        let walked: WalkStats;
        if (mentions) {
          for (const file of mentions.files) if ((await add(file.rel, file.realPath)) === false) break;
          walked = {
            files: mentions.files.length,
            stopped: false,
            aborted: false,
            changed: [],
            special: [],
          };
        } else {
          walked = await walkFiles({
            root: ctx.root,
            base: target,
            signal: ctx.signal,
            withheld: deps.withheld,
            onFile(file) {
              if (file.outside || !languageOf(file.rel)) return;
              return add(file.rel, file.realPath);
            },
          });
        }
        end = await search.finish();
        if (walked.baseChanged)
          return error(changedWhileWaiting(base, target, ctx.root, deps.withheld, "read", walked.baseChanged.now));
        if (walked.aborted || end.kind === "cancelled") return error("Cancelled.");
        if (end.kind === "failed") return error(`The search failed: ${end.message}`);
        for (const rel of walked.changed) tally.changed.push(displayPath(join(base.path, rel), ctx.root));
        for (const rel of walked.special)
          if (languageOf(rel)) tally.special.push(displayPath(join(base.path, rel), ctx.root));
      } else if (deps.withheld(base.path) || deps.withheld(target)) {
        return error(`${base.display} may not be read (the policy hides it).`);
      } else if (!languageOf(target) && !languageOf(base.path)) {
        return error(
          `find_definition reads ${KNOWN_LANGUAGES} files; ${base.display} is none of these. Use grep instead.`,
        );
      } else {
        candidates.push({ display: base.display, real: target });
      }

      const found: string[] = [];
      let more = 0;
      // C and C++ prototypes (and extern variables): shown only when no definition is found.
      const declarations: string[] = [];
      const slicer = new Slicer(ctx.signal);
      let parsed = 0;
      const links = kind === "file" ? plan.state.checked.links : 1;
      for (const candidate of candidates) {
        // Parsing is work on this thread: let other sessions and cancel in between files.
        if (!(await slicer.pause())) return error("Cancelled.");
        const loaded = loadChecked(candidate.real, kind === "folder" ? MAX_SEARCH_BYTES : MAX_TEXT_BYTES);
        if (loaded.kind === "changed" || gainedLinks(loaded, links)) {
          if (kind === "file") return error(changedWhileWaiting(base, target, ctx.root, deps.withheld, "read"));
          tally.changed.push(candidate.display);
          continue;
        }
        // A secret under another name: the folder's search skipped such files; a named one is refused.
        const twin = loaded.kind === "text" ? await secretTwinOf(deps.identities, loaded) : undefined;
        if (twin !== undefined) {
          if (kind === "file") return error(twinRefusal(base.display, twin, ctx.home));
          tally.secret.push(candidate.display);
          continue;
        }
        const language = languageOf(candidate.real) ?? languageOf(candidate.display);
        if (loaded.kind !== "text" || !language || !loaded.text.includes(word)) continue;
        if (parsed >= maxParsed) {
          parsedCap = true;
          break;
        }
        parsed++;
        for (const symbol of flatten(await deps.outlines.outline(loaded.text, language))) {
          if (!definesName(symbol, name)) continue;
          if (symbol.kind === "declaration") {
            declarations.push(definitionLine(candidate.display, symbol));
            continue;
          }
          if (found.length < MAX_DEFINITIONS) found.push(definitionLine(candidate.display, symbol));
          else more++;
        }
      }
      const notes: string[] = [];
      if (more > 0)
        notes.push(
          `[Showing ${MAX_DEFINITIONS} of ${MAX_DEFINITIONS + more} definitions. Qualify ` +
            `the name (Container.${word}) or narrow the path.]`,
        );
      if (parsedCap)
        notes.push(
          `[Stopped after parsing ${groupedCount(maxParsed)} files that mention ${word}; ` +
            `there may be more definitions. Narrow the search with path.]`,
        );
      notes.push(...searchNotes(tally, end, "find_definition"));
      if (found.length === 0 && declarations.length > 0) {
        const shown = declarations.slice(0, MAX_DEFINITIONS);
        const count = declarations.length;
        return {
          output: [
            `No definition of ${name} found in ${placeName(base)}, only ` +
              `${count === 1 ? "a declaration" : `${groupedCount(count)} declarations`} (a ` +
              `prototype or extern, without the body): the definition may be in a file not ` +
              `searched, a library, or made by a macro. Try grep for the text.`,
            ...shown,
            ...(count > shown.length ? [`[Showing ${shown.length} of ${groupedCount(count)} declarations.]`] : []),
            ...notes,
          ].join("\n"),
          summary: count === 1 ? "1 declaration" : `${count} declarations`,
        };
      }
      if (found.length === 0) {
        return {
          output: [
            `No definition of ${name} found in ${placeName(base)} (it reads ` +
              `${KNOWN_LANGUAGES} files; .gitignore'd files are skipped). Try grep for the ` +
              `text.`,
            ...notes,
          ].join("\n"),
          summary: "No definitions",
        };
      }
      const total = found.length + more;
      return { output: [...found, ...notes].join("\n"), summary: `${total} definition${total === 1 ? "" : "s"}` };
    },
  };
}
