// The editor's unsaved buffers, as a capability a front end may give the file tools (ACP's
// fs/read_text_file). The core never learns how it is asked: it calls read() after its own path
// and permission checks, and only for a file inside the project folders that no rule hides and
// that is not sensitive, so a path the checks refused, a `../` path or a symlink out of the root
// never reaches the editor. A slow or failing editor costs at most the timeout: the file on disk
// is used then. Garuda never writes through the editor; an edit of a file whose buffer differs
// from the disk is refused (unsavedProblem) so the user's unsaved work is not silently forked.
import { insideRoot } from "../permission/pathMatch.ts";
import { untilAborted } from "../untilAborted.ts";
import type { WithheldPredicate } from "./withheldPaths.ts";
import type { ResolvedPath } from "./paths.ts";
import { MAX_TEXT_BYTES } from "./textFile.ts";

export interface EditorBuffers {
  /**
   * The text of the editor's buffer of this file (an absolute, real path), or undefined when it
   * has none to give or the request failed. May throw or never answer: callers bound it.
   */
  read(absPath: string, signal: AbortSignal): Promise<string | undefined>;
}

/** How long a buffer read may take before the file on disk is used. */
const BUFFER_TIMEOUT_MS = 2_000;

/** What a buffer read needs of the session's file tools (FileToolDeps extends it). */
export interface BufferDeps {
  /** Combined predicate (sensitive files and the session's denials), see withheldPredicate(). */
  withheld: WithheldPredicate;
  /** The session's other project folders (an editor's additionalDirectories), absolute and real. */
  extraRoots?: readonly string[];
  /** The editor's unsaved buffers, when the front end has them (ACP fs/read_text_file). */
  buffers?: EditorBuffers;
  /** How long a buffer read may take (default BUFFER_TIMEOUT_MS). */
  bufferTimeoutMs?: number;
}

export interface BufferQuery {
  root: string;
  signal: AbortSignal;
}

/**
 * Whether the editor may be asked about this file: the path as given and the real path it leads
 * to both inside a project folder, and neither one hidden (sensitive, denied by a rule).
 */
function mayAskEditor(
  resolved: ResolvedPath,
  checked: string,
  root: string,
  deps: Pick<BufferDeps, "withheld" | "extraRoots">,
): boolean {
  const roots = [root, ...(deps.extraRoots ?? [])];
  const inside = (path: string) => roots.some((folder) => insideRoot(path, folder) !== undefined);
  if (!inside(resolved.path) || !inside(checked) || !inside(resolved.realPath)) return false;
  return !deps.withheld(resolved.path) && !deps.withheld(checked) && !deps.withheld(resolved.realPath);
}

/**
 * The editor's text of a checked file, or undefined (no buffer capability, a path it may not be
 * asked about, no answer within the timeout, an error, a text larger than read_file reads).
 */
async function editorText(
  deps: BufferDeps,
  resolved: ResolvedPath,
  checked: string,
  query: BufferQuery,
): Promise<string | undefined> {
  const buffers = deps.buffers;
  if (!buffers || !mayAskEditor(resolved, checked, query.root, deps)) return undefined;
  const timeout = new AbortController();
  const stop = () => timeout.abort();
  query.signal.addEventListener("abort", stop, { once: true });
  const timer = setTimeout(stop, deps.bufferTimeoutMs ?? BUFFER_TIMEOUT_MS);
  try {
    const answer = await untilAborted(
      buffers.read(checked, timeout.signal).catch(() => undefined),
      timeout.signal,
      () => undefined,
    );
    if (typeof answer !== "string" || Buffer.byteLength(answer) > MAX_TEXT_BYTES) return undefined;
    return answer;
  } finally {
    clearTimeout(timer);
    query.signal.removeEventListener("abort", stop);
  }
}

/** Compares as editors save: a buffer without the file's BOM or with LF for CRLF is the same text. */
const sameText = (a: string, b: string) =>
  a === b || a.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n") === b.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");

/** The editor's buffer when it differs from the disk text, else undefined. */
export async function unsavedBuffer(
  deps: BufferDeps,
  resolved: ResolvedPath,
  checked: string,
  diskText: string,
  query: BufferQuery,
): Promise<string | undefined> {
  const text = await editorText(deps, resolved, checked, query);
  return text === undefined || sameText(text, diskText) ? undefined : text;
}

/** The refusal of a write to a file with unsaved changes in the editor, or undefined. */
export async function unsavedProblem(
  deps: BufferDeps,
  resolved: ResolvedPath,
  checked: string,
  diskText: string | null,
  query: BufferQuery,
): Promise<string | undefined> {
  if (diskText === null) return undefined;
  if ((await unsavedBuffer(deps, resolved, checked, diskText, query)) === undefined) return undefined;
  return `${resolved.display} has unsaved changes in the editor: its buffer differs from the file on disk, and Garuda changes only the file on disk. Nothing was written. Ask the user to save (or revert) ${resolved.display} in the editor, then read it again and redo the change.`;
}

/** The note a read from the buffer carries, so the model knows the disk says otherwise. */
export function bufferNote(display: string): string {
  return `[This is the editor's unsaved buffer of ${display}; the file on disk differs. An edit changes the file on disk, so it is refused until the user saves: ask them to save first.]`;
}
