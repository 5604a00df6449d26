// The approval preview of a file change: the unified diff, with the real target named when a
// symlink is involved.
import type { FileChange } from "../core-types/fileChange.ts";
import { unifiedDiff } from "./diff.ts";
import type { ResolvedPath } from "./paths.ts";

export function diffPreview(resolved: ResolvedPath, change: FileChange): string {
  const diff = unifiedDiff(resolved.display, change.oldText, change.newText).text;
  return resolved.realPath === resolved.path
    ? diff
    : `(${resolved.path} is a symlink to ${resolved.realPath})\n${diff}`;
}
