// What the file tools of one session share: the read record and the paths never to show.
import type { HiddenPredicate } from "./hidden.ts";
import type { ReadTracker } from "./readTracker.ts";

export interface FileToolDeps {
  reads: ReadTracker;
  /** Combined predicate (sensitive files and the session's denials), see hiddenPredicate(). */
  hidden: HiddenPredicate;
}
