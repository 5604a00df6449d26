// read_file: numbered lines of a text file, within line, character and size limits, and a
// record of what was read so edit_file can check read-before-edit and staleness.
import { readdirSync } from "node:fs";
import { basename, dirname, extname } from "node:path";
import { z } from "zod";
import { gainedLinks, listChecked, loadChecked } from "./checkedFile.ts";
import type { FileToolDeps } from "./fileToolDeps.ts";
import { bufferChangedNote, bufferNote, unsavedBuffer } from "./editorBuffers.ts";
import { secretTwinOf, twinRefusal } from "./secretTwins.ts";
import { changedWhileWaiting, type CheckedState, resolveToolPath, type ResolvedPath } from "./paths.ts";
import { filePlan } from "./readPlans.ts";
import description from "./readFile.txt" with { type: "text" };
import { formatBytes, MAX_TEXT_BYTES } from "./textFile.ts";
import type { PlanWithState, Tool, ToolResult } from "./types.ts";
import { groupedCount } from "../text/count.ts";

const MAX_LINES = 2000;
const MAX_LINE_CHARS = 2000;
const MAX_OUTPUT_CHARS = 50_000;

const input = z.object({
  path: z.string().min(1).describe("The file to read: relative to the project root, or absolute."),
  offset: z.number().int().min(1).optional().describe("First line to read, 1-based (default 1)."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_LINES)
    .optional()
    .describe(`How many lines to read (default and most ${MAX_LINES}).`),
});
export type ReadFileInput = z.infer<typeof input>;

const error = (output: string): ToolResult => ({ output, isError: true });
const plural = (n: number, word: string) => `${groupedCount(n)} ${word}${n === 1 ? "" : "s"}`;

/** Names in the same folder that look like what was meant (same name in another case, same stem). */
function nearNames(resolved: ResolvedPath, withheld: FileToolDeps["withheld"]): string[] {
  const dir = dirname(resolved.path);
  const original = basename(resolved.path);
  const name = original.toLowerCase();
  const stem = basename(name, extname(name));
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((candidate) => {
      const lower = candidate.toLowerCase();
      return (
        candidate !== original &&
        (lower === name || basename(lower, extname(lower)) === stem || (stem.length >= 3 && lower.includes(stem)))
      );
    })
    .filter((candidate) => !withheld(`${dir}/${candidate}`))
    .slice(0, 5);
}

/** The folder's entries (read from the folder that was checked), or the error when it changed. */
function folderListing(
  resolved: ResolvedPath,
  realPath: string,
  root: string,
  withheld: FileToolDeps["withheld"],
): { output: string } | { error: string } {
  const listed = listChecked(realPath);
  if (listed !== undefined && !Array.isArray(listed))
    return { error: changedWhileWaiting(resolved, realPath, root, withheld, "read", listed.now) };
  const entries = (listed ?? [])
    .filter((entry) => entry.name !== ".git" && !withheld(`${resolved.path}/${entry.name}`))
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    .sort();
  const shown = entries.slice(0, 50);
  const more = entries.length > shown.length ? `\n… and ${entries.length - shown.length} more` : "";
  const list = shown.length > 0 ? `\nIt contains:\n${shown.join("\n")}${more}` : "";
  return {
    output:
      `${resolved.display} is a folder, not a file. Read one of its files, or use ` +
      `glob to find files in it (e.g. pattern "**/*" with path ` +
      `"${resolved.display}").${list}`,
  };
}

/** Numbered lines from `offset`, cut to the limits, with a note on how to read on. */
function numberLines(
  text: string,
  offset: number,
  limit: number,
): { output: string; first: number; last: number; total: number } {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const lines = body.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const total = lines.length;
  const out: string[] = [];
  const cut: number[] = [];
  let chars = 0;
  let last = offset - 1;
  let stoppedBySize = false;
  for (let n = offset; n <= total && n < offset + limit; n++) {
    let line = (lines[n - 1] as string).replace(/\r$/, "");
    if (line.length > MAX_LINE_CHARS) {
      line = `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${groupedCount(line.length)} characters]`;
      cut.push(n);
    }
    const numbered = `${String(n).padStart(6)}\t${line}`;
    if (chars + numbered.length + 1 > MAX_OUTPUT_CHARS && out.length > 0) {
      stoppedBySize = true;
      break;
    }
    out.push(numbered);
    chars += numbered.length + 1;
    last = n;
  }
  const notes: string[] = [];
  if (last < total) {
    const why = stoppedBySize ? ` (the output limit is ${groupedCount(MAX_OUTPUT_CHARS)} characters)` : "";
    notes.push(`[Showing lines ${offset}–${last} of ${total}${why}. Read on with offset ${last + 1}.]`);
  }
  if (cut.length > 0) {
    const which = cut.length <= 5 ? cut.join(", ") : `${cut.slice(0, 5).join(", ")} and ${cut.length - 5} more`;
    notes.push(
      `[Line${cut.length === 1 ? "" : "s"} ${which} ` +
        `${cut.length === 1 ? "was" : "were"} cut at ${MAX_LINE_CHARS} characters; grep ` +
        `finds text anywhere in a line.]`,
    );
  }
  return { output: [...out, ...notes].join("\n"), first: offset, last, total };
}

export function readFileTool(deps: FileToolDeps): Tool<ReadFileInput, PlanWithState<ReadFileInput, CheckedState>> {
  return {
    name: "read_file",
    description,
    input,
    readOnly: true,
    plan: (args, ctx) =>
      filePlan({ tool: "read_file", kind: "read", title: (path) => `Read ${path}`, line: args.offset }, args, ctx),
    async run({ input: args, state: { checked } }, ctx) {
      // The file the permission check named, and no other: the path may have been re-pointed since.
      const resolved = resolveToolPath(args.path, ctx.root, ctx.home);
      const target = checked.realPath;
      if (resolved.realPath !== target)
        return error(changedWhileWaiting(resolved, target, ctx.root, deps.withheld, "read"));
      const loaded = loadChecked(target);
      if (gainedLinks(loaded, checked.links))
        return error(changedWhileWaiting(resolved, target, ctx.root, deps.withheld, "read"));
      switch (loaded.kind) {
        case "changed":
          return error(changedWhileWaiting(resolved, target, ctx.root, deps.withheld, "read", loaded.now));
        case "missing": {
          const near = nearNames(resolved, deps.withheld);
          const hint =
            near.length > 0 ? ` Files with similar names there: ${near.join(", ")}.` : " Use glob to find the file.";
          return error(`File not found: ${resolved.display}.${hint}`);
        }
        case "folder": {
          const listing = folderListing(resolved, target, ctx.root, deps.withheld);
          return error("error" in listing ? listing.error : listing.output);
        }
        case "special":
          return error(
            `${resolved.display} is not a regular file (a device, socket or pipe); read_file reads files only.`,
          );
        case "too_big":
          return error(
            `${resolved.display} is ${formatBytes(loaded.size)}; read_file reads files up ` +
              `to ${formatBytes(MAX_TEXT_BYTES)}. Use grep with path "${resolved.display}" to ` +
              `find the lines you need, or a bash command such as \`sed -n '1000,1200p'\` or ` +
              `\`tail -n 100\` to read a part.`,
          );
        case "binary":
          return {
            output:
              `${resolved.display} is ${loaded.what} (${formatBytes(loaded.size)}); its ` +
              `content is not shown as text. Use a bash command that understands the format ` +
              `if you need to inspect it.`,
            summary: `Binary file (${formatBytes(loaded.size)})`,
          };
      }
      // The file read is a secret under another name (its path was given another file since the check).
      const twin = await secretTwinOf(deps.identities, loaded);
      if (twin !== undefined) return error(twinRefusal(resolved.display, twin, ctx.home));
      // The record is of the disk: an edit planned on a buffer the user has not saved is refused (editorBuffers.ts).
      deps.reads.record(target, loaded.bytes, loaded.mtimeMs);
      // Used only while the path stays the file just read (the editor follows links: editorBuffers.ts).
      const answer = await unsavedBuffer(deps, resolved, { realPath: target, identity: loaded }, loaded.text, {
        root: ctx.root,
        signal: ctx.signal,
      });
      const buffer = answer !== undefined && "unsaved" in answer ? answer.unsaved : undefined;
      const text = buffer ?? loaded.text;
      const fromBuffer =
        buffer !== undefined
          ? `\n${bufferNote(resolved.display)}`
          : answer !== undefined
            ? `\n${bufferChangedNote(resolved.display)}`
            : "";
      if (text.length === 0 || text === "\uFEFF")
        return { output: `${resolved.display} is empty (0 lines).${fromBuffer}`, summary: "Empty file" };
      const offset = args.offset ?? 1;
      const numbered = numberLines(text, offset, args.limit ?? MAX_LINES);
      if (offset > numbered.total) {
        return error(
          `${resolved.display} has ${plural(numbered.total, "line")}; offset ${offset} is ` +
            `past the end. Use an offset from 1 to ${numbered.total}.`,
        );
      }
      const invalid =
        buffer === undefined && loaded.invalidBytes > 0
          ? `\n[${plural(loaded.invalidBytes, "byte")} in this file ` +
            `${loaded.invalidBytes === 1 ? "is" : "are"} not valid UTF-8 and ` +
            `show${loaded.invalidBytes === 1 ? "s" : ""} as �.]`
          : "";
      const whole = numbered.first === 1 && numbered.last === numbered.total;
      return {
        output: numbered.output + invalid + fromBuffer,
        summary:
          (whole
            ? `Read ${plural(numbered.total, "line")}`
            : `Read lines ${numbered.first}–${numbered.last} of ${numbered.total}`) +
          (buffer === undefined ? "" : " (unsaved buffer)"),
      };
    },
  };
}
