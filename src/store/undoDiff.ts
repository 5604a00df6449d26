// /diff's text (undo.ts diff()): git's unified diff between two snapshot trees, of the files the
// session's turns changed, cut at a bound.
import { type GitRunner, gitMessage, shellQuote } from "./undoGit.ts";

/** The files are named on git's command line up to this many characters; past it, every change is shown. */
const MAX_PATHSPEC_CHARS = 100_000;
/** The output is cut after this many characters. */
const MAX_DIFF_CHARS = 1_000_000;

/** The diff of `paths` from tree `from` to tree `to`, or a line in parentheses saying why there is none. */
export async function diffText(git: GitRunner, from: string, to: string, paths: readonly string[]): Promise<string> {
  const specs = paths.map(shellQuote).join(" ");
  const result = await git.run({
    script: `GIT_LITERAL_PATHSPECS=1 g diff --no-color --no-ext-diff --no-textconv ${from} ${to}${specs.length <= MAX_PATHSPEC_CHARS ? ` -- ${specs}` : ""} >"$OUT"`,
    capture: true,
  });
  if (result.exitCode !== 0) return `(No diff: ${gitMessage(result)})`;
  const text = result.stdout.toString("utf8");
  return text.length <= MAX_DIFF_CHARS
    ? text
    : `${text.slice(0, MAX_DIFF_CHARS)}\n… (the diff is cut here: ${text.length} characters in all)\n`;
}
