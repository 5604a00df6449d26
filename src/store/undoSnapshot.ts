// One snapshot of the project into the undo store (undo.ts): the store's index brought up to
// date, then written as a tree. The index is kept from snapshot to snapshot, so git reads again
// only the files whose stat data changed, and writes only the trees of their folders.
import { type GitRunner, gitMessage, shellQuote } from "./undoGit.ts";

/** A snapshot each this many runs git's gc (`--auto`: only when loose objects have piled up). */
const GC_EVERY = 20;
const TREE_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
/**
 * `add -A`. git refuses a tracked file that became a FIFO or a socket (it can only add files, links
 * and folders), and a command can make one: that would switch undo off, the turn's other changes
 * not undone. Such entries leave the index then (the snapshot holds them as removed, so an undo
 * puts the file back), and `add -A` runs again; the list is only walked when the first one fails.
 */
const ADD_ALL =
  "{ g add -A 2>/dev/null || { g ls-files -z -c | while IFS= read -r -d '' path; do " +
  `[ -f "$path" ] || [ -L "$path" ] || [ -d "$path" ] || [ ! -e "$path" ] || printf '%s\\0' "$path"; done | ` +
  "g update-index -z --force-remove --stdin && g add -A; }; }";

export interface SnapshotTakerOptions {
  git: GitRunner;
  /** Paths (relative) no snapshot holds, even when .gitignore brings them in. */
  excluded: readonly string[];
  timeoutMs: number;
  /** Switches undo off, saying why. */
  disable(reason: string): void;
}

/**
 * What a snapshot reads again: every file's stat data (undefined), or only the files a tool wrote (`written`,
 * relative, none of them ignored). (What changed since the last snapshot is read without the index:
 * undoChangeScope.ts, undoTreeEdit.ts.)
 */
export type SnapshotScope = { written: readonly string[] } | undefined;

/**
 * Takes snapshots: the project as a tree id, or undefined (undo is then off). The rest of the
 * index is as the last snapshot left it.
 */
export function snapshotTaker(options: SnapshotTakerOptions): (scope?: SnapshotScope) => Promise<string | undefined> {
  const { git, timeoutMs, disable } = options;
  const excludedArgs = ["--", ...options.excluded].map(shellQuote).join(" ");
  let taken = 0;
  /** git's gc, running in the background (one at a time). */
  let collecting: Promise<unknown> | undefined;

  /**
   * git's gc in the background: no prompt waits for it. It may run beside the store's other git
   * calls (git keeps what they write: it prunes only objects weeks old); in the foreground of
   * its process, since what a host command detaches ends with it (src/sandbox/keeper.ts).
   */
  function collect(): void {
    if (collecting) return;
    const done = () => {
      collecting = undefined;
    };
    collecting = git
      .run({ script: "g -c gc.autoDetach=false gc --auto --quiet >/dev/null 2>&1 || true" })
      .then(done, done);
  }

  async function take(scope?: SnapshotScope): Promise<string | undefined> {
    const result = await git.run({ ...update(scope), capture: true, timeoutMs });
    if (result.timedOut) {
      disable(
        `a snapshot of the project took more than ${timeoutMs / 1000} s. Add large ` +
          `generated folders to .gitignore to bring undo back in the next session.`,
      );
      return undefined;
    }
    const tree = result.stdout.toString("utf8").trim();
    if (result.exitCode !== 0 || !TREE_ID.test(tree)) {
      // By name, a path git will not take (in a nested repository, past a symlink): the whole tree then.
      if (scope !== undefined) return take();
      disable(`a snapshot failed (${gitMessage(result)}).`);
      return undefined;
    }
    if (++taken % GC_EVERY === 0) collect();
    return tree;
  }
  /** The script that brings the index up to date for `scope`, then writes the tree to "$OUT"; its stdin. */
  function update(scope: SnapshotScope): { script: string; stdin?: string } {
    const nul = (paths: readonly string[]) => paths.map((path) => `${path}\0`).join("");
    if (scope === undefined)
      return {
        script:
          `${ADD_ALL} && GIT_LITERAL_PATHSPECS=1 g rm -r -q --cached --ignore-unmatch ${excludedArgs} >/dev/null && ` +
          `g write-tree >"$OUT"`,
      };
    return { script: `g update-index --add --remove -z --stdin && g write-tree >"$OUT"`, stdin: nul(scope.written) };
  }

  return take;
}
