// What one turn changed in the project, as the undo snapshots saw it (store/undoChanges.ts): the
// files in the snapshots with their texts for a diff, the files no snapshot holds (gitignored,
// outside the project), and whether the list names every change. Front ends show it at the end of
// a turn (acp/turnChanges.ts: a summary tool call, and JetBrains AIR's file-change report).

/** A file the turn's snapshots saw change. */
export interface ChangedFile {
  /** Absolute path. */
  path: string;
  status: "added" | "modified" | "deleted";
  /** Both texts, when both sides are text within the bounds (`oldText` null: the turn created it). */
  diff?: { oldText: string | null; newText: string };
  /** Why there is no diff (binary, a symbolic link, too large, past the number of diffs shown). */
  noDiff?: string;
}

/** A change no snapshot holds, named with why. */
export interface UntrackedChange {
  /** Absolute path; a folder ends with "/". */
  path: string;
  why: string;
  /** Gone: a file, or a whole folder (its files are not known one by one). */
  removed?: true;
}

export type TurnChanges =
  | {
      available: true;
      files: ChangedFile[];
      untracked: UntrackedChange[];
      /** True only when the lists name every change the turn made in the project folders. */
      complete: boolean;
      /** Why the lists may miss a change (empty when complete). */
      gaps: string[];
      /** A list was cut at its bound. */
      truncated: boolean;
    }
  | { available: false; reason: string };
