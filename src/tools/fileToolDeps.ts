// What the file tools of one session share: the read record, the paths never to show and the
// threads searches and outlines run in.
import type { SecretIdentities } from "../files/secretIdentities.ts";
import type { BufferDeps } from "./editorBuffers.ts";
import type { ReadTracker } from "./readTracker.ts";
import type { SearchThreads } from "./searchWorker.ts";
import type { OutlineThread } from "./codeIndex/outlineThread.ts";

/** The editor-buffer part (withheld, extraRoots, buffers, bufferTimeoutMs) is BufferDeps. */
export interface FileToolDeps extends BufferDeps {
  reads: ReadTracker;
  /** Worker threads for grep and find_definition (searchWorker.ts). */
  searches: SearchThreads;
  /** The thread find_definition and symbols parse in (codeIndex/outlineThread.ts). */
  outlines: OutlineThread;
  /** The secrets by identity (shared with the permission engine): hard links and mounts of them are refused. */
  identities: SecretIdentities;
}
