// /diff's text (undo.ts diff()): the files the session's turns changed (each undo point's before
// → after, and those of the points dropped), and git's unified diff of them from the state before
// the first turn to now, cut at a bound.
import { type GitRunner, gitMessage, shellQuote } from "./undoGit.ts";
import { diffTrees, type UndoPoint } from "./undoTree.ts";

/** The files are named on git's command line up to this many characters; past it, every change is shown. */
const MAX_PATHSPEC_CHARS = 100_000;
/** The output is cut after this many characters. */
const MAX_DIFF_CHARS = 1_000_000;

/** The diff of `paths` from tree `from` to tree `to`, or a line in parentheses saying why there is none. */
export async function diffText(git: GitRunner, from: string, to: string, paths: readonly string[]): Promise<string> {
  const specs = paths.map(shellQuote).join(" ");
  const result = await git.run({
    script:
      `GIT_LITERAL_PATHSPECS=1 g diff --no-color --no-ext-diff --no-textconv ${from} ` +
      `${to}${specs.length <= MAX_PATHSPEC_CHARS ? ` -- ${specs}` : ""} >"$OUT"`,
    capture: true,
  });
  if (result.exitCode !== 0) return `(No diff: ${gitMessage(result)})`;
  const text = result.stdout.toString("utf8");
  return text.length <= MAX_DIFF_CHARS
    ? text
    : `${text.slice(0, MAX_DIFF_CHARS)}\n… (the diff is cut here: ${text.length} characters in all)\n`;
}

export interface SessionChanges {
  git: GitRunner;
  /** The project before the session's first turn (a tree id). */
  first: string;
  /** The project now. */
  now: string;
  /** The undo points kept, oldest first (the open turn's has no `after` yet). */
  points: readonly UndoPoint[];
  /** Paths changed by turns whose points were dropped (past the store's most points). */
  droppedPaths: ReadonlySet<string>;
}

/** The paths the session's turns changed: each kept point's before → after (the open turn's → now). */
async function sessionPaths({ git, now, points, droppedPaths }: SessionChanges): Promise<string[] | undefined> {
  const paths = new Set(droppedPaths);
  for (const point of points) {
    const changes = await diffTrees(git, point.before, point.after ?? now);
    if (changes === undefined) return undefined;
    for (const change of changes) paths.add(change.path);
  }
  return [...paths].sort();
}

/**
 * The session's diff: the files its turns changed, as they are now against the state before its
 * first turn. A file only the user changed between turns is not in it.
 */
export async function sessionDiff(session: SessionChanges): Promise<string> {
  if (session.now === session.first) return "";
  const paths = await sessionPaths(session);
  if (paths === undefined) return "(No diff: the snapshots could not be compared.)";
  if (paths.length === 0) return "";
  return diffText(session.git, session.first, session.now, paths);
}
