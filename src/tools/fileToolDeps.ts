// What the file tools of one session share: the read record, the paths never to show and the
// threads searches run in.
import type { EditorBuffers } from "./editorBuffers.ts";
import type { HiddenPredicate } from "./hidden.ts";
import type { ReadTracker } from "./readTracker.ts";
import type { SearchThreads } from "./searchWorker.ts";

export interface FileToolDeps {
  reads: ReadTracker;
  /** Combined predicate (sensitive files and the session's denials), see hiddenPredicate(). */
  hidden: HiddenPredicate;
  /** Worker threads for grep and find_definition (searchWorker.ts). */
  searches: SearchThreads;
  /** The session's other project folders (an editor's additionalDirectories), absolute and real. */
  extraRoots?: readonly string[];
  /** The editor's unsaved buffers, when the front end has them (ACP fs/read_text_file). */
  buffers?: EditorBuffers;
  /** How long a buffer read may take (default BUFFER_TIMEOUT_MS). */
  bufferTimeoutMs?: number;
}
