// The editor's unsaved buffers, as a capability a front end may give the file tools (ACP's
// fs/read_text_file). The core never learns how it is asked: it calls read() after its own path
// and permission checks, and only for a file inside the project folders that no rule hides and
// that is not sensitive, so a path the checks refused, a `../` path or a symlink out of the root
// never reaches the editor. A slow or failing editor costs at most the timeout: the file on disk
// is used then. Garuda never writes through the editor; an edit of a file whose buffer differs
// from the disk is refused (unsavedProblem) so the user's unsaved work is not silently forked.
//
// The editor reads by path and follows links on the host, and a process in the project (a
// sandboxed background job) can swap the path for a link to a secret between Garuda's read and the
// editor's. So the answer counts only for the file Garuda read: the path is stamped before the
// request (every component, no link, the file the descriptor read: same device and inode) and
// again after the answer (ctimes from the project folder down), and a path that changed in
// between, even if put back, gives the disk
// text as checked with a note saying why (files/pathStamp.ts). The disk rather than a refusal: the
// model asked for the file, and the disk is what the checks approved.
import { type FileIdentity, isFile, settledStamp, stampPath, unchanged } from "../files/pathStamp.ts";
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

/** The file a buffer is asked for: its real path as checked, and what the descriptor that read it saw. */
export interface BufferFile {
  realPath: string;
  /** The identity of the file read (its fstat); absent where only a difference is looked at (unsavedProblem). */
  identity?: FileIdentity;
}

/** The editor's answer: its text, or that the path changed while it was asked (the answer is not used). */
type EditorAnswer = { text: string } | { changed: true } | undefined;

/** The editor's answer within the timeout (undefined: none, an error, a text larger than read_file reads). */
async function ask(buffers: EditorBuffers, realPath: string, deps: BufferDeps, query: BufferQuery) {
  const timeout = new AbortController();
  const stop = () => timeout.abort();
  query.signal.addEventListener("abort", stop, { once: true });
  const timer = setTimeout(stop, deps.bufferTimeoutMs ?? BUFFER_TIMEOUT_MS);
  try {
    const answer = await untilAborted(
      buffers.read(realPath, timeout.signal).catch(() => undefined),
      timeout.signal,
      () => undefined,
    );
    return typeof answer !== "string" || Buffer.byteLength(answer) > MAX_TEXT_BYTES ? undefined : answer;
  } finally {
    clearTimeout(timer);
    query.signal.removeEventListener("abort", stop);
  }
}

/**
 * The editor's text of a checked file, or undefined (no buffer capability, a path it may not be
 * asked about, no answer within the timeout, an error, a text larger than read_file reads), or
 * `changed`: the path did not lead to the file that was read for the whole time the editor was asked.
 */
async function editorText(
  deps: BufferDeps,
  resolved: ResolvedPath,
  file: BufferFile,
  query: BufferQuery,
): Promise<EditorAnswer> {
  const buffers = deps.buffers;
  if (!buffers || !mayAskEditor(resolved, file.realPath, query.root, deps)) return undefined;
  // Ctimes from the project folder that holds the file down (pathStamp.ts says why not above it).
  const watched = [query.root, ...(deps.extraRoots ?? [])]
    .filter((folder) => insideRoot(file.realPath, folder) !== undefined)
    .reduce((deepest, folder) => (folder.length > deepest.length ? folder : deepest), "/");
  const before = await settledStamp(file.realPath, watched);
  if (before === undefined || (file.identity !== undefined && !isFile(before, file.identity))) return { changed: true };
  const text = await ask(buffers, file.realPath, deps, query);
  if (text === undefined) return undefined;
  const after = stampPath(file.realPath, watched);
  return after !== undefined && unchanged(before, after) ? { text } : { changed: true };
}

/** Compares as editors save: a buffer without the file's BOM or with LF for CRLF is the same text. */
const sameText = (a: string, b: string) =>
  a === b || a.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n") === b.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");

/**
 * The editor's buffer when it differs from the disk text (`unsaved`), `changed` when the path did not
 * stay the file that was read while the editor was asked (its answer is not used), else undefined.
 */
export async function unsavedBuffer(
  deps: BufferDeps,
  resolved: ResolvedPath,
  file: BufferFile,
  diskText: string,
  query: BufferQuery,
): Promise<{ unsaved: string } | { changed: true } | undefined> {
  const answer = await editorText(deps, resolved, file, query);
  if (answer === undefined || "changed" in answer) return answer;
  return sameText(answer.text, diskText) ? undefined : { unsaved: answer.text };
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
  // An answer for another file (the path changed meanwhile) says nothing about this one; the write
  // itself then finds the change (checkedFile.ts).
  const buffer = await unsavedBuffer(deps, resolved, { realPath: checked }, diskText, query);
  if (buffer === undefined || "changed" in buffer) return undefined;
  return (
    `${resolved.display} has unsaved changes in the editor: its buffer differs from ` +
    `the file on disk, and Garuda changes only the file on disk. Nothing was ` +
    `written. Ask the user to save (or revert) ${resolved.display} in the editor, ` +
    `then read it again and redo the change.`
  );
}

/** The note a read from the buffer carries, so the model knows the disk says otherwise. */
export function bufferNote(display: string): string {
  return (
    `[This is the editor's unsaved buffer of ${display}; the file on disk differs. ` +
    `An edit changes the file on disk, so it is refused until the user saves: ask ` +
    `them to save first.]`
  );
}

/** The note of a read that asked the editor and did not use its answer: the path changed meanwhile. */
export function bufferChangedNote(display: string): string {
  return (
    `[The editor's buffer of ${display} was not used: the path changed while the ` +
    `editor was asked (the file or a folder on the way was replaced or renamed, ` +
    `perhaps by a link for a moment). This is the file on disk as it was checked ` +
    `and read.]`
  );
}
