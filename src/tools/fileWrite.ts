// What write_file and edit_file share: checks of the target before a write, the write itself
// (undo snapshot first, atomic, mode kept, through symlinks inside the root, to exactly the file
// the permission check named and only while it holds what the change was planned against) and
// the record that lets the next edit go ahead without another read.
import { writeChecked, type WriteRefusal } from "./checkedFile.ts";
import type { FileToolDeps } from "./fileToolDeps.ts";
import type { ReadTracker } from "./readTracker.ts";
import { diffPreview } from "./changePreview.ts";
import { changedWhileWaiting, type CheckedPaths, pathTarget, realPathOf, resolveToolPath, symlinkEscape, type ResolvedPath } from "./paths.ts";
import { unsavedProblem } from "./editorBuffers.ts";
import { projectGone } from "./projectGone.ts";
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
export function targetProblem(resolved: ResolvedPath, deps: Pick<FileToolDeps, "extraRoots">): string | undefined {
  return symlinkEscape(resolved, deps.extraRoots);
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
  // A file in the project gets its missing folders below the root only: a root deleted meanwhile is not made again.
  const inside = checked.startsWith(`${ctx.root}/`);
  const written = writeChecked(checked, bytes, oldBytes, inside ? ctx.root : undefined);
  if ("kind" in written) return (inside ? projectGone(ctx.root) : undefined) ?? refusalMessage(written, resolved, checked, ctx.root, deps, verb);
  deps.reads.record(checked, bytes, written.mtimeMs);
  return undefined;
}

/** What both tools plan against the file as it is now: the target, its text and bytes, and the new text. */
export type ChangePlan<Extra> = ({ ok: true; resolved: ResolvedPath; oldText: string | null; oldBytes: Uint8Array | null; newText: string } & Extra) | { ok: false; resolved: ResolvedPath; error: string };

export interface ChangeTool<Input extends { path: string }, Extra> {
  tool: "edit_file" | "write_file";
  verb: "edit" | "write";
  /** "Edit", "Write": the preview's first word. */
  title: string;
  plan(args: Input, root: string, home: string | undefined): ChangePlan<Extra>;
  deps: FileToolDeps;
  checked: CheckedPaths;
}

/** permission() of a file change: the target, and its diff, or the reason it cannot be made (cannotRun). */
export function changeRequest<Input extends { path: string }, Extra>(spec: ChangeTool<Input, Extra>, args: Input, ctx: Pick<ToolContext, "root" | "home">) {
  const resolved = resolveToolPath(args.path, ctx.root, ctx.home);
  spec.checked.note(args, resolved);
  const request = { tool: spec.tool, readOnly: false, target: pathTarget(resolved, "write") };
  if (spec.deps.hidden(resolved.path) || spec.deps.hidden(resolved.realPath)) return { ...request, preview: `${spec.title} ${resolved.path}` };
  const plan = spec.plan(args, ctx.root, ctx.home);
  if (!plan.ok) return { ...request, preview: `${spec.title} ${resolved.path}\n(This ${spec.verb} cannot be made as asked: ${plan.error})`, cannotRun: plan.error };
  const change = { path: resolved.path, oldText: plan.oldText, newText: plan.newText };
  return { ...request, preview: diffPreview(resolved, change), change };
}

/**
 * run() of a file change up to the write: the file the permission check named and no other (the
 * path may have been re-pointed since), planned again, the approved text (hunk review), written.
 * The plan and the text written, or the error for the model.
 */
export async function applyChange<Input extends { path: string }, Extra>(
  spec: ChangeTool<Input, Extra>,
  args: Input,
  ctx: ToolContext,
): Promise<{ plan: ChangePlan<Extra> & { ok: true }; text: string } | { error: string }> {
  const resolved = resolveToolPath(args.path, ctx.root, ctx.home);
  const target = spec.checked.of(args, resolved);
  const moved = checkedProblem(resolved, target, ctx.root, spec.deps);
  if (moved) return { error: moved };
  const plan = spec.plan(args, ctx.root, ctx.home);
  if (!plan.ok) return { error: plan.error };
  const movedAgain = checkedProblem(plan.resolved, target, ctx.root, spec.deps);
  if (movedAgain) return { error: movedAgain };
  const approved = approvedText(ctx, plan.oldText, plan.newText);
  if ("error" in approved) return approved;
  const unsaved = await unsavedProblem(spec.deps, plan.resolved, target, plan.oldText, { root: ctx.root, signal: ctx.signal });
  if (unsaved) return { error: unsaved };
  const failed = await commitWrite(plan.resolved, target, plan.oldBytes, approved.text, ctx, spec.deps, spec.verb);
  return failed ? { error: failed } : { plan, text: approved.text };
}
