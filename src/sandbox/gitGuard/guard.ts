// The git guard of one project: git on this computer must never run a program that a sandboxed
// command planted. The sandbox holds what exists (paths.ts: .git/config, hooks, redirect files,
// and the same in every nested repository known here); what does not exist yet cannot be held
// by a mount, so the guard watches for it while sandboxed commands run (watch.ts) and moves
// it out of git's way within milliseconds (quarantine.ts):
// - a nested repository anywhere in the project (`.git` folder, file or link, or a bare
//   repository) that could run something (repos.ts judges it); one that cannot (a clone,
//   `git worktree add`, `git submodule update`) is left alone and judged again as it changes;
// - a commondir, or a config.worktree git would read, appearing in a known repository's git folder.
// Known repositories are the user's: those found before any sandboxed command ran, made while
// none ran, or judged harmless. A Garuda process that dies mid-command leaves its owner file
// behind (record.ts), and the next guard for the project sweeps it: every repository
// not known then is judged as if a command had just made it.
//
// One guard serves every session of the process in its project (host.ts). Its work is
// asynchronous (walks that yield, `git config` as a child process), so it is done one step at a
// time, in order (`serial`): the first walk, then the events as they came, the looks a command's
// start and end ask for. A command starts only once every step queued before it is done, so what
// happened before it is never taken for its doing. Events wait in one bounded inbox (eventInbox.ts),
// taken by at most one queued step; a subtree whose events cost too much is soon scanned instead
// of watched (watch.ts, storm.ts). What the guard knows is guardState.ts; what it judges while
// commands run, judgments.ts.
import { dirname, join } from "node:path";
import type { Inotify, InotifyEvent } from "../inotify.ts";
import { createInbox } from "./eventInbox.ts";
import {
  type GitGuardOptions,
  type GuardedRun,
  createGuardState,
  judgeContext,
  moveUnnamed,
  neutralize,
  presentRedirects,
  save,
} from "./guardState.ts";
import { checkConfigs, checkRedirects, judgeAll, keepConfigs } from "./judgments.ts";
import { SWEPT_NOTE } from "./notes.ts";
import type { KnownRepo } from "./record.ts";
import { type Marker, gitDirOf, hasExecLines, judgeMarker, markersAt, todoLists } from "./repos.ts";
import type { Storm } from "./storm.ts";
import type { TreeWatch, WatchChange } from "./watchTypes.ts";

export interface GitGuard {
  readonly root: string;
  readonly watch: TreeWatch;
  /** Settles when the first walk is done (and the sweep, if one was due). */
  readonly ready: Promise<void>;
  /** Nested repositories (their folders) to hold read-only in the next command. */
  heldRepos(): string[];
  /** Events of the watch's folders (or an overflow): looked at after every step queued before. */
  events(events: InotifyEvent[]): Promise<void>;
  /** Watches with `inotify` (got at last after none was left) and looks at the whole tree again. */
  attach(inotify: Inotify): Promise<void>;
  /** A full look at what may have changed unseen: unwatched subtrees, content changed without an event. */
  verify(scanUnwatched: boolean): Promise<void>;
  /** Before a command: what appeared in unwatched subtrees while none ran is the user's; then the command begins. */
  begin(run: GuardedRun): Promise<void>;
  /** After the command: the last look, then the run ends; true when it was the last one (the guard is idle again). */
  end(run: GuardedRun): Promise<boolean>;
  readonly active: boolean;
  /** Notes no command received yet (a sweep at start); the next command gets them. */
  pendingNotes(): string[];
  /** Resolves once every step queued before the call is done (the events received so far handled). */
  settled(): Promise<void>;
  close(): void;
}

const sameMarker = (a: Marker, b: Marker) => a.kind === b.kind && a.ino === b.ino && a.entry === b.entry;
const entryOf = (repo: KnownRepo, root: string) => join(root, repo.dir, repo.kind === "bare" ? "HEAD" : ".git");

export function createGitGuard(options: GitGuardOptions): GitGuard {
  const { root, watch, record } = options;
  const state = createGuardState(options);
  let truncationNoted = false;

  let todosAtStart = new Map<string, string | undefined>();
  const rootTodoLists = () => {
    const rootGit = state.known.get(join(root, ".git"));
    const gitDir = rootGit ? gitDirOf(rootGit.marker) : undefined;
    return typeof gitDir === "string" ? todoLists(gitDir) : new Map<string, string | undefined>();
  };

  /** A todo list the command left or changed with exec lines: git runs those on the host at `--continue`. */
  function noteTodoLists(run: GuardedRun): void {
    for (const [path, text] of rootTodoLists()) {
      if (text === undefined || text === todosAtStart.get(path) || !hasExecLines(text)) continue;
      const note = state.notes.todo(path);
      run.notes.push(note);
      run.onNote(note);
    }
  }

  /** Brings what is known about the repositories at `dirs` up to date. */
  function look(dirs: Iterable<string>): void {
    for (const dir of dirs) {
      const now = markersAt(dir);
      for (const map of [state.known, state.provisional] as Array<Map<string, { marker: Marker } | Marker>>) {
        for (const entry of [join(dir, ".git"), join(dir, "HEAD")]) {
          const was = map.get(entry);
          if (!was) continue;
          const marker = "marker" in was ? was.marker : was;
          if (!now.some((m) => sameMarker(m, marker))) {
            map.delete(entry);
            state.dirty = true;
          }
        }
      }
      for (const marker of now) {
        if (state.known.has(marker.entry) || state.provisional.has(marker.entry)) continue;
        if (state.runs.size === 0) {
          // No sandboxed command runs: the user (or a command they approved) made it.
          state.known.set(marker.entry, { marker, redirects: presentRedirects(marker) });
          state.dirty = true;
        } else state.provisional.set(marker.entry, marker);
      }
    }
  }

  /** The first look at the tree: known repositories, or a sweep when a Garuda process died mid-command. */
  async function init(): Promise<void> {
    const found = await watch.start();
    const recorded = new Map((record.known() ?? []).map((repo) => [entryOf(repo, root), repo]));
    const owners = record.owners();
    // A process killed mid-command, or one whose command runs now: what is not known may be a command's.
    const killed = owners.dead.filter((owner) => owner.active);
    const sweep = killed.length > 0 || owners.live.some((owner) => owner.active);
    const suspects: Marker[] = [];
    for (const dir of found) {
      for (const marker of markersAt(dir)) {
        const was = recorded.get(marker.entry);
        const matches = was !== undefined && was.kind === marker.kind && was.ino === marker.ino;
        if (!sweep || matches)
          state.known.set(marker.entry, {
            marker,
            redirects: matches ? new Set(was.redirects) : presentRedirects(marker),
          });
        else suspects.push(marker);
      }
    }
    state.dirty = true;
    if (sweep) {
      const before = state.pending.length;
      for (const marker of suspects) {
        const verdict = await judgeMarker(marker, judgeContext(state));
        if (verdict.ok) state.known.set(marker.entry, { marker, redirects: presentRedirects(marker) });
        else neutralize(state, marker, verdict.why);
      }
      await checkRedirects(state, judgeContext(state));
      for (const [path, text] of Object.entries(record.configs())) state.kept.set(join(root, path), text);
      await checkConfigs(state, judgeContext(state), []);
      if (killed.length > 0 && state.pending.length > before) {
        state.pending.splice(before, 0, SWEPT_NOTE);
      }
    }
    record.forget(owners.dead);
    save(state);
  }

  /**
   * Runs `step` with every running command's processes stopped (their pids to it): a command that
   * sees the guard's reads (inotify) cannot change what is read between the read and the judgment.
   */
  async function stilled<T>(step: (pids: number[]) => Promise<T>, scan = false): Promise<T> {
    const roots = [...state.runs].flatMap((run) => (run.pid === undefined ? [] : [run.pid]));
    // Nothing a command made to read (a stat of known repositories' redirects is no event): it runs on.
    const reads = scan || state.provisional.size > 0 || state.kept.size > 0;
    if (!options.freezer || roots.length === 0 || !reads) return step([]);
    const frozen = await options.freezer.freeze(roots);
    try {
      return await step(frozen.pids);
    } finally {
      frozen.thaw();
    }
  }

  /** That the storm's subtree is scanned instead of watched: once to each command. */
  function tellStorm(run: GuardedRun, storm: Storm): void {
    run.stormsTold ??= new Set();
    if (run.stormsTold.has(storm.top)) return;
    run.stormsTold.add(storm.top);
    const text = state.notes.stormed(storm.top, storm.events);
    run.notes.push(text);
    run.onNote(text);
  }

  async function processChange(change: WatchChange): Promise<void> {
    for (const storm of change.stormed) for (const run of state.runs) tellStorm(run, storm);
    if (change.overflow) {
      const again = await watch.rescan();
      look(new Set([...again, ...[...state.known.keys(), ...state.provisional.keys()].map((entry) => dirname(entry))]));
    } else look(change.candidates);
    moveUnnamed(state);
    if (state.runs.size > 0 && (change.overflow || change.candidates.size > 0 || change.touched.size > 0))
      await stilled((pids) => judgeAll(state, pids));
    if (state.runs.size === 0) save(state);
  }

  /** Stilled: a scan's opendir is seen by a command watching the folder, which must not hide a plant from it. */
  function verify(scanUnwatched: boolean): Promise<void> {
    const scan = scanUnwatched && watch.unwatched > 0;
    return stilled(async (pids) => {
      if (scan) look(await watch.scanUnwatched());
      moveUnnamed(state);
      await judgeAll(state, pids);
    }, scan);
  }

  /** The guard's steps, one at a time and in order; a step that fails does not stop the next. */
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  function serial<T>(step: () => Promise<T>): Promise<T> {
    // After close() no step runs: the watch is gone and the record released.
    const next = queue.then(() => (closed ? (undefined as T) : step()));
    queue = next.catch(() => undefined);
    return next;
  }

  const ready = serial(init);

  // Events kept before an overflow are still handled: they count towards a storm.
  const receive = createInbox({
    queue: serial,
    take: async (events, dropped) => {
      const change = await watch.handle(events);
      change.overflow ||= dropped;
      await processChange(change);
    },
    tally: (events) => {
      watch.lost();
      watch.tally(events);
    },
  });

  function begin(run: GuardedRun): void {
    if (state.runs.size === 0) {
      keepConfigs(state);
      todosAtStart = rootTodoLists();
      save(state);
      record.claim(true);
    }
    state.runs.add(run);
    if (watch.truncated && !truncationNoted) {
      truncationNoted = true;
      state.pending.push(state.notes.truncated(watch.maxFolders));
    }
    for (const text of state.pending.splice(0)) {
      run.notes.push(text);
      run.onNote(text);
    }
    // A storm another command still causes: this one's plants there are found by scans too.
    for (const storm of watch.stormed) tellStorm(run, storm);
  }

  function end(run: GuardedRun): boolean {
    noteTodoLists(run);
    for (const [key, times] of run.seen ?? []) {
      if (times < 2) continue;
      const text = state.notes.again(key, times);
      run.notes.push(text);
      run.onNote(text);
    }
    state.runs.delete(run);
    if (state.runs.size > 0) return false;
    record.claim(false);
    state.heldSince.clear();
    // Idle: what was judged harmless while commands ran is known from now on (and held in the next).
    for (const marker of state.provisional.values())
      state.known.set(marker.entry, { marker, redirects: presentRedirects(marker) });
    if (state.provisional.size > 0) state.dirty = true;
    state.provisional.clear();
    save(state);
    return true;
  }

  return {
    root,
    watch,
    ready,
    heldRepos: () =>
      [...new Set([...state.known.values()].map(({ marker }) => marker.dir))].filter((dir) => dir !== root),
    events: receive,
    attach: (inotify) =>
      serial(async () => {
        watch.attach(inotify);
        await processChange({ candidates: new Set(), touched: new Set(), overflow: true, stormed: [] });
      }),
    verify: (scanUnwatched) => serial(() => verify(scanUnwatched)),
    begin: (run) =>
      serial(async () => {
        // While none ran, what appeared in unwatched subtrees was the user's doing; what a storm
        // had left unwatched is watched again (if it still storms, it is soon left again).
        if (state.runs.size === 0 && watch.stormed.length > 0) look(await watch.calm());
        if (state.runs.size === 0 && watch.unwatched > 0) look(await watch.scanUnwatched());
        begin(run);
        moveUnnamed(state); // the user's own: a command could plant in them
      }),
    end: (run) =>
      serial(async () => {
        await verify(true);
        return end(run);
      }),
    get active() {
      return state.runs.size > 0;
    },
    pendingNotes: () => [...state.pending],
    settled: () => serial(async () => undefined),
    close() {
      closed = true;
      save(state);
      record.release();
      watch.close();
    },
  };
}
