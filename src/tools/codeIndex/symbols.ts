// symbols: the outline of one source file, from a real parse (tree-sitter).
import { z } from "zod";
import type { FileToolDeps } from "../fileToolDeps.ts";
import { gainedLinks, loadChecked } from "../checkedFile.ts";
import { changedWhileWaiting, type CheckedState, resolveToolPath } from "../paths.ts";
import { filePlan } from "../readPlans.ts";
import { secretTwinOf, twinRefusal } from "../secretTwins.ts";
import { formatBytes } from "../textFile.ts";
import type { PlanWithState, Tool, ToolResult } from "../types.ts";
import { outlineLines } from "./format.ts";
import { KNOWN_LANGUAGES, LANGUAGE_NAMES, languageOf } from "./parser.ts";
import { flatten } from "./symbol.ts";
import description from "./symbols.txt" with { type: "text" };

const MAX_OUTPUT_CHARS = 50_000;
const MAX_OUTLINE_BYTES = 5 * 1024 * 1024;

const input = z.object({
  path: z
    .string()
    .min(1)
    .describe("A TypeScript, JavaScript, Python, Go or Rust file, relative to the project root or absolute."),
});
export type SymbolsInput = z.infer<typeof input>;

const error = (output: string): ToolResult => ({ output, isError: true });

export function symbolsTool(deps: FileToolDeps): Tool<SymbolsInput, PlanWithState<SymbolsInput, CheckedState>> {
  return {
    name: "symbols",
    description,
    input,
    readOnly: true,
    plan: (args, ctx) =>
      filePlan({ tool: "symbols", kind: "search", title: (path) => `Search symbols in ${path}` }, args, ctx),
    async run({ input: args, state: { checked } }, ctx) {
      const resolved = resolveToolPath(args.path, ctx.root, ctx.home);
      if (deps.withheld(resolved.path) || deps.withheld(resolved.realPath))
        return error(`${resolved.display} may not be read (the policy hides it).`);
      // The file the permission check named, and no other (as read_file: checkedFile.ts).
      const target = checked.realPath;
      if (resolved.realPath !== target)
        return error(changedWhileWaiting(resolved, target, ctx.root, deps.withheld, "read"));
      const language = languageOf(resolved.realPath) ?? languageOf(resolved.path);
      if (!language) {
        return error(
          `symbols reads ${KNOWN_LANGUAGES} files; ${resolved.display} is none of these. ` +
            `Use grep to find declarations in it, or read_file.`,
        );
      }
      const loaded = loadChecked(target, MAX_OUTLINE_BYTES);
      if (gainedLinks(loaded, checked.links))
        return error(changedWhileWaiting(resolved, target, ctx.root, deps.withheld, "read"));
      switch (loaded.kind) {
        case "changed":
          return error(changedWhileWaiting(resolved, target, ctx.root, deps.withheld, "read", loaded.now));
        case "missing":
          return error(`File not found: ${resolved.display}. Use glob to find the file.`);
        case "folder":
          return error(
            `${resolved.display} is a folder. Give one file; use glob to list files, or ` +
              `find_definition to search the folder.`,
          );
        case "too_big":
          return error(
            `${resolved.display} is ${formatBytes(loaded.size)}; symbols outlines files up ` +
              `to ${formatBytes(MAX_OUTLINE_BYTES)}. Use grep to find declarations.`,
          );
        case "binary":
        case "special":
          return error(`${resolved.display} is not a text file.`);
      }
      const twin = await secretTwinOf(deps.identities, loaded);
      if (twin !== undefined) return error(twinRefusal(resolved.display, twin, ctx.home));
      const symbols = await deps.outlines.outline(loaded.text, language);
      const count = flatten(symbols).length;
      if (count === 0)
        return {
          output: `${resolved.display} (${LANGUAGE_NAMES[language]}): no declarations found.`,
          summary: "No symbols",
        };
      const lines = outlineLines(symbols);
      const out: string[] = [
        `${resolved.display} (${LANGUAGE_NAMES[language]}, ${count} symbol${count === 1 ? "" : "s"}):`,
      ];
      let chars = out[0]?.length ?? 0;
      let shown = 0;
      for (const line of lines) {
        if (chars + line.length + 1 > MAX_OUTPUT_CHARS) break;
        out.push(line);
        chars += line.length + 1;
        shown++;
      }
      if (shown < lines.length)
        out.push(
          `[Showing ${shown} of ${lines.length} symbols (output limit). Read the rest of ` +
            `the file with read_file from line ${symbolsLineAfter(lines[shown])}.]`,
        );
      return { output: out.join("\n"), summary: `${count} symbol${count === 1 ? "" : "s"}` };
    },
  };
}

function symbolsLineAfter(line: string | undefined): string {
  return line?.trim().split(/\s+/)[0] ?? "1";
}
