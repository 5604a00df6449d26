// What write_file and edit_file share: checks of the target before a write, the write itself
// (undo snapshot first, atomic, mode kept, through symlinks inside the root) and the record
// that lets the next edit go ahead without another read.
import { statSync } from "node:fs";
import type { ReadTracker } from "./readTracker.ts";
import { symlinkEscape, type ResolvedPath } from "./paths.ts";
import { writeTextAtomic } from "./atomicWrite.ts";
import type { ToolContext } from "./types.ts";

/** Why the model may not change this existing file as things stand, or undefined. */
export function freshnessProblem(resolved: ResolvedPath, reads: ReadTracker, bytes: Uint8Array, verb: "edit" | "overwrite"): string | undefined {
  switch (reads.check(resolved.realPath, bytes)) {
    case "fresh":
      return undefined;
    case "unread":
      return verb === "edit"
        ? `You have not read ${resolved.display} in this session. Read it with read_file first, then make the edit against its current text.`
        : `${resolved.display} already exists and you have not read it in this session. Read it with read_file before replacing it, or use edit_file to change part of it.`;
    case "stale":
      return `${resolved.display} has changed since you last read it (the user, a command or a formatter changed it). Read it again with read_file, then redo the ${verb} against the current text.`;
  }
}

/** A problem with writing to this path at all, or undefined. */
export function targetProblem(resolved: ResolvedPath): string | undefined {
  return symlinkEscape(resolved);
}

/**
 * The text a write or edit puts in the file: its own, or the part of it the user accepted in a
 * hunk review (ToolContext.partial), provided the file is still the one that was reviewed.
 */
export function approvedText(ctx: Pick<ToolContext, "partial">, oldText: string | null, newText: string): { text: string } | { error: string } {
  const partial = ctx.partial;
  if (!partial) return { text: newText };
  if (partial.change.oldText !== oldText) {
    return { error: "The file changed after the user reviewed this change, so nothing was written. Read the file again and make the change again." };
  }
  return { text: partial.change.newText };
}

/** Snapshot, write, record. The caller has planned the change against the current file. */
export async function commitWrite(resolved: ResolvedPath, content: string, ctx: ToolContext, reads: ReadTracker): Promise<void> {
  await ctx.beforeWrite([resolved.realPath]);
  writeTextAtomic(resolved.realPath, content);
  const bytes = new TextEncoder().encode(content);
  reads.record(resolved.realPath, bytes, statSync(resolved.realPath).mtimeMs);
}
