// glob: files by name pattern under a folder, newest first, at most 200, respecting .gitignore
// and the session's hidden paths. It walks the folder the permission check named (walk.ts), or has
// the embedded ripgrep list it where there is one (ripgrepGlob.ts: the same files, faster). A file
// that is a secret on the list under another name (a hard link, a mount: files/secretIdentities.ts)
// is left out like a hidden one, and the model is told how many.
import { lstatSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { FileToolDeps } from "./fileToolDeps.ts";
import { compileGlob, globProblem } from "./globMatch.ts";
import description from "./glob.txt" with { type: "text" };
import { changedWhileWaiting, type CheckedState, displayPath, realPathOf, placeName } from "./paths.ts";
import { searchPlace, searchPlan } from "./readPlans.ts";
import type { PlanWithState, Tool, ToolResult } from "./types.ts";
import { walkFiles, type WalkFile } from "./walk.ts";
import { listWithRipgrep } from "./ripgrepGlob.ts";
import { ripgrepFor } from "./ripgrepSearch.ts";
import type { SecretIdentitySet } from "../files/secretIdentities.ts";
import { insideRoot } from "../permission/pathMatch.ts";
import { groupedCount } from "../text/count.ts";

const MAX_GLOB_RESULTS = 200;

const input = z.object({
  pattern: z
    .string()
    .min(1)
    .describe("Glob: `*.ts` matches names at any depth; `src/**/*.ts` matches paths from the search folder."),
  path: z
    .string()
    .optional()
    .describe("Folder to search, relative to the project root or absolute (default: the root)."),
});
export type GlobInput = z.infer<typeof input>;

const error = (output: string): ToolResult => ({ output, isError: true });

/**
 * The entry's own mtime (a symlink's, not its target's), only to sort by, or "secret" when the file
 * is a secret under another name. By its path, not through its open folder (twice as fast on a
 * large tree): a swap at this moment changes the order, never what is listed; only names are
 * listed, and read_file and grep check the file they open again. The identity comes from the lstat
 * made for the mtime anyway (a link's target costs one stat more), so every listed file is
 * compared: a bind mount has one name and the device of the file system it shows, so neither the
 * number of names nor the device could tell which files to skip.
 */
function mtimeOf(file: WalkFile, secrets: SecretIdentitySet): number | "secret" {
  try {
    const own = lstatSync(file.abs);
    const identity = file.link ? statSync(file.realPath) : own;
    return secrets.secretOf(identity.dev, identity.ino) === undefined ? own.mtimeMs : "secret";
  } catch {
    return 0;
  }
}

export function globTool(deps: FileToolDeps): Tool<GlobInput, PlanWithState<GlobInput, CheckedState>> {
  return {
    name: "glob",
    description,
    input,
    readOnly: true,
    plan: (args, ctx) => searchPlan("glob", args, args.pattern, ctx),
    async run(plan, ctx) {
      const args = plan.input;
      const problem = globProblem(args.pattern);
      if (problem) return error(problem);
      // The folder the permission check named, and no other: the path may have been re-pointed since.
      const place = searchPlace(plan, ctx, deps);
      if ("error" in place) return error(place.error);
      const { base, target, kind } = place;
      if (kind === "missing")
        return error(
          `Folder not found: ${base.display}. Give an existing folder in "path", or leave ` +
            `it out to search the whole project.`,
        );
      if (kind !== "folder")
        return error(
          `${base.display} is a file, not a folder. Give its folder in "path", or use read_file to read it.`,
        );
      const glob = compileGlob(args.pattern);
      const start = glob.prefix === "" ? target : realPathOf(join(target, glob.prefix));
      // The prefix folder is walked by its real path, which must stay inside the checked folder.
      try {
        if (insideRoot(start, target) === undefined || !statSync(start).isDirectory())
          throw new Error("not a folder here");
      } catch {
        return {
          output: `No files match ${args.pattern} in ${placeName(base)} (there is no folder ${glob.prefix}).`,
          summary: "No files",
        };
      }
      const named = `${args.pattern} ${args.path ?? ""}`.split(/[/\\\s]/).includes("node_modules");
      const found: Array<{ abs: string; mtime: number }> = [];
      const secretNames: string[] = [];
      const secrets = await deps.identities.current();
      const prefix = glob.prefix === "" ? "" : `${glob.prefix}/`;
      const onFile = (file: WalkFile) => {
        if (!glob.matches(prefix + file.rel)) return;
        const abs = join(base.path, prefix + file.rel);
        const mtime = mtimeOf(file, secrets);
        if (mtime === "secret") secretNames.push(displayPath(abs, ctx.root));
        else found.push({ abs, mtime });
      };
      const rg = ripgrepFor(ctx, start, named, deps.withheld);
      const listed =
        rg &&
        (await listWithRipgrep({
          ...rg,
          glob,
          signal: ctx.signal,
        }));
      if (listed === "cancelled") return error("Cancelled.");
      if (listed) {
        // The same as onFile, from the stat the listing made (which matched the pattern already).
        const under = `${base.path.endsWith("/") ? base.path : `${base.path}/`}${prefix}`;
        for (const { rel, place } of listed) {
          const abs = under + rel;
          if (secrets.secretOf(place.file.dev, place.file.ino) !== undefined)
            secretNames.push(displayPath(abs, ctx.root));
          else found.push({ abs, mtime: place.mtimeMs });
        }
      } else {
        const stats = await walkFiles({
          root: ctx.root,
          base: start,
          signal: ctx.signal,
          withheld: deps.withheld,
          includeNodeModules: named,
          onFile,
        });
        if (stats.baseChanged)
          return error(changedWhileWaiting(base, target, ctx.root, deps.withheld, "read", stats.baseChanged.now));
        if (stats.aborted) return error("Cancelled.");
      }
      const withheldNote =
        secretNames.length === 0
          ? ""
          : `\n[Not listed: ${groupedCount(secretNames.length)} matching ` +
            `file${secretNames.length === 1 ? " that is a secret file" : "s that are secret files"} ` +
            `(a key or credential) under another name — a hard link or a mount. They are ` +
            `left out as the secrets themselves are.]`;
      if (found.length === 0) {
        return {
          output:
            `No files match ${args.pattern} in ${placeName(base)}. (.git, node_modules and ` +
            `.gitignore'd files are not searched.)${withheldNote}`,
          summary: "No files",
        };
      }
      found.sort((a, b) => b.mtime - a.mtime || (a.abs < b.abs ? -1 : 1));
      const shown = found.slice(0, MAX_GLOB_RESULTS).map((file) => displayPath(file.abs, ctx.root));
      const note =
        found.length > shown.length
          ? `\n[Showing the ${MAX_GLOB_RESULTS} newest of ${groupedCount(found.length)} ` +
            `files. Narrow the pattern or the path to see the others.]`
          : "";
      return {
        output: shown.join("\n") + note + withheldNote,
        summary: `${groupedCount(found.length)} file${found.length === 1 ? "" : "s"}`,
      };
    },
  };
}
