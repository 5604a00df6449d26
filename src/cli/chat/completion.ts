// Tab in the prompt: completes the `/command` at the start of the prompt or the `@path` at the
// cursor. One candidate is put in whole (a command or file followed by a space, a folder by "/"
// so Tab goes on into it); several are completed as far as they agree and listed under the
// prompt. Pure: the candidates come from completionSource.ts, the editor applies the edit.

export interface Candidate {
  /** What goes in the prompt after "/" or "@": "help", "src/", "src/main.ts". */
  value: string;
  /** Shown beside it in the list (a command's description). */
  description?: string;
  /** A folder: completing it adds no space, so the next Tab goes on inside it. */
  folder?: boolean;
}

export interface CompletionTarget {
  kind: "command" | "path";
  /** UTF-16 index of the word's start, just after "/" or "@"; the word ends at the cursor. */
  start: number;
  /** The word typed so far: up to the cursor. */
  word: string;
}

/**
 * What Tab would complete at `cursor`: a command at the prompt's start, an @path anywhere; else undefined (Tab
 * indents).
 */
export function completionTarget(text: string, cursor: number): CompletionTarget | undefined {
  const before = text.slice(0, cursor);
  const command = /^\/([A-Za-z0-9_:-]*)$/.exec(before);
  if (command) return { kind: "command", start: 1, word: command[1] as string };
  const path = /(?:^|\s)@([^\s"'`<>()[\]{}]*)$/.exec(before);
  if (path) return { kind: "path", start: cursor - (path[1] as string).length, word: path[1] as string };
  return undefined;
}

export interface Completion {
  /** The text to put in place of the target's word (undefined: leave it). */
  insert?: string;
  /** The candidates to list under the prompt (none when one was taken). */
  list: Candidate[];
}

function commonPrefix(values: readonly string[]): string {
  let prefix = values[0] ?? "";
  for (const value of values) while (!value.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/** A path with blanks is written as the mentions read it: "@\"my file.txt\"". */
const quotedPath = (value: string) => (/\s/.test(value) ? `"${value.replace(/(["\\])/g, "\\$1")}"` : value);

/** What Tab does with these matching candidates (already filtered to the word). */
export function complete(target: CompletionTarget, matches: readonly Candidate[]): Completion {
  const only = matches.length === 1 ? matches[0] : undefined;
  if (only) {
    const value = target.kind === "path" ? quotedPath(only.value) : only.value;
    return { insert: only.folder ? value : `${value} `, list: [] };
  }
  if (matches.length === 0) return { list: [] };
  const prefix = commonPrefix(matches.map((candidate) => candidate.value));
  // A prefix with a blank cannot be written unquoted, and a quote would end the completion.
  const extends_ = prefix.length > target.word.length && !/\s/.test(prefix);
  return { ...(extends_ && { insert: prefix }), list: [...matches] };
}

/** Candidates that start with the word (commands: any case). */
export function matching(target: CompletionTarget, candidates: readonly Candidate[]): Candidate[] {
  if (target.kind === "command") {
    const word = target.word.toLowerCase();
    return candidates.filter((candidate) => candidate.value.toLowerCase().startsWith(word));
  }
  return candidates.filter((candidate) => candidate.value.startsWith(target.word));
}

/** The width of the name column: the longest name with its sign and two blanks, at most 32. */
const nameWidth = (list: readonly Candidate[], sign: string) =>
  Math.min(32, Math.max(...list.map((candidate) => [...candidate.value].length)) + sign.length + 2);

/** A row cut to one less than the width (an ellipsis at the cut), so it never wraps. */
const cutTo = (columns: number) => (line: string) =>
  [...line].length > columns - 1 ? `${[...line].slice(0, columns - 2).join("")}…` : line;

/** The list under the prompt: at most `rows` lines (the last says how many more), each cut to `columns`. */
export function listLines(list: readonly Candidate[], sign: string, columns: number, rows = 8): string[] {
  const shown = list.length > rows ? list.slice(0, rows - 1) : list;
  const width = nameWidth(shown, sign);
  const cut = cutTo(columns);
  const lines = shown.map((candidate) =>
    cut(`  ${`${sign}${candidate.value}`.padEnd(width)}${candidate.description ?? ""}`.trimEnd()),
  );
  if (list.length > shown.length) lines.push(cut(`  … ${list.length - shown.length} more (type more of the name)`));
  return lines;
}

/**
 * How well `word` fits `path` as the menu's fuzzy match (lower is better); undefined when its
 * characters are not all in the path in order. Any case. A match in the file's name beats one
 * across folders, a run of letters beats scattered ones, a shorter path a longer one.
 */
export function fuzzyScore(word: string, path: string): number | undefined {
  const want = word.toLowerCase();
  const hay = path.toLowerCase();
  const name = hay.slice(hay.lastIndexOf("/") + 1);
  const inName = name.indexOf(want);
  if (inName >= 0) return inName + path.length / 1000;
  const inPath = hay.indexOf(want);
  if (inPath >= 0) return 100 + inPath + path.length / 1000;
  let gaps = 0;
  let at = -1;
  for (const char of want) {
    const next = hay.indexOf(char, at + 1);
    if (next < 0) return undefined;
    if (next !== at + 1) gaps++;
    at = next;
  }
  return 1000 + gaps * 10 + path.length / 1000;
}

/** The files that fit `word` fuzzily, best first, at most `limit`. */
export function fuzzyFiles(word: string, files: readonly string[], limit: number): Candidate[] {
  const scored: Array<{ file: string; score: number }> = [];
  for (const file of files) {
    const score = fuzzyScore(word, file);
    if (score !== undefined) scored.push({ file, score });
  }
  scored.sort((a, b) => a.score - b.score || (a.file < b.file ? -1 : 1));
  return scored.slice(0, limit).map(({ file }) => ({ value: file }));
}

/**
 * The menu under the prompt: a window of at most `rows` candidates that keeps `selected` in
 * view, the selected one marked ("❯", `mark` styles it), each cut to `columns`, and a line saying
 * how many there are when not all fit.
 */
export function menuLines(
  list: readonly Candidate[],
  selected: number,
  sign: string,
  columns: number,
  rows: number,
  mark: (line: string) => string = (line) => line,
): string[] {
  const first = Math.max(0, Math.min(selected - rows + 1, list.length - rows));
  const shown = list.slice(first, first + rows);
  const width = nameWidth(list, sign);
  const cut = cutTo(columns);
  const lines = shown.map((candidate, i) => {
    const chosen = first + i === selected;
    const line = cut(
      `${chosen ? "❯ " : "  "}${`${sign}${candidate.value}`.padEnd(width)}${candidate.description ?? ""}`.trimEnd(),
    );
    return chosen ? mark(line) : line;
  });
  if (list.length > shown.length) lines.push(cut(`  (${selected + 1} of ${list.length}; ↑↓ to move)`));
  return lines;
}
