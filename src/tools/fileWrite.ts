// What write_file and edit_file share: checks of the target before a write, the write itself
// (undo snapshot first, atomic, mode kept, through symlinks inside the root, to exactly the file
// the permission check named and only while it holds what the change was planned against) and
// the record that lets the next edit go ahead without another read.
import { loadChecked, writeChecked, type WriteRefusal } from "./checkedFile.ts";
import type { LoadedFile } from "./textFile.ts";
import type { FileToolDeps } from "./fileToolDeps.ts";
import type { ReadTracker } from "./readTracker.ts";
import { diffPreview } from "./changePreview.ts";
import type { CallInfo } from "../core-types/callInfo.ts";
import {
  changedWhileWaiting,
  type CheckedState,
  pathTarget,
  realPathOf,
  resolveToolPath,
  symlinkEscape,
  type ResolvedPath,
  titlePath,
} from "./paths.ts";
import { unsavedProblem } from "./editorBuffers.ts";
import { projectGone } from "./projectGone.ts";
import type { z } from "zod";
import type { PlanContext, PlanWithState, Tool, ToolContext, ToolResult } from "./types.ts";

/** Why the model may not change this existing file as things stand, or undefined. */
export function freshnessProblem(
  resolved: ResolvedPath,
  reads: ReadTracker,
  bytes: Uint8Array,
  verb: "edit" | "overwrite",
): string | undefined {
  switch (reads.check(resolved.realPath, bytes)) {
    case "fresh":
      return undefined;
    case "unread":
      return verb === "edit"
        ? `You have not read ${resolved.display} in this session. Read it with read_file ` +
            `first, then make the edit against its current text.`
        : `${resolved.display} already exists and you have not read it in this session. ` +
            `Read it with read_file before replacing it, or use edit_file to change part of ` +
            `it.`;
    case "stale":
      return (
        `${resolved.display} has changed since you last read it (the user, a command or ` +
        `a formatter changed it). Read it again with read_file, then redo the ${verb} ` +
        `against the current text.`
      );
  }
}

/** A problem with writing to this path at all, or undefined. */
function targetProblem(resolved: ResolvedPath, deps: Pick<FileToolDeps, "extraRoots">): string | undefined {
  return symlinkEscape(resolved, deps.extraRoots);
}

/** The file a change is planned against, as it is now (a folder is never one). */
export type ChangeTarget =
  | { resolved: ResolvedPath; error: string }
  | { resolved: ResolvedPath; loaded: Exclude<LoadedFile, { kind: "folder" }> };

/**
 * The opening of both change plans (planEdit, planWrite): the target resolved, refused when a
 * symlink leads it out of the project, read as it is now; a folder, or a file swapped while it
 * was read, is an error for either tool.
 */
export function loadTarget(
  path: string,
  root: string,
  home: string | undefined,
  deps: Pick<FileToolDeps, "extraRoots" | "withheld">,
): ChangeTarget {
  const resolved = resolveToolPath(path, root, home);
  const escape = targetProblem(resolved, deps);
  if (escape) return { resolved, error: escape };
  const loaded = loadChecked(resolved.realPath);
  if (loaded.kind === "changed")
    return {
      resolved,
      error: changedWhileWaiting(resolved, resolved.realPath, root, deps.withheld, "written", loaded.now),
    };
  if (loaded.kind === "folder")
    return { resolved, error: `${resolved.display} is a folder. Give the path of a file inside it.` };
  return { resolved, loaded };
}

/**
 * The text a write or edit puts in the file: its own, or the part of it the user accepted in a
 * hunk review (ToolContext.partial), provided the file is still the one that was reviewed.
 */
function approvedText(
  ctx: Pick<ToolContext, "partial">,
  oldText: string | null,
  newText: string,
): { text: string } | { error: string } {
  const partial = ctx.partial;
  if (!partial) return { text: newText };
  if (partial.change.oldText !== oldText) {
    return {
      error:
        "The file changed after the user reviewed this change, so nothing was written. " +
        "Read the file again and make the change again.",
    };
  }
  return { text: partial.change.newText };
}

/** A path that leads elsewhere than where its permission check said: refused, never followed. */
function checkedProblem(resolved: ResolvedPath, checked: string, root: string, deps: FileToolDeps): string | undefined {
  return resolved.realPath === checked
    ? undefined
    : changedWhileWaiting(resolved, checked, root, deps.withheld, "written");
}

function refusalMessage(
  refusal: WriteRefusal,
  resolved: ResolvedPath,
  checked: string,
  root: string,
  deps: FileToolDeps,
  verb: "edit" | "write",
): string {
  switch (refusal.kind) {
    case "changed":
      return changedWhileWaiting(resolved, checked, root, deps.withheld, "written", refusal.now);
    case "created":
      return (
        `${resolved.display} was created while this call waited (by a command or the ` +
        `user); nothing was written. Read it with read_file, then try again.`
      );
    case "deleted":
      return `${resolved.display} was deleted while this call waited; nothing was written. Check it and try again.`;
    case "modified":
      return (
        `${resolved.display} changed while this call waited (a command or the user ` +
        `changed it); nothing was written. Read it again with read_file, then redo the ` +
        `${verb}.`
      );
  }
}

/**
 * Snapshot, write, record. The caller has planned the change against the current file (`oldBytes`,
 * null for a new one) and made sure `resolved` leads to `checked`, the real path the permission
 * check named. After the snapshot (which can take a while) the path must still lead there, and
 * the file there must still hold `oldBytes`; the write goes to that file only (checkedFile.ts).
 * Returns an error for the model, or undefined when written.
 */
async function commitWrite(
  resolved: ResolvedPath,
  checked: string,
  oldBytes: Uint8Array | null,
  content: string,
  ctx: ToolContext,
  deps: FileToolDeps,
  verb: "edit" | "write",
): Promise<string | undefined> {
  await ctx.beforeWrite([checked]);
  const now = realPathOf(resolved.path);
  if (now !== checked) return changedWhileWaiting(resolved, checked, ctx.root, deps.withheld, "written");
  const bytes = new TextEncoder().encode(content);
  // A file in the project gets its missing folders below the root only: a root deleted meanwhile is not made again.
  const inside = checked.startsWith(`${ctx.root}/`);
  const written = writeChecked(checked, bytes, oldBytes, inside ? ctx.root : undefined);
  if ("kind" in written)
    return (
      (inside ? projectGone(ctx.root) : undefined) ?? refusalMessage(written, resolved, checked, ctx.root, deps, verb)
    );
  deps.reads.record(checked, bytes, written.mtimeMs);
  return undefined;
}

/** What both tools plan against the file as it is now: the target, its text and bytes, and the new text. */
export type ChangePlan<Extra> =
  | ({ ok: true; resolved: ResolvedPath; oldText: string | null; oldBytes: Uint8Array | null; newText: string } & Extra)
  | { ok: false; resolved: ResolvedPath; error: string };

export interface ChangeTool<Input extends { path: string }, Extra> {
  tool: "edit_file" | "write_file";
  /** Model-facing, as Tool's. */
  description: string;
  input: z.ZodType<Input>;
  verb: "edit" | "write";
  /** "Edit", "Write": the title's and the preview's first word. */
  title: string;
  plan(args: Input, root: string, home: string | undefined): ChangePlan<Extra>;
  /** The line a front end follows along at (edit_file: the first change). */
  line?(plan: ChangePlan<Extra> & { ok: true }): number | undefined;
  deps: FileToolDeps;
  /** The result of a change written: `text` is what went into the file (hunk review: part of it). */
  written(change: ChangePlan<Extra> & { ok: true }, text: string): ToolResult;
}

/** write_file and edit_file: one plan, one run up to the write; each words its own result. */
export function changeTool<Input extends { path: string }, Extra>(
  spec: ChangeTool<Input, Extra>,
): Tool<Input, PlanWithState<Input, CheckedState>> {
  return {
    name: spec.tool,
    description: spec.description,
    input: spec.input,
    readOnly: false,
    plan: (args, ctx) => changePlan(spec, args, ctx),
    async run(plan, ctx) {
      const applied = await applyChange(spec, plan, ctx);
      return "error" in applied ? { output: applied.error, isError: true } : spec.written(applied.change, applied.text);
    },
  };
}

/**
 * plan() of a file change, what write_file and edit_file share: the target resolved once, the
 * change planned against the file as it is now (the tool_call's diff and the approval preview),
 * or the reason it cannot be made (cannotRun). A file the policy hides gets no diff.
 */
function changePlan<Input extends { path: string }, Extra>(
  spec: ChangeTool<Input, Extra>,
  args: Input,
  ctx: Pick<PlanContext, "root" | "home">,
): PlanWithState<Input, CheckedState> {
  const checked = resolveToolPath(args.path, ctx.root, ctx.home);
  const info: CallInfo = {
    title: `${spec.title} ${titlePath(args.path, ctx.root, ctx.home)}`,
    kind: "edit",
    locations: [{ path: checked.path }],
  };
  const request = { tool: spec.tool, readOnly: false, target: pathTarget(checked, "write") };
  const plan = { input: args, info, state: { checked } };
  if (spec.deps.withheld(checked.path) || spec.deps.withheld(checked.realPath))
    return { ...plan, permission: { ...request, preview: `${spec.title} ${checked.path}` } };
  // The change is planned on a second resolve: a path re-pointed between the two (a background
  // command swapping in a link) would show another file's diff under this file's name.
  const resolvedAgain = spec.plan(args, ctx.root, ctx.home);
  const moved = checkedProblem(resolvedAgain.resolved, checked.realPath, ctx.root, spec.deps);
  const planned: typeof resolvedAgain = moved
    ? { ok: false, resolved: resolvedAgain.resolved, error: moved }
    : resolvedAgain;
  if (!planned.ok) {
    return {
      ...plan,
      permission: {
        ...request,
        preview: `${spec.title} ${checked.path}\n(This ${spec.verb} cannot be made as asked: ${planned.error})`,
      },
      cannotRun: planned.error,
    };
  }
  const change = { path: checked.path, oldText: planned.oldText, newText: planned.newText };
  const line = spec.line?.(planned);
  return {
    ...plan,
    info: { ...info, locations: [line === undefined ? { path: checked.path } : { path: checked.path, line }], change },
    permission: { ...request, preview: diffPreview(checked, change), change },
  };
}

/**
 * run() of a file change up to the write: the file the permission check named and no other (the
 * path may have been re-pointed since), planned again, the approved text (hunk review), written.
 * The change and the text written, or the error for the model.
 */
async function applyChange<Input extends { path: string }, Extra>(
  spec: ChangeTool<Input, Extra>,
  { input: args, state: { checked } }: PlanWithState<Input, CheckedState>,
  ctx: ToolContext,
): Promise<{ change: ChangePlan<Extra> & { ok: true }; text: string } | { error: string }> {
  const resolved = resolveToolPath(args.path, ctx.root, ctx.home);
  const target = checked.realPath;
  const moved = checkedProblem(resolved, target, ctx.root, spec.deps);
  if (moved) return { error: moved };
  // Planned again: the file may have changed while the call waited for its approval.
  const change = spec.plan(args, ctx.root, ctx.home);
  if (!change.ok) return { error: change.error };
  const movedAgain = checkedProblem(change.resolved, target, ctx.root, spec.deps);
  if (movedAgain) return { error: movedAgain };
  const approved = approvedText(ctx, change.oldText, change.newText);
  if ("error" in approved) return approved;
  const unsaved = await unsavedProblem(spec.deps, change.resolved, target, change.oldText, {
    root: ctx.root,
    signal: ctx.signal,
  });
  if (unsaved) return { error: unsaved };
  const failed = await commitWrite(change.resolved, target, change.oldBytes, approved.text, ctx, spec.deps, spec.verb);
  return failed ? { error: failed } : { change, text: approved.text };
}
