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
// of watched (watch.ts, storm.ts).
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { isInside } from "../../files/isInside.ts";
import type { GuardRecord, KnownRepo } from "./record.ts";
import { QUARANTINE_DIR, quarantine, restoreFile } from "./quarantine.ts";
import { SWEPT_NOTE, guardNotes } from "./notes.ts";
import { createInbox } from "./eventInbox.ts";
import {
  type JudgeContext,
  type Marker,
  configFileProblem,
  gitDirOf,
  hasExecLines,
  judgeMarker,
  markersAt,
  readSmall,
  todoLists,
  trustedWorktreeConfig,
  unsafeAddition,
} from "./repos.ts";
import type { TreeWatch, WatchChange } from "./watch.ts";
import type { Storm } from "./storm.ts";
import type { Inotify, InotifyEvent } from "../inotify.ts";
import type { ConfigParser } from "./configKeys.ts";
import type { Freezer } from "./freeze.ts";
import { writeHeld } from "./writeHolds.ts";

const REDIRECTS = ["commondir", "config.worktree"] as const;
/** Why a repository is moved, or a config put back, when a command holds one of its files for writing. */
const HELD_OPEN =
  "it holds a file of its git folder open for writing or mapped, so it could set, unseen at any moment, a program";
/**
 * How long a command may hold a new repository's git files open for writing (not mapped) before it
 * is moved: a copy (cp -r, tar) does so for a moment. Counted from the first look that saw it, per
 * folder and for as long as commands run, so making the repository again gives no new grace.
 */
const HOLD_GRACE_MS = 1_000;
const HELD_CONFIG = "kept it open for writing or mapped, where a change raises no event";

/** One sandboxed command that may write the project, while it runs. */
export interface GuardedRun {
  notes: string[];
  onNote: (note: string) => void;
  /** How often each thing was noted (a command that makes it again and again gets one note, and a count). */
  seen?: Map<string, number>;
  /** Subtrees it was told are scanned instead of watched because of a storm. */
  stormsTold?: Set<string>;
  /** Its first process on this computer (bwrap), once started: it and its descendants are stopped while the guard looks. */
  pid?: number;
}

interface Known {
  marker: Marker;
  /** Redirect files its git folder had when it became known (held read-only from then on). */
  redirects: Set<string>;
}

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
  close(): void;
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

/** A submodule's git folder, whose config commands may write (`git submodule update`): the guard keeps it. */
const MODULE_GIT_DIR = /\/\.git\/modules\//;

const sameMarker = (a: Marker, b: Marker) => a.kind === b.kind && a.ino === b.ino && a.entry === b.entry;
const entryOf = (repo: KnownRepo, root: string) => join(root, repo.dir, repo.kind === "bare" ? "HEAD" : ".git");

export function createGitGuard(options: GitGuardOptions): GitGuard {
  const { root, watch, record } = options;
  const quarantineDir = join(root, QUARANTINE_DIR);
  /** By entry (`<dir>/.git`, or `<dir>/HEAD` for a bare repository). */
  const known = new Map<string, Known>();
  const provisional = new Map<string, Marker>();
  const runs = new Set<GuardedRun>();
  const pending: string[] = [];
  /** Folders of repositories made while commands run whose git files a look saw held open for writing: when first. */
  const heldSince = new Map<string, number>();
  /** Submodule configs as last known good (absolute path → text). */
  const kept = new Map<string, string>();
  let dirty = false;
  let truncationNoted = false;

  const notes = guardNotes(root);

  function note(key: string, text: string): void {
    if (runs.size === 0) pending.push(text);
    for (const run of runs) {
      run.seen ??= new Map();
      const times = run.seen.get(key) ?? 0;
      run.seen.set(key, times + 1);
      if (times > 0) continue;
      run.notes.push(text);
      run.onNote(text);
    }
  }

  function context(): JudgeContext {
    const trusted = new Set<string>();
    for (const { marker } of known.values()) {
      const gitDir = gitDirOf(marker);
      if (typeof gitDir === "string") trusted.add(gitDir);
    }
    return { trusted: (dir) => trusted.has(dir), watched: covered, configKeys: options.configKeys };
  }

  /** A folder the guard looks at: in the project (not the quarantine) or a linked worktree's git folders. */
  function covered(dir: string): boolean {
    let real: string;
    try {
      real = realpathSync(dir);
    } catch {
      return false;
    }
    if (real !== dir) return false; // through a link a command could re-point
    if (isInside(dir, root) && !isInside(dir, quarantineDir)) return true;
    return options.extraGitDirs.some((gitDir) => isInside(dir, gitDir));
  }

  function neutralize(marker: Marker, why: string): void {
    const result = quarantine(root, marker.entry);
    provisional.delete(marker.entry);
    known.delete(marker.entry);
    dirty = true;
    note(marker.entry, notes.planted(marker, why, result));
  }

  /** A git folder's files git reads or runs: its own and its hooks. */
  function gitFiles(gitDir: string): string[] {
    const files: string[] = [];
    for (const dir of [gitDir, join(gitDir, "hooks")]) {
      try {
        for (const entry of readdirSync(dir, { withFileTypes: true }))
          if (entry.isFile()) files.push(join(dir, entry.name));
      } catch {
        // not there
      }
    }
    return files;
  }

  /** `pids`: the commands' processes, stopped now (none when they cannot be). */
  async function judgeProvisional(ctx: JudgeContext, pids: number[]): Promise<void> {
    for (const marker of [...provisional.values()]) {
      const current = markersAt(marker.dir).find((m) => m.entry === marker.entry);
      if (!current) {
        provisional.delete(marker.entry);
        continue;
      }
      provisional.set(marker.entry, current);
      const gitDir = gitDirOf(current);
      const held = new Set(
        pids.length > 0 && typeof gitDir === "string" ? writeHeld(pids, gitFiles(gitDir)).values() : [],
      );
      if (held.size > 0) {
        // Read now it may be harmless; written through a mapping later, no event would tell.
        const since = heldSince.get(current.dir) ?? performance.now();
        heldSince.set(current.dir, since);
        if (held.has("mapped") || performance.now() - since >= HOLD_GRACE_MS) {
          neutralize(current, HELD_OPEN);
          continue;
        }
      }
      const verdict = await judgeMarker(current, ctx);
      if (!verdict.ok) neutralize(current, verdict.why);
    }
  }

  /** Redirect files that appeared in a known repository's git folder. */
  async function checkRedirects(ctx: JudgeContext): Promise<void> {
    for (const entry of [...known.values()]) {
      const gitDir = gitDirOf(entry.marker);
      if (typeof gitDir !== "string" || !covered(gitDir)) continue;
      for (const name of REDIRECTS) {
        const path = join(gitDir, name);
        if (entry.redirects.has(name) || !existsSync(path)) continue;
        // config.worktree counts only when the (held) config turns per-worktree config on; then it must be harmless.
        if (
          name === "config.worktree" &&
          (!(await trustedWorktreeConfig(join(gitDir, "config"), ctx)) || !(await configFileProblem(path, ctx)))
        )
          continue;
        const target = name === "commondir" ? readSmall(path, 4096) : undefined;
        const pointsAt =
          target && "text" in target && target.text.trim() ? ` (${target.text.trim().slice(0, 200)})` : "";
        note(path, notes.redirect(path, name, pointsAt, entry.marker.dir, quarantine(root, path)));
      }
    }
  }

  /** The known submodules' configs, as they are when a command starts. */
  function keepConfigs(): void {
    const before = JSON.stringify([...kept]);
    kept.clear();
    for (const { marker } of known.values()) {
      const gitDir = gitDirOf(marker);
      if (typeof gitDir !== "string" || !MODULE_GIT_DIR.test(gitDir) || !covered(gitDir)) continue;
      const file = readSmall(join(gitDir, "config"));
      if ("text" in file) kept.set(join(gitDir, "config"), file.text);
    }
    if (JSON.stringify([...kept]) !== before) dirty = true;
  }

  /**
   * A kept config that changed: fine when everything the command added is harmless (core.worktree,
   * which `git submodule update` writes); otherwise put back as it was.
   */
  async function checkConfigs(ctx: JudgeContext, pids: number[]): Promise<void> {
    const held = pids.length > 0 ? writeHeld(pids, [...kept.keys()]) : new Set<string>();
    for (const [path, text] of kept) {
      if (held.has(path)) {
        // The text put back is a new file: a mapping of the old one writes only to that.
        note(path, notes.config(path, HELD_CONFIG, restoreFile(path, text)));
        continue;
      }
      const now = readSmall(path);
      if ("text" in now && now.text === text) continue;
      let why =
        "missing" in now
          ? "removed it"
          : "bad" in now
            ? `made it something git reads elsewhere (it ${now.bad})`
            : undefined;
      if ("text" in now) {
        const bad = await unsafeAddition(text, now.text, ctx);
        if (!bad) {
          kept.set(path, now.text);
          dirty = true;
          continue;
        }
        why = bad;
      }
      note(path, notes.config(path, why, restoreFile(path, text)));
    }
  }

  let todosAtStart = new Map<string, string | undefined>();
  const rootTodoLists = () => {
    const rootGit = known.get(join(root, ".git"));
    const gitDir = rootGit ? gitDirOf(rootGit.marker) : undefined;
    return typeof gitDir === "string" ? todoLists(gitDir) : new Map<string, string | undefined>();
  };

  /** A todo list the command left or changed with exec lines: git runs those on the host at `--continue`. */
  function noteTodoLists(run: GuardedRun): void {
    for (const [path, text] of rootTodoLists()) {
      if (text === undefined || text === todosAtStart.get(path) || !hasExecLines(text)) continue;
      const note = notes.todo(path);
      run.notes.push(note);
      run.onNote(note);
    }
  }

  /** Brings what is known about the repositories at `dirs` up to date. */
  function look(dirs: Iterable<string>): void {
    for (const dir of dirs) {
      const now = markersAt(dir);
      for (const map of [known, provisional] as Array<Map<string, { marker: Marker } | Marker>>) {
        for (const entry of [join(dir, ".git"), join(dir, "HEAD")]) {
          const was = map.get(entry);
          if (!was) continue;
          const marker = "marker" in was ? was.marker : was;
          if (!now.some((m) => sameMarker(m, marker))) {
            map.delete(entry);
            dirty = true;
          }
        }
      }
      for (const marker of now) {
        if (known.has(marker.entry) || provisional.has(marker.entry)) continue;
        if (runs.size === 0) {
          // No sandboxed command runs: the user (or a command they approved) made it.
          known.set(marker.entry, { marker, redirects: presentRedirects(marker) });
          dirty = true;
        } else provisional.set(marker.entry, marker);
      }
    }
  }

  function presentRedirects(marker: Marker): Set<string> {
    const gitDir = gitDirOf(marker);
    if (typeof gitDir !== "string") return new Set();
    return new Set(REDIRECTS.filter((name) => existsSync(join(gitDir, name))));
  }

  function save(): void {
    if (!dirty) return;
    const repos: KnownRepo[] = [...known.values()].map(({ marker, redirects }) => ({
      dir: relative(root, marker.dir),
      kind: marker.kind,
      ino: marker.ino,
      redirects: [...redirects],
    }));
    const configs = Object.fromEntries([...kept].map(([path, text]) => [relative(root, path), text]));
    try {
      record.saveKnown(repos, configs);
      dirty = false;
    } catch {
      // ~/.garuda not writable: the record stays as it was; the guard itself keeps working.
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
          known.set(marker.entry, { marker, redirects: matches ? new Set(was.redirects) : presentRedirects(marker) });
        else suspects.push(marker);
      }
    }
    dirty = true;
    if (sweep) {
      const before = pending.length;
      for (const marker of suspects) {
        const verdict = await judgeMarker(marker, context());
        if (verdict.ok) known.set(marker.entry, { marker, redirects: presentRedirects(marker) });
        else neutralize(marker, verdict.why);
      }
      await checkRedirects(context());
      for (const [path, text] of Object.entries(record.configs())) kept.set(join(root, path), text);
      await checkConfigs(context(), []);
      if (killed.length > 0 && pending.length > before) {
        pending.splice(before, 0, SWEPT_NOTE);
      }
    }
    record.forget(owners.dead);
    save();
  }

  /** Judges what may run something now: planted repositories, redirect files, kept configs. */
  async function judgeAll(pids: number[]): Promise<void> {
    const ctx = context();
    await judgeProvisional(ctx, pids);
    await checkRedirects(ctx);
    await checkConfigs(ctx, pids);
  }

  /**
   * Runs `step` with every running command's processes stopped (their pids to it): a command that
   * sees the guard's reads (inotify) cannot change what is read between the read and the judgment.
   */
  async function stilled<T>(step: (pids: number[]) => Promise<T>, scan = false): Promise<T> {
    const roots = [...runs].flatMap((run) => (run.pid === undefined ? [] : [run.pid]));
    // Nothing a command made to read (a stat of known repositories' redirects is no event): it runs on.
    const reads = scan || provisional.size > 0 || kept.size > 0;
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
    const text = notes.stormed(storm.top, storm.events);
    run.notes.push(text);
    run.onNote(text);
  }

  async function processChange(change: WatchChange): Promise<void> {
    for (const storm of change.stormed) for (const run of runs) tellStorm(run, storm);
    if (change.overflow) {
      const again = await watch.rescan();
      look(new Set([...again, ...[...known.keys(), ...provisional.keys()].map((entry) => dirname(entry))]));
    } else look(change.candidates);
    if (runs.size > 0 && (change.overflow || change.candidates.size > 0 || change.touched.size > 0))
      await stilled(judgeAll);
    if (runs.size === 0) save();
  }

  /** Stilled: a scan's opendir is seen by a command watching the folder, which must not hide a plant from it. */
  function verify(scanUnwatched: boolean): Promise<void> {
    const scan = scanUnwatched && watch.unwatched > 0;
    return stilled(async (pids) => {
      if (scan) look(await watch.scanUnwatched());
      await judgeAll(pids);
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
    tally: (events) => watch.tally(events),
  });

  function begin(run: GuardedRun): void {
    if (runs.size === 0) {
      keepConfigs();
      todosAtStart = rootTodoLists();
      save();
      record.claim(true);
    }
    runs.add(run);
    if (watch.truncated && !truncationNoted) {
      truncationNoted = true;
      pending.push(notes.truncated(watch.maxFolders));
    }
    for (const text of pending.splice(0)) {
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
      const text = notes.again(key, times);
      run.notes.push(text);
      run.onNote(text);
    }
    runs.delete(run);
    if (runs.size > 0) return false;
    record.claim(false);
    heldSince.clear();
    // Idle: what was judged harmless while commands ran is known from now on (and held in the next).
    for (const marker of provisional.values()) known.set(marker.entry, { marker, redirects: presentRedirects(marker) });
    if (provisional.size > 0) dirty = true;
    provisional.clear();
    save();
    return true;
  }

  return {
    root,
    watch,
    ready,
    heldRepos: () => [...new Set([...known.values()].map(({ marker }) => marker.dir))].filter((dir) => dir !== root),
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
        if (runs.size === 0 && watch.stormed.length > 0) look(await watch.calm());
        if (runs.size === 0 && watch.unwatched > 0) look(await watch.scanUnwatched());
        begin(run);
      }),
    end: (run) =>
      serial(async () => {
        await verify(true);
        return end(run);
      }),
    get active() {
      return runs.size > 0;
    },
    pendingNotes: () => [...pending],
    close() {
      closed = true;
      save();
      record.release();
      watch.close();
    },
  };
}
