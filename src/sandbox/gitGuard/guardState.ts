// What one project's git guard knows, as one explicit object its steps share: the repositories
// known to be the user's and those made while commands run (provisional), the commands running,
// the notes no command received yet, the submodule configs kept, and whether the record on disk
// is behind. With the small operations every step uses on it: a note to the running commands, the
// folders the guard covers, the context a judgment needs, moving a plant away, saving the record.
// Apart from guard.ts (the steps and their order) and judgments.ts (what is judged while commands run).
import { existsSync, realpathSync } from "node:fs";
import { join, relative } from "node:path";
import { isInside } from "../../files/isInside.ts";
import type { ConfigParser } from "./configKeys.ts";
import type { Freezer } from "./freeze.ts";
import { guardNotes } from "./notes.ts";
import { shownName, unnamedIn } from "./folderNames.ts";
import { QUARANTINE_DIR, quarantine, quarantineUnnamed } from "./quarantine.ts";
import type { GuardRecord, KnownRepo } from "./record.ts";
import { type JudgeContext, type Marker, gitDirOf } from "./repos.ts";
import type { TreeWatch } from "./watchTypes.ts";

/** The redirect files a git folder may get: git would read another folder's config through them. */
export const REDIRECTS = ["commondir", "config.worktree"] as const;

/** One sandboxed command that may write the project, while it runs. */
export interface GuardedRun {
  notes: string[];
  onNote: (note: string) => void;
  /** How often each thing was noted (a command that makes it again and again gets one note, and a count). */
  seen?: Map<string, number>;
  /** Subtrees it was told are scanned instead of watched because of a storm. */
  stormsTold?: Set<string>;
  /**
   * Its first process on this computer (bwrap), once started: it and its descendants are stopped
   * while the guard looks.
   */
  pid?: number;
}

export interface GitGuardOptions {
  root: string;
  watch: TreeWatch;
  record: GuardRecord;
  configKeys: ConfigParser;
  extraGitDirs: string[];
  /** Stops the commands' processes while the guard looks (freeze.ts); without it they run on. */
  freezer?: Freezer;
}

export interface Known {
  marker: Marker;
  /** Redirect files its git folder had when it became known (held read-only from then on). */
  redirects: Set<string>;
}

export interface GuardState {
  readonly options: GitGuardOptions;
  readonly root: string;
  readonly quarantineDir: string;
  /** By entry (`<dir>/.git`, or `<dir>/HEAD` for a bare repository). */
  readonly known: Map<string, Known>;
  readonly provisional: Map<string, Marker>;
  readonly runs: Set<GuardedRun>;
  /** Notes no command received yet (a sweep at start); the next command gets them. */
  readonly pending: string[];
  /** Folders of repositories made while commands run whose git files a look saw held open for writing: when first. */
  readonly heldSince: Map<string, number>;
  /** Submodule configs as last known good (absolute path → text). */
  readonly kept: Map<string, string>;
  /** The record on disk is behind what is known. */
  dirty: boolean;
  readonly notes: ReturnType<typeof guardNotes>;
}

export function createGuardState(options: GitGuardOptions): GuardState {
  const { root } = options;
  return {
    options,
    root,
    quarantineDir: join(root, QUARANTINE_DIR),
    known: new Map(),
    provisional: new Map(),
    runs: new Set(),
    pending: [],
    heldSince: new Map(),
    kept: new Map(),
    dirty: false,
    notes: guardNotes(root),
  };
}

/** Tells every running command `text` once (counted under `key`); with none running, the next one. */
export function note(state: GuardState, key: string, text: string): void {
  if (state.runs.size === 0) state.pending.push(text);
  for (const run of state.runs) {
    run.seen ??= new Map();
    const times = run.seen.get(key) ?? 0;
    run.seen.set(key, times + 1);
    if (times > 0) continue;
    run.notes.push(text);
    run.onNote(text);
  }
}

export function judgeContext(state: GuardState): JudgeContext {
  const trusted = new Set<string>();
  for (const { marker } of state.known.values()) {
    const gitDir = gitDirOf(marker);
    if (typeof gitDir === "string") trusted.add(gitDir);
  }
  return {
    trusted: (dir) => trusted.has(dir),
    watched: (dir) => covered(state, dir),
    configKeys: state.options.configKeys,
  };
}

/** A folder the guard looks at: in the project (not the quarantine) or a linked worktree's git folders. */
export function covered(state: GuardState, dir: string): boolean {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return false;
  }
  if (real !== dir) return false; // through a link a command could re-point
  if (isInside(dir, state.root) && !isInside(dir, state.quarantineDir)) return true;
  return state.options.extraGitDirs.some((gitDir) => isInside(dir, gitDir));
}

/** Moves a planted repository out of git's way, and says so. */
export function neutralize(state: GuardState, marker: Marker, why: string): void {
  const result = quarantine(state.root, marker.entry);
  state.provisional.delete(marker.entry);
  state.known.delete(marker.entry);
  state.dirty = true;
  note(state, marker.entry, state.notes.planted(marker, why, result));
}

/**
 * While commands run, moves aside each folder whose name is not UTF-8 that the watch found, and says so: no path
 * string reaches into one, so a repository planted in it would be neither watched nor scanned (watch.ts). The user's
 * own such folders too (a command could plant in them): they are moved when a command begins.
 */
export function moveUnnamed(state: GuardState): void {
  if (state.runs.size === 0) return;
  for (const dir of state.options.watch.unnamed)
    for (const name of unnamedIn(dir)) {
      const result = quarantineUnnamed(state.root, dir, name);
      const path = join(dir, shownName(name));
      note(state, path, state.notes.unnamed(path, result));
    }
}

export function presentRedirects(marker: Marker): Set<string> {
  const gitDir = gitDirOf(marker);
  if (typeof gitDir !== "string") return new Set();
  return new Set(REDIRECTS.filter((name) => existsSync(join(gitDir, name))));
}

/** Writes what is known to the record, when it is behind. */
export function save(state: GuardState): void {
  if (!state.dirty) return;
  const { root } = state;
  const repos: KnownRepo[] = [...state.known.values()].map(({ marker, redirects }) => ({
    dir: relative(root, marker.dir),
    kind: marker.kind,
    ino: marker.ino,
    redirects: [...redirects],
  }));
  const configs = Object.fromEntries([...state.kept].map(([path, text]) => [relative(root, path), text]));
  try {
    state.options.record.saveKnown(repos, configs);
    state.dirty = false;
  } catch {
    // ~/.garuda not writable: the record stays as it was; the guard itself keeps working.
  }
}
