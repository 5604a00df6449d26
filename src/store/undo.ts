// The undo store: snapshots of the project per turn in a private git object store outside it
// (~/.garuda/snapshots/<sha256(root)[0:16]>/, 0700), with the project as git's work tree, so
// files changed by bash commands are covered as well as tool writes. It honours .gitignore and
// never stores .git or .garuda/sessions.
//
// A turn is one undo point: `beginTurn()` snapshots the project before the turn, `endTurn()`
// records it after. `undoLastTurn()` puts back what the last turn changed: files it created are
// removed, files it changed or deleted are restored. A file that changed again after the turn
// ended is left alone and named in a note, so undo never destroys work it did not see
// (undoLastTurn.ts). Without `endTurn()` the state at the next `beginTurn()` (or at the undo)
// counts as the turn's end. Turns that changed nothing are skipped. `diff()` is the session's
// diff (undoDiff.ts).
//
// What a snapshot costs. The store keeps one index per session, warm, so a snapshot writes only
// the trees of the folders that changed. The first index is a copy of the project's own when it
// is a git repository (undoSeed.ts), so not even the first snapshot hashes the whole tree. After
// it, a snapshot reads only the paths the git guard's watches saw change (undoChangeScope.ts),
// or, when they cannot vouch for every change (no sandbox, lost events, a process a command left
// running), every file's stat data (`add -A`). The runtime does not wait for a turn's snapshot
// (runtime/undoTurn.ts): a tool's write (`snapshot()`) and a command (`beforeCommand()`) do. A
// turn in which no command ran ends with a snapshot of the files its tools wrote. git's gc runs
// in the background. What inotify cannot see (a write through an mmap while the file stays open,
// or through a hard link outside the project) a snapshot by changed paths misses.
//
// Limits: a snapshot taking more than 30 s, any other git call more than 2 min (git blocks for
// good on a FIFO a command made as .gitignore), a failing git, or no git at all switch undo off
// for the session, with one notice (takeNotices()). A folder in no git repository with more than
// 50,000 files is not walked at all (undoPrecheck.ts): without the project's index every file
// would be hashed.
import { createHash, randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join, relative } from "node:path";
import { garudaPaths } from "../config/paths.ts";
import { messageOf } from "../errors/caught.ts";
import { isInside } from "../files/isInside.ts";
import type { Executor } from "../sandbox/types.ts";
import { GitRunner, nulFields, shellQuote } from "./undoGit.ts";
import { setUpStore } from "./undoSetup.ts";
import { sessionDiff } from "./undoDiff.ts";
import { snapshotTaker } from "./undoSnapshot.ts";
import { scopedSnapshots } from "./undoChangeScope.ts";
import { alignIndex, editTree } from "./undoTreeEdit.ts";
import type { SnapshotAccess } from "./rewindFiles.ts";
import { type UndoOutcome, undoLastTurn, undoRefused } from "./undoLastTurn.ts";
import { diffTrees, type UndoPoint } from "./undoTree.ts";
import { markTurnStart, type TurnStart, turnChanges } from "./undoChanges.ts";
import type { TurnChanges } from "../core-types/turnChanges.ts";

/** The most files of a folder in no git repository that undo walks (undoPrecheck.ts). */
const MAX_FILES = 50_000;
const SNAPSHOT_TIMEOUT_MS = 30_000;
/** The least time any other git call of the store gets (git's start alone takes a while on a loaded machine). */
const MIN_CALL_TIMEOUT_MS = 10_000;
const MAX_POINTS = 50;

export interface UndoStoreOptions {
  /** The project root (absolute, real path). */
  root: string;
  home: string;
  executor: Executor;
  /** The most files of a folder in no git repository (a repository has no limit). */
  maxFiles?: number;
  snapshotTimeoutMs?: number;
  maxPoints?: number;
}

export interface UndoStore {
  /** Takes the first snapshot in the background (at session start), so the first turn's is cheap. */
  prepare(): void;
  /** Snapshot before the turn's first change. Never throws: a failure switches undo off with a notice. */
  beginTurn(): Promise<void>;
  /**
   * Before a command runs (it may write anything): resolves once the turn's snapshot is taken,
   * and the end of the turn then looks at the whole project. `lasting`: it runs on after the
   * call (a background process), so every later turn's end does too.
   */
  beforeCommand(lasting?: boolean): Promise<void>;
  /** Records the project after the turn (call when every turn ends, also after cancel or error). */
  endTurn(): Promise<void>;
  /** Before a tool writes these absolute paths: cheap when beginTurn() covered the turn. */
  snapshot(paths: string[]): Promise<void>;
  undoLastTurn(): Promise<UndoOutcome>;
  /**
   * What the session's turns changed: the files they changed (each turn's before → after), as
   * they are now against the state before the session's first turn (unified diff; "" when none).
   * A file only the user changed between turns is not in it; a turn undone is not either.
   */
  diff(): Promise<string>;
  /** What the last turn changed (undoChanges.ts), once endTurn() has recorded its end. */
  turnChanges(): Promise<TurnChanges>;
  /** Notices not yet shown (undo switched off, a write undo cannot cover), each once. */
  takeNotices(): string[];
  /** Off, and why, or on. */
  readonly status: { enabled: true } | { enabled: false; reason: string };
  /** Removes the session's index file. */
  close(): Promise<void>;
  /** Runs a rewind's work on the snapshot store, one at a time with the store's own; undefined when undo is off. */
  withSnapshots<T>(work: (access: SnapshotAccess) => Promise<T>): Promise<T | undefined>;
}

/** The store's folder for a project. */
export function snapshotDir(home: string, root: string): string {
  return join(garudaPaths(home).snapshots, createHash("sha256").update(root).digest("hex").slice(0, 16));
}

/** The last turn: its point, the paths its tools wrote, and what was noted before its first command. */
interface OpenTurn {
  point: UndoPoint;
  writes: Set<string>;
  /** A command ran (or may have: a background process runs): its end looks at the whole tree. */
  commands: boolean;
  /**
   * Noted before its first command (the gitignored entries, for turnChanges); a turn of tool writes only needs none.
   */
  start?: Promise<TurnStart | undefined>;
}

export function createUndoStore(options: UndoStoreOptions): UndoStore {
  const { root, home, executor } = options;
  const maxFiles = options.maxFiles ?? MAX_FILES;
  const timeoutMs = options.snapshotTimeoutMs ?? SNAPSHOT_TIMEOUT_MS;
  const maxPoints = options.maxPoints ?? MAX_POINTS;
  const gitDir = snapshotDir(home, root);
  const tmpDir = join(gitDir, "tmp");
  const indexFile = join(gitDir, `index-${process.pid}-${randomBytes(4).toString("hex")}`);
  /** Touched before a turn's first command: what changed after it is the turn's (undoChanges.ts). */
  const markFile = join(gitDir, `mark-${process.pid}-${randomBytes(4).toString("hex")}`);
  /** Aborted by close(): a snapshot still running (the first, of a large tree) does not hold up the session's end. */
  const closing = new AbortController();
  // Any other call: a few snapshots' time (a restore of many files may take a while), then undo is off.
  const callTimeoutMs = Math.max(timeoutMs * 4, MIN_CALL_TIMEOUT_MS);
  const git = new GitRunner(executor, { root, gitDir, indexFile, tmpDir }, closing.signal, {
    ms: callTimeoutMs,
    onTimeout: () =>
      disable(
        `git did not answer within ${callTimeoutMs / 1000} s (a file it reads, such as ` +
          `a .gitignore or .gitattributes, may be a FIFO).`,
      ),
  });

  // What no snapshot holds (besides .git, which git never stores): the session files and, when
  // the project holds ~/.garuda (a project at ~), the snapshot store itself.
  const excluded = [".garuda/sessions"];
  const snapshots = garudaPaths(home).snapshots;
  if (isInside(snapshots, root) && snapshots !== root) excluded.push(relative(root, snapshots));
  // Kept out twice: by info/exclude (so `add -A` never reads them) and by removing them from the
  // index before each tree is written (so a .gitignore negation cannot bring them in). An
  // exclude pathspec on `add` is not used: git refuses it when the path is ignored anyway.
  const countSpecs = ["--", ".", ...excluded.map((path) => `:(exclude,literal)${path}`)].map(shellQuote).join(" ");

  const points: UndoPoint[] = [];
  const notices: string[] = [];
  /** Paths of tool writes already checked against .gitignore (each is checked once). */
  const checkedPaths = new Set<string>();
  /** Those of them .gitignore keeps out (relative): never added to a snapshot by name. */
  const ignoredPaths = new Set<string>();
  /** Paths changed by turns whose points were dropped (past maxPoints): still the session's changes. */
  const droppedPaths = new Set<string>();
  let first: string | undefined;
  let covered = false;
  /** The open turn's snapshot, being taken or taken (beginTurn() to endTurn()). */
  let opening: Promise<void> | undefined;
  let disabled: string | undefined;
  let initialized: Promise<void> | undefined;
  /** The index is a copy of the project's: the first snapshot reads only what differs from it. */
  let seeded = false;
  let queue: Promise<unknown> = Promise.resolve();
  /** A background process was started: it may write at any time, so every turn's end looks at the whole tree. */
  let lastingCommands = false;
  /** The last turn's point, what was noted when it began, the paths its tools wrote, and whether a command ran. */
  let turn: OpenTurn | undefined;

  /** Runs store operations one at a time. */
  function serial<T>(work: () => Promise<T>): Promise<T> {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  }

  function disable(reason: string): void {
    if (disabled !== undefined) return;
    disabled = reason;
    notices.push(`Undo is off for this session: ${reason}`);
  }

  const scoped = scopedSnapshots({
    root,
    excluded,
    changesSince: executor.changesSince?.bind(executor),
    take: snapshotTaker({ git, excluded, timeoutMs, disable }),
    edit: (base, paths) => editTree(git, base, paths, { excluded, timeoutMs }),
    align: (tree, paths) => alignIndex(git, tree, paths, timeoutMs),
    disable,
    lasting: () => lastingCommands,
  });
  const takeTree = scoped.take;

  async function init(): Promise<void> {
    const setUp = await setUpStore(git, { home, excluded, maxFiles });
    if ("refused" in setUp) disable(setUp.refused);
    else seeded = setUp.seeded;
  }

  async function ready(): Promise<boolean> {
    initialized ??= init().catch((error: unknown) =>
      disable(`the snapshot store could not be set up (${messageOf(error)}).`),
    );
    await initialized;
    return disabled === undefined;
  }

  /** The files in the project the open turn's tools wrote (relative). */
  function written(writes: ReadonlySet<string>): string[] {
    return [...writes].filter((path) => isInside(path, root) && path !== root).map((path) => relative(root, path));
  }

  /** The project after the open turn: only what its tools wrote (what a snapshot holds of it), unless a command ran. */
  async function endTree(): Promise<string | undefined> {
    if (!turn || turn.commands) return takeTree();
    const paths = written(turn.writes).filter(
      (path) => !ignoredPaths.has(path) && !excluded.some((out) => isInside(path, out)),
    );
    return paths.length === 0 ? turn.point.before : takeTree({ written: paths });
  }

  async function openTurn(): Promise<void> {
    // A background process may write from the start: noted now, as before a command.
    const start = lastingCommands ? markTurnStart(git, markFile, countSpecs) : undefined;
    await start;
    const tree = await takeTree();
    if (tree === undefined) return;
    const previous = points[points.length - 1];
    if (previous && previous.after === undefined) previous.after = tree;
    const point: UndoPoint = { before: tree };
    points.push(point);
    turn = { point, writes: new Set(), commands: lastingCommands, ...(start && { start }) };
    const dropped = points.length > maxPoints ? points.shift() : undefined;
    if (dropped?.after !== undefined)
      for (const change of (await diffTrees(git, dropped.before, dropped.after)) ?? []) droppedPaths.add(change.path);
    first ??= tree;
    covered = true;
  }

  /** A notice, once per path, for tool writes .gitignore keeps out of the snapshots. */
  async function noteIgnored(paths: string[]): Promise<void> {
    const fresh = [...new Set(paths)].filter((path) => !checkedPaths.has(path));
    if (fresh.length === 0) return;
    for (const path of fresh) checkedPaths.add(path);
    const result = await git.run({
      script: 'g check-ignore -z --stdin >"$OUT"',
      stdin: `${fresh.join("\0")}\0`,
      capture: true,
    });
    const ignored = result.exitCode === 0 ? nulFields(result.stdout) : [];
    for (const path of ignored) {
      ignoredPaths.add(path);
      notices.push(`${path} is ignored by .gitignore, so /undo will not restore it.`);
    }
  }

  async function undo(): Promise<UndoOutcome> {
    if (!(await ready())) return undoRefused(`Undo is off in this session: ${disabled}`);
    if (points.length === 0) return undoRefused("Nothing to undo: no turn of this session is left to undo.");
    const now = await takeTree();
    // What the undo does to the index (undoLastTurn.ts) starts from one in line with `now`.
    if (now === undefined || !(await scoped.inLine())) return undoRefused(`Undo is off in this session: ${disabled}`);
    scoped.forget();
    return undoLastTurn({
      git,
      points,
      now,
      uncover: () => {
        covered = false;
      },
    });
  }

  async function diff(): Promise<string> {
    if (!(await ready())) return `(No diff: undo snapshots are off in this session: ${disabled})`;
    if (first === undefined) return "";
    const now = await takeTree();
    if (now === undefined) return `(No diff: ${disabled})`;
    return sessionDiff({ git, first, now, points, droppedPaths });
  }

  const access: SnapshotAccess = {
    git,
    // A rewind then works on the index (rewindFiles.ts): in line with the tree it was given.
    takeTree: async () => {
      const tree = await takeTree();
      return tree !== undefined && (await scoped.inLine()) ? tree : undefined;
    },
    diffTrees: (from, to) => diffTrees(git, from, to),
    lastTurn: () => {
      const top = points[points.length - 1];
      return { ...(top && { before: top.before }), ...(top?.after !== undefined && { after: top.after }) };
    },
    forget: () => {
      points.length = 0;
      covered = false;
    },
  };

  return {
    withSnapshots: (work) =>
      serial(async () => {
        if (!(await ready())) return undefined;
        try {
          return await work(access);
        } finally {
          scoped.forget();
        }
      }),
    prepare: () => {
      // A copy of the project's index is as good as a snapshot taken now (the first turn's reads what differs).
      void serial(async () => {
        if ((await ready()) && first === undefined && !seeded) await takeTree();
      });
    },
    beginTurn: () => {
      opening = serial(async () => {
        if (await ready()) await openTurn();
      });
      return opening;
    },
    beforeCommand: async (lasting = false) => {
      if (lasting) lastingCommands = true;
      // The turn's snapshot is all a command waits for, not what is queued behind it (a rewind point's ref).
      if (opening) await opening.catch(() => undefined);
      else
        await serial(async () => {
          if ((await ready()) && !covered) await openTurn();
        });
      if (!covered || !turn) return;
      turn.commands = true;
      // What the command may change that no snapshot holds (gitignored files) is found from here.
      turn.start ??= markTurnStart(git, markFile, countSpecs);
      await turn.start;
    },
    endTurn: () =>
      serial(async () => {
        opening = undefined;
        if (!covered || !(await ready())) return;
        const tree = await endTree();
        const top = points[points.length - 1];
        if (tree !== undefined && top) top.after = tree;
        covered = false;
      }),
    snapshot: (paths) =>
      serial(async () => {
        if (!(await ready())) return;
        if (!covered) await openTurn();
        if (disabled !== undefined) return;
        for (const path of paths) turn?.writes.add(path);
        const inside = paths
          .filter((path) => isInside(path, root) && path !== root)
          .map((path) => relative(root, path));
        await noteIgnored(inside);
        // An editor's extra folder, or a file the user let a tool write elsewhere: no snapshot holds it.
        for (const path of paths.filter((path) => !isInside(path, root) && !checkedPaths.has(path))) {
          checkedPaths.add(path);
          notices.push(`${path} is outside the project folder ${root}, so /undo will not restore it.`);
        }
      }),
    undoLastTurn: () => serial(undo),
    turnChanges: () =>
      serial(async (): Promise<TurnChanges> => {
        if (disabled !== undefined) return { available: false, reason: `undo is off in this session: ${disabled}` };
        const after = turn?.point.after;
        if (!turn || after === undefined || points.at(-1) !== turn.point)
          return { available: false, reason: "no snapshot covers the whole of the last turn" };
        return turnChanges({
          git,
          root,
          before: turn.point.before,
          after,
          mark: markFile,
          start: turn.start ? await turn.start : undefined,
          ignoredWrites: written(turn.writes).filter((path) => ignoredPaths.has(path)),
          commands: turn.commands,
          specs: countSpecs,
          toolWrites: [...turn.writes],
          timeoutMs,
          isInside: (path) => isInside(path, root),
        });
      }),
    diff: () => serial(diff),
    takeNotices: () => notices.splice(0),
    get status() {
      return disabled === undefined ? { enabled: true as const } : { enabled: false as const, reason: disabled };
    },
    close: () => {
      closing.abort();
      return serial(async () => {
        for (const file of [indexFile, `${indexFile}.lock`, markFile]) rmSync(file, { force: true });
      });
    },
  };
}
