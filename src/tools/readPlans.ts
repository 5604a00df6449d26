// The plans of the tools that read a path (read_file and symbols one file; grep, glob and
// find_definition a folder or file), and how the searches' runs start alike: the path is resolved
// once, in plan(); the title and the read request name it; run() reads that real path and no
// other (a path can be re-pointed while the call waits for an approval).
import { statSync } from "node:fs";
import type { FileToolDeps } from "./fileToolDeps.ts";
import type { ToolKind } from "../core-types/callInfo.ts";
import {
  changedWhileWaiting,
  type CheckedState,
  pathPreview,
  pathTarget,
  resolveToolPath,
  type ResolvedPath,
  titlePath,
} from "./paths.ts";
import type { PlanContext, PlanWithState, ToolContext } from "./types.ts";

/** The plan of a tool that reads one file: the title names the path as the model wrote it (titlePath). */
export function filePlan<Input extends { path: string }>(
  call: { tool: string; kind: ToolKind; title: (path: string) => string; line?: number | undefined },
  args: Input,
  ctx: PlanContext,
): PlanWithState<Input, CheckedState> {
  const checked = resolveToolPath(args.path, ctx.root, ctx.home);
  return {
    input: args,
    info: {
      title: call.title(titlePath(args.path, ctx.root, ctx.home)),
      kind: call.kind,
      locations: [call.line === undefined ? { path: checked.path } : { path: checked.path, line: call.line }],
    },
    permission: { tool: call.tool, readOnly: true, target: pathTarget(checked, "read"), preview: pathPreview(checked) },
    state: { checked },
  };
}

/** The plan of a search: `what` is the pattern or name searched for (title and preview). */
export function searchPlan<Input extends { path?: string | undefined }>(
  tool: string,
  args: Input,
  what: string,
  ctx: PlanContext,
): PlanWithState<Input, CheckedState> {
  const checked = resolveToolPath(args.path ?? ".", ctx.root, ctx.home);
  return {
    input: args,
    info: { title: `Search ${what}`, kind: "search", locations: [{ path: checked.path }] },
    permission: {
      tool,
      readOnly: true,
      target: pathTarget(checked, "read"),
      preview: `${what} in ${pathPreview(checked)}`,
    },
    state: { checked },
  };
}

/** What the searched path is now: still the checked one (`target`, its real path), and its kind. */
export type SearchPlace =
  | { error: string }
  | { base: ResolvedPath; target: string; kind: "folder" | "file" | "special" | "missing" };

/** run()'s first step: the path resolved again; an error when it no longer leads where it was checked. */
export function searchPlace(
  plan: PlanWithState<{ path?: string | undefined }, CheckedState>,
  ctx: Pick<ToolContext, "root" | "home">,
  deps: Pick<FileToolDeps, "withheld">,
): SearchPlace {
  const base = resolveToolPath(plan.input.path ?? ".", ctx.root, ctx.home);
  const target = plan.state.checked.realPath;
  if (base.realPath !== target) return { error: changedWhileWaiting(base, target, ctx.root, deps.withheld, "read") };
  try {
    const stat = statSync(target);
    return { base, target, kind: stat.isDirectory() ? "folder" : stat.isFile() ? "file" : "special" };
  } catch {
    return { base, target, kind: "missing" };
  }
}

/** grep's and find_definition's words for a path that is not there. */
export function notFound(base: ResolvedPath): string {
  return (
    `Not found: ${base.display}. Give an existing folder or file in "path", or ` +
    `leave it out to search the whole project.`
  );
}
