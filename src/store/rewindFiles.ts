// The files half of a rewind, in the undo store's snapshot store (undo.ts): the refs that keep a
// session's rewind points from git's gc, what a rewind to a point would change, and the restore.
//
// Each point is a ref, refs/garuda/<session>/points/<message id>, naming the tree of the project
// just before that message; refs/garuda/<session>/end names the files as the last turn left
// them. A ref is ~100 bytes; what it keeps alive is the content of the files as they were at that
// point, stored once (git shares every blob and tree with the other snapshots, so a point costs
// the files the turn before it changed, compressed, plus the trees of their folders). A session
// keeps the files of its newest MAX_FILE_POINTS points; an older point's ref is deleted (its
// conversation half stays), and the files of a deleted point go at git's next gc.
import type { GitRunner } from "./undoGit.ts";
import { gitMessage } from "./undoGit.ts";
import type { TreeChange } from "./undoTree.ts";

/** The most points of one session whose files are kept. */
export const MAX_FILE_POINTS = 100;

/** What the undo store lends a rewind (run one at a time with its own work: UndoStore.withSnapshots). */
export interface SnapshotAccess {
  git: GitRunner;
  /** The project now as a tree id; undefined when a snapshot failed (undo is then off). */
  takeTree(): Promise<string | undefined>;
  diffTrees(from: string, to: string): Promise<TreeChange[] | undefined>;
  /** The trees of the latest turn: before it, and after it once it ended. */
  lastTurn(): { before?: string; after?: string };
  /** Forgets the per-turn undo points (after a rewind put other files back, they no longer hold). */
  forget(): void;
}

export const pointRef = (session: string, messageId: string) => `refs/garuda/${session}/points/${messageId}`;
export const endRef = (session: string) => `refs/garuda/${session}/end`;

/** Sets and deletes refs in one git call; the failure's message, or undefined. */
export async function updateRefs(
  git: GitRunner,
  set: ReadonlyArray<{ ref: string; tree: string }>,
  remove: readonly string[] = [],
): Promise<string | undefined> {
  const lines = [...set.map(({ ref, tree }) => `update ${ref} ${tree}`), ...remove.map((ref) => `delete ${ref}`)];
  if (lines.length === 0) return undefined;
  const result = await git.run({ script: "g update-ref --stdin", stdin: `${lines.join("\n")}\n` });
  return result.exitCode === 0 ? undefined : gitMessage(result);
}

/** The session names that have refs in the store (refs/garuda/<session>/…). */
export async function sessionsWithRefs(git: GitRunner): Promise<string[] | undefined> {
  const result = await git.run({
    script: `g for-each-ref --format='%(refname)' refs/garuda/ >"$OUT"`,
    capture: true,
  });
  if (result.exitCode !== 0) return undefined;
  const names = result.stdout
    .toString("utf8")
    .split("\n")
    .flatMap((ref) => /^refs\/garuda\/([^/]+)\//.exec(ref)?.[1] ?? []);
  return [...new Set(names)];
}

/** Deletes every ref of these sessions (sessions whose files are gone). */
export async function removeSessionRefs(git: GitRunner, sessions: readonly string[]): Promise<void> {
  for (const session of sessions)
    await git.run({
      script: `g for-each-ref --format='delete %(refname)' 'refs/garuda/${session}/' | g update-ref --stdin`,
    });
}

/** What a files rewind does, or would do. */
export interface FilesPlan {
  /** The project now. */
  now: string;
  /** Put back as they were at the point (changed or deleted since). */
  restore: string[];
  /** Made since the point: removed. */
  remove: string[];
  /** Among those, the files changed outside Garuda since it last recorded them: asked about first. */
  outside: string[];
  /** Left alone, with why (nested repositories). */
  skipped: Array<{ path: string; why: string }>;
}

/**
 * What putting the files back to `point` would change, and which of those files changed outside
 * Garuda since `known` (what its last turn left, or its last point). Undefined when a snapshot
 * or a diff failed.
 */
export async function planFiles(
  access: SnapshotAccess,
  point: string,
  known: string | undefined,
): Promise<FilesPlan | undefined> {
  const now = await access.takeTree();
  if (now === undefined) return undefined;
  const changes = await access.diffTrees(now, point);
  if (changes === undefined) return undefined;
  const since = known === undefined ? [] : await access.diffTrees(known, now);
  if (since === undefined) return undefined;
  const changedOutside = new Set(since.map((change) => change.path));
  const plan: FilesPlan = { now, restore: [], remove: [], outside: [], skipped: [] };
  for (const change of changes) {
    if (change.gitlink) {
      plan.skipped.push({ path: change.path, why: "it is a nested git repository; rewind does not touch those" });
      continue;
    }
    // From now to the point: a file the point lacks was made since (removed); any other is restored.
    if (change.status === "D") plan.remove.push(change.path);
    else plan.restore.push(change.path);
    if (changedOutside.has(change.path)) plan.outside.push(change.path);
  }
  return plan;
}

/** Removes `remove`, then checks `restore` out of `tree`; the failure's message, or undefined. */
export async function restoreFiles(
  git: GitRunner,
  tree: string,
  files: { remove: readonly string[]; restore: readonly string[] },
): Promise<string | undefined> {
  if (files.remove.length > 0) {
    const removed = await git.run({
      script: "g rm -q -f --ignore-unmatch --pathspec-from-file=- --pathspec-file-nul >/dev/null",
      stdin: `${files.remove.join("\0")}\0`,
      literal: true,
    });
    if (removed.exitCode !== 0) return `removing files failed (${gitMessage(removed)})`;
  }
  if (files.restore.length > 0) {
    const restored = await git.run({
      script: `g checkout ${tree} --pathspec-from-file=- --pathspec-file-nul >/dev/null`,
      stdin: `${files.restore.join("\0")}\0`,
      literal: true,
    });
    if (restored.exitCode !== 0) return `restoring files failed (${gitMessage(restored)})`;
  }
  return undefined;
}
