// What a tool call is about, for display: shared by the tools that describe calls, the events
// that carry them, the session file that keeps them and the front ends that show them. Like all
// of core-types, it imports nothing else of src/.
import type { FileChange } from "./fileChange.ts";

/** How a front end groups a call (ACP tool kinds). */
export type ToolKind = "read" | "search" | "edit" | "execute" | "fetch" | "think" | "other";

/** What a call is about, for display. Titles pass through oneLine()/visible() before display. */
export interface CallInfo {
  title: string;
  kind: ToolKind;
  /** Absolute paths (and the line, when the input has one) so an editor can follow along. */
  locations: Array<{ path: string; line?: number }>;
  /** For write_file and edit_file: the change, the same text the approval preview shows. */
  change?: FileChange;
}
