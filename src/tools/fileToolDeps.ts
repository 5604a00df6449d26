// What the file tools of one session share: the read record, the paths never to show and the
// threads searches run in.
import type { SecretIdentities } from "../files/secretIdentities.ts";
import type { BufferDeps } from "./editorBuffers.ts";
import type { ReadTracker } from "./readTracker.ts";
import type { SearchThreads } from "./searchWorker.ts";

/** The editor-buffer part (withheld, extraRoots, buffers, bufferTimeoutMs) is BufferDeps. */
export interface FileToolDeps extends BufferDeps {
  reads: ReadTracker;
  /** Worker threads for grep and find_definition (searchWorker.ts). */
  searches: SearchThreads;
  /** The secrets by identity (shared with the permission engine): hard links and mounts of them are refused. */
  identities: SecretIdentities;
}
