// What the file tools of one session share: the read record, the paths never to show and the
// threads searches run in.
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
}
