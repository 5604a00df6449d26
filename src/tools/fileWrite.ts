// What write_file and edit_file share: checks of the target before a write, the write itself
// (undo snapshot first, atomic, mode kept, through symlinks inside the root, to exactly the file
// the permission check named and only while it holds what the change was planned against) and
// the record that lets the next edit go ahead without another read.
import { writeChecked, type WriteRefusal } from "./checkedFile.ts";
import type { FileToolDeps } from "./fileToolDeps.ts";
import type { ReadTracker } from "./readTracker.ts";
import { changedWhileWaiting, realPathOf, symlinkEscape, type ResolvedPath } from "./paths.ts";
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

/** A path that leads elsewhere than where its permission check said: refused, never followed. */
export function checkedProblem(resolved: ResolvedPath, checked: string, root: string, deps: FileToolDeps): string | undefined {
  return resolved.realPath === checked ? undefined : changedWhileWaiting(resolved, checked, root, deps.hidden, "written");
}

function refusalMessage(refusal: WriteRefusal, resolved: ResolvedPath, checked: string, root: string, deps: FileToolDeps, verb: "edit" | "write"): string {
  switch (refusal.kind) {
    case "changed":
      return changedWhileWaiting(resolved, checked, root, deps.hidden, "written", refusal.now);
    case "created":
      return `${resolved.display} was created while this call waited (by a command or the user); nothing was written. Read it with read_file, then try again.`;
    case "deleted":
      return `${resolved.display} was deleted while this call waited; nothing was written. Check it and try again.`;
    case "modified":
      return `${resolved.display} changed while this call waited (a command or the user changed it); nothing was written. Read it again with read_file, then redo the ${verb}.`;
  }
}

/**
 * Snapshot, write, record. The caller has planned the change against the current file (`oldBytes`,
 * null for a new one) and made sure `resolved` leads to `checked`, the real path the permission
 * check named. After the snapshot (which can take a while) the path must still lead there, and
 * the file there must still hold `oldBytes`; the write goes to that file only (checkedFile.ts).
 * Returns an error for the model, or undefined when written.
 */
export async function commitWrite(resolved: ResolvedPath, checked: string, oldBytes: Uint8Array | null, content: string, ctx: ToolContext, deps: FileToolDeps, verb: "edit" | "write"): Promise<string | undefined> {
  await ctx.beforeWrite([checked]);
  const now = realPathOf(resolved.path);
  if (now !== checked) return changedWhileWaiting(resolved, checked, ctx.root, deps.hidden, "written");
  const bytes = new TextEncoder().encode(content);
  const written = writeChecked(checked, bytes, oldBytes);
  if ("kind" in written) return refusalMessage(written, resolved, checked, ctx.root, deps, verb);
  deps.reads.record(checked, bytes, written.mtimeMs);
  return undefined;
}
