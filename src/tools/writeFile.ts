// write_file: creates or replaces a whole file. Replacing needs a fresh read (as Claude Code's
// Write does), so the model cannot overwrite what it has not seen.
import { z } from "zod";
import type { FileToolDeps } from "./fileToolDeps.ts";
import { changeTool, freshnessProblem, loadTarget } from "./fileWrite.ts";
import type { CheckedState, ResolvedPath } from "./paths.ts";
import { countLines } from "./textFile.ts";
import type { PlanWithState, Tool } from "./types.ts";
import description from "./writeFile.txt" with { type: "text" };
import { groupedCount } from "../text/count.ts";

const input = z.object({
  path: z.string().min(1).describe("The file to write: relative to the project root, or absolute."),
  content: z.string().describe("The complete content of the file."),
});
export type WriteFileInput = z.infer<typeof input>;

type WritePlan =
  | { ok: true; resolved: ResolvedPath; oldText: string | null; oldBytes: Uint8Array | null }
  | { ok: false; resolved: ResolvedPath; error: string };

/** Checks the target as it is now; the same checks run for the approval preview and the write. */
function planWrite(args: WriteFileInput, root: string, home: string | undefined, deps: FileToolDeps): WritePlan {
  const target = loadTarget(args.path, root, home, deps);
  const { resolved } = target;
  const fail = (error: string): WritePlan => ({ ok: false, resolved, error });
  if ("error" in target) return fail(target.error);
  const { loaded } = target;
  switch (loaded.kind) {
    case "missing":
      return { ok: true, resolved, oldText: null, oldBytes: null };
    case "special":
      return fail(
        `${resolved.display} is not a regular file (a device, socket or pipe); write_file writes files only.`,
      );
    case "too_big":
    case "binary":
      return fail(
        `${resolved.display} exists and is not a text file write_file can replace. Ask ` +
          `the user, or use a bash command if replacing it is really meant.`,
      );
    case "text": {
      const stale = freshnessProblem(resolved, deps.reads, loaded.bytes, "overwrite");
      return stale ? fail(stale) : { ok: true, resolved, oldText: loaded.text, oldBytes: loaded.bytes };
    }
  }
}

export function writeFileTool(deps: FileToolDeps): Tool<WriteFileInput, PlanWithState<WriteFileInput, CheckedState>> {
  return changeTool<WriteFileInput, object>({
    tool: "write_file",
    description,
    input,
    verb: "write",
    title: "Write",
    plan: (args, root, home) => {
      const plan = planWrite(args, root, home, deps);
      return plan.ok ? { ...plan, newText: args.content } : plan;
    },
    deps,
    written(change, text) {
      const lines = countLines(text);
      const what = `${groupedCount(lines)} line${lines === 1 ? "" : "s"}`;
      const summary = `Wrote ${what} to ${change.resolved.display}`;
      return {
        output: change.oldText === null ? `${summary} (new file).` : `${summary} (replaced the old content).`,
        summary,
      };
    },
  });
}
