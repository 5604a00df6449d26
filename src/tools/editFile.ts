// edit_file: an exact, unique replacement in a file the model has read and that has not changed
// since. The change is planned against the file as it is, for the approval preview and again
// for the write, so what was approved is what gets written (or the call fails as stale).
import { z } from "zod";
import description from "./editFile.txt" with { type: "text" };
import { applyReplacement, findReplacement, matchLines, notFoundMessage } from "./editMatch.ts";
import type { FileToolDeps } from "./fileToolDeps.ts";
import { changeTool, freshnessProblem, loadTarget } from "./fileWrite.ts";
import { unifiedDiff } from "./diff.ts";
import type { CheckedState, ResolvedPath } from "./paths.ts";
import { formatBytes, lineAt, MAX_TEXT_BYTES } from "./textFile.ts";
import type { PlanWithState, Tool } from "./types.ts";

const input = z.object({
  path: z.string().min(1).describe("The file to edit: relative to the project root, or absolute."),
  old_string: z.string().describe("The exact text to replace (unique in the file unless replace_all)."),
  new_string: z.string().describe("The text to put in its place."),
  replace_all: z.boolean().optional().describe("Replace every occurrence of old_string (default false)."),
});
export type EditFileInput = z.infer<typeof input>;

type EditPlan =
  | { ok: true; resolved: ResolvedPath; oldText: string; oldBytes: Uint8Array; newText: string; lines: number[] }
  | { ok: false; resolved: ResolvedPath; error: string };

const MAX_LISTED = 20;

function planEdit(args: EditFileInput, root: string, home: string | undefined, deps: FileToolDeps): EditPlan {
  const target = loadTarget(args.path, root, home, deps);
  const { resolved } = target;
  const fail = (error: string): EditPlan => ({ ok: false, resolved, error });
  if ("error" in target) return fail(target.error);
  const { loaded } = target;
  switch (loaded.kind) {
    case "missing":
      return fail(`File not found: ${resolved.display}. To create a file, use write_file.`);
    case "special":
      return fail(`${resolved.display} is not a regular file; edit_file edits text files only.`);
    case "too_big":
      return fail(
        `${resolved.display} is ${formatBytes(loaded.size)}; edit_file edits files up ` +
          `to ${formatBytes(MAX_TEXT_BYTES)}.`,
      );
    case "binary":
      return fail(`${resolved.display} is ${loaded.what}; edit_file edits UTF-8 text files only.`);
  }
  if (loaded.invalidBytes > 0)
    return fail(
      `${resolved.display} is not valid UTF-8 text; an edit would damage the bytes ` +
        `that are not. Use a bash command that keeps its encoding.`,
    );
  const stale = freshnessProblem(resolved, deps.reads, loaded.bytes, "edit");
  if (stale) return fail(stale);
  if (args.old_string === "") {
    return fail(
      "old_string is empty. To insert text, put a few neighbouring lines in " +
        "old_string and repeat them in new_string with the addition; to write a whole " +
        "file, use write_file.",
    );
  }
  if (args.old_string === args.new_string)
    return fail(
      "old_string and new_string are the same, so the edit would change nothing. Give the new text in new_string.",
    );
  const replacement = findReplacement(loaded.text, args.old_string, args.new_string);
  const count = replacement.starts.length;
  if (count === 0) return fail(notFoundMessage(resolved.display, loaded.text, args.old_string));
  const lines = matchLines(loaded.text, replacement.starts);
  if (count > 1 && args.replace_all !== true) {
    const listed =
      lines.slice(0, MAX_LISTED).join(", ") + (count > MAX_LISTED ? ` and ${count - MAX_LISTED} more` : "");
    return fail(
      `old_string occurs ${count} times in ${resolved.display} (lines ${listed}). Add ` +
        `surrounding lines to old_string so it matches only the one you mean, or set ` +
        `replace_all to true to change all of them.`,
    );
  }
  return {
    ok: true,
    resolved,
    oldText: loaded.text,
    oldBytes: loaded.bytes,
    newText: applyReplacement(loaded.text, replacement),
    lines,
  };
}

/** A few numbered lines of the new text around the first change, so the model can check it. */
function snippet(newText: string, oldText: string): string {
  let start = 0;
  while (start < oldText.length && start < newText.length && oldText[start] === newText[start]) start++;
  const lines = newText.split("\n");
  const first = lineAt(newText, start);
  const changedLines = Math.max(1, newText.split("\n").length - oldText.split("\n").length + 1);
  const from = Math.max(1, first - 2);
  const to = Math.min(lines.length, first + Math.min(changedLines, 12) + 2);
  const out: string[] = [];
  for (let n = from; n <= to; n++) {
    const line = (lines[n - 1] ?? "").replace(/\r$/, "");
    out.push(`${String(n).padStart(6)}\t${line.length > 300 ? `${line.slice(0, 300)}…` : line}`);
  }
  return out.join("\n");
}

export function editFileTool(deps: FileToolDeps): Tool<EditFileInput, PlanWithState<EditFileInput, CheckedState>> {
  return changeTool<EditFileInput, { lines: number[] }>({
    tool: "edit_file",
    description,
    input,
    verb: "edit",
    title: "Edit",
    plan: (args, root, home) => planEdit(args, root, home, deps),
    line: (plan) => plan.lines[0],
    deps,
    written(change, newText) {
      const { added, removed } = unifiedDiff(change.resolved.display, change.oldText, newText);
      const where =
        change.lines.length === 1
          ? `line ${change.lines[0]}`
          : `${change.lines.length} places (lines ` +
            `${change.lines.slice(0, MAX_LISTED).join(", ")}${change.lines.length > MAX_LISTED ? " …" : ""})`;
      return {
        output:
          `Edited ${change.resolved.display} at ${where}. The file now ` +
          `reads:\n${snippet(newText, change.oldText ?? "")}`,
        summary: `Edited ${change.resolved.display} (+${added} −${removed})`,
      };
    },
  });
}
