// A file change a write or edit would make. Here, not in permission/, because a call's CallInfo
// carries it to the front ends (and the session file) as well as the approval that shows it.

/** A file change a write or edit would make, for diffs in approvals. oldText null = new file. */
export interface FileChange {
  path: string;
  oldText: string | null;
  newText: string;
}
