// The lines a search (grep, find_definition) adds about what it did not search and why, each with
// what to do about it: files over the size limit, pipes and devices, hard-linked files, paths that
// changed while it ran, and a search that spent its budget of work.
import { MAX_SEARCH_BYTES } from "./grepSearch.ts";
import type { SearchEnd } from "./searchWorker.ts";
import { formatBytes, MAX_TEXT_BYTES } from "./textFile.ts";
import { groupedCount } from "../text/count.ts";

export interface SearchTally {
  /** Files with a hit. */
  files: number;
  /** Matching lines. */
  lines: number;
  tooBig: string[];
  /** Pipes, sockets, devices: never opened. */
  special: string[];
  /** Files with more than one name (hard links). */
  linked: string[];
  /** Files that are a secret under another name (a hard link or a mount of a key, a credential …). */
  secret: string[];
  /** Paths that changed while the search ran (a folder or file replaced by a link). */
  changed: string[];
}

const n = (value: number) => groupedCount(value);
const plural = (value: number, word: string) => `${n(value)} ${word}${value === 1 ? "" : "s"}`;

function names(list: string[]): string {
  return list.slice(0, 5).join(", ") + (list.length > 5 ? ` and ${n(list.length - 5)} more` : "");
}

export function searchNotes(tally: SearchTally, end: SearchEnd, tool: "grep" | "find_definition"): string[] {
  const notes: string[] = [];
  if (tally.tooBig.length > 0) {
    notes.push(
      `[Not searched: ${plural(tally.tooBig.length, "file")} over ` +
        `${formatBytes(MAX_SEARCH_BYTES)} (${names(tally.tooBig)}). Give one as path to ` +
        `search it (up to ${formatBytes(MAX_TEXT_BYTES)}).]`,
    );
  }
  if (tally.special.length > 0) {
    const one = tally.special.length === 1;
    notes.push(
      `[Not searched: ${plural(tally.special.length, "path")} that ` +
        `${one ? "is" : "are"} not a regular file (a pipe, socket or device, which ` +
        `reading could hang on): ${names(tally.special)}.]`,
    );
  }
  if (tally.linked.length > 0) {
    notes.push(
      `[Not searched: ${plural(tally.linked.length, "file")} with more than one name ` +
        `(hard links; another name may be a secret file): ${names(tally.linked)}. Give ` +
        `one as path to search it; the user is asked first.]`,
    );
  }
  if (tally.secret.length > 0) {
    const one = tally.secret.length === 1;
    notes.push(
      `[Not searched: ${plural(tally.secret.length, "file")} that ` +
        `${one ? "is" : "are"} a secret file (a key or credential) under another name — ` +
        `a hard link or a mount: ${names(tally.secret)}. Their contents are not for the ` +
        `model, as the secret's own are not.]`,
    );
  }
  if (tally.changed.length > 0) {
    notes.push(
      `[Skipped: ${plural(tally.changed.length, "path")} that changed while the ` +
        `search ran (replaced by a link or moved): ${names(tally.changed)}. Search ` +
        `again once nothing is changing them.]`,
    );
  }
  if (end.kind === "over_budget") notes.push(overBudgetNote(end, tool));
  return notes;
}

/** What the search did before it stopped, and what to do about it. */
function overBudgetNote(end: Extract<SearchEnd, { kind: "over_budget" }>, tool: "grep" | "find_definition"): string {
  const seconds = (end.spentMs / 1000).toFixed(1);
  const spent =
    end.clock === "cpu"
      ? `${seconds} s of CPU time`
      : `${seconds} s (wall-clock time: this system does not report a thread's CPU time)`;
  const read = `${plural(end.work.files, "file")} (${formatBytes(end.work.bytes)})`;
  const allowance = `${n(end.budget.cpuMs / 1000)} s plus ${n(end.budget.cpuMsPerMB)} ms per MB read`;
  const what =
    tool === "grep"
      ? "The pattern is slow on this text: nested quantifiers such as (a+)+ backtrack " +
        "without end. Simplify the pattern, or narrow path or glob."
      : "Narrow the search with path.";
  return (
    `[The search stopped after ${spent}, having read ${read}: more than its budget ` +
    `(${allowance}). What was found until then is above. ${what}]`
  );
}
