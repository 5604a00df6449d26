// The git guards of one Garuda process: one guard per project root (guard.ts), shared by every
// session of the process in that project, and one inotify instance for all of them, whose events
// are read as they come, between commands too (so the watches follow the tree, and what the
// user does then is known as theirs). The front end makes the host once per process and hands
// it to each session's executor (ExecutorOptions.gitGuards); a session leases the guard of its
// project (session.ts): the first lease makes the guard and starts its walk, the last release
// closes it and gives its watches back, and with the last guard the inotify instance goes too.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { realFs } from "../fsView.ts";
import { isInside } from "../../files/isInside.ts";
import { type GitGuard, createGitGuard } from "./guard.ts";
import { openGuardRecord } from "./record.ts";
import { createTreeWatch } from "./watch.ts";
import { createStormMeter } from "./storm.ts";
import { type Barriers, createBarriers } from "./barrier.ts";
import type { ChangeAnswer } from "./changeLog.ts";
import { treeIsLocal } from "./localTree.ts";
import { gitConfigParser } from "./configKeys.ts";
import { createFreezer } from "./freeze.ts";
import { IN_Q_OVERFLOW, type Inotify, type InotifyEvent, type Library, loadInotify, openInotify } from "../inotify.ts";
import { linkedGitFolders } from "../paths.ts";
import type { Native } from "../native.ts";

/**
 * How often on average, while one runs, repositories judged harmless are judged again (content changed through an mmap
 * raises no event).
 */
const VERIFY_MS = 250;
/**
 * Unwatched subtrees are scanned about this often on average while a command runs (and always when it ends), and on
 * average at most a tenth of the time.
 */
const SCAN_MS = 2_000;
/**
 * A wait of `ms` on average, drawn between a fifth of it and 1.8 times it. A command that sees
 * each look (its inotify watch reports the guard's reads) and acts between two (flips a config
 * through a hard link it makes and removes, hides a plant in a scanned subtree) must not know
 * when the next one comes: what it keeps changed or shown a fraction of the time is then found
 * at each look with that chance.
 */
const drawn = (ms: number) => ms * (0.2 + (1.6 * (crypto.getRandomValues(new Uint32Array(1))[0] as number)) / 2 ** 32);
/**
 * Without an inotify instance: how often, while commands run, the host tries again to get one (and at each command's
 * start).
 */
const RETRY_MS = 5_000;
/** Longest a question to the change log waits for the guard to handle the events read (then "all": a busier guard
 * would hold up the snapshot longer than reading the whole tree takes). */
const SETTLE_MS = 1_000;
/** Most folders one walk of a project looks at (breadth first). */
const MAX_FOLDERS = 100_000;
/**
 * The guards' share of the user's inotify watches (fs.inotify.max_user_watches, counted per user
 * across every program): a quarter, for all of the process's projects together. The editor's
 * file watcher, its language servers and a dev server or two (webpack, vite, jest --watch) each
 * take about one watch per folder of the same tree, so a quarter leaves room for three such
 * watchers of the same project; past the share the guard scans instead of failing theirs
 * (ENOSPC surfaces in them as "too many open files" or missed reloads).
 */
const WATCH_SHARE = 4;
/** Most watches whatever the kernel allows: past this, a walk costs more than the scan it spares. */
const MAX_WATCHES = 65_536;
/** When the kernel's limit cannot be read (8,192 is the old default): its quarter. */
const FALLBACK_WATCHES = 2_048;

export interface GitGuardHostOptions {
  /** Where the records live (~/.garuda/git-guard). */
  stateDir: string;
  /** To find git (its parser reads config files: no second opinion on what git reads). */
  path: string | undefined;
  /** Most watches of all guards together (default: a quarter of max_user_watches, at most 65,536). */
  maxWatches?: number;
  /** The process's C library (processWide.ts), for inotify. Default: opened here. */
  native?: () => Native | undefined;
  /**
   * Most work one project's events may cause in a second before its busiest subtree is scanned instead (default:
   * storm.ts's).
   */
  stormUnits?: number;
}

/** A session's hold on the guard of one project. */
export interface GuardLease {
  /** The guard, once the host has its inotify instance (its first walk then runs on its own). */
  readonly guard: Promise<GitGuard>;
  /** Lets go of it (once); the last release closes the guard. */
  release(): Promise<void>;
}

export interface GitGuardHost {
  /** The guard of `root` (a real path), made at the first lease. */
  lease(root: string): GuardLease;
  /** Whether a guard of `root` runs in this process now. */
  has(root: string): boolean;
  /**
   * Resolves once every event queued before the call has been handed to the guards: true, or false when it cannot
   * be known (no inotify, a stuck queue).
   */
  pass(): Promise<boolean>;
  /**
   * What changed in the project at `root` since `token` (changeLog.ts), every change made before the call counted;
   * "all" when no guard of it runs here or its watches cannot vouch for the whole time.
   */
  changesSince(root: string, token: string | undefined): Promise<ChangeAnswer>;
  /** Starts or stops the timer that verifies the guards whose commands run. */
  arm(): void;
  /**
   * Without an inotify instance (the user's are all taken): tries to get one (a system call);
   * got, every guard watches its tree from then on. Called as each command starts.
   */
  retry(): void;
  /** Whether the host has its inotify instance (false off Linux, before the first lease, or while none is left). */
  readonly watching: boolean;
  /** Most watches of all guards together. */
  readonly maxWatches: number;
  /** Watches all guards hold now. */
  readonly watches: number;
  readonly stateDir: string;
  /** Closes every guard, whoever holds it (the process is ending). */
  close(): Promise<void>;
}

function kernelShare(): number {
  try {
    const limit = Number(readFileSync("/proc/sys/fs/inotify/max_user_watches", "utf8").trim());
    return Number.isFinite(limit) && limit > 0
      ? Math.min(MAX_WATCHES, Math.floor(limit / WATCH_SHARE))
      : FALLBACK_WATCHES;
  } catch {
    return FALLBACK_WATCHES;
  }
}

/** The inotify instance of the moment (undefined while the kernel refuses one), and the barrier through its queue. */
interface Instance {
  inotify: Inotify | undefined;
  barriers: Barriers;
  /** The C library, to try again for an instance. */
  lib: Library | undefined;
}

interface Entry {
  refs: number;
  guard: Promise<GitGuard>;
  /** The guard once made (events go to it from then on). */
  made?: GitGuard;
}

export function createGitGuardHost(options: GitGuardHostOptions): GitGuardHost {
  const limit = options.maxWatches ?? kernelShare();
  const configKeys = gitConfigParser(Bun.which("git", { PATH: options.path ?? "/usr/bin:/bin" }) ?? undefined);
  const guards = new Map<string, Entry>();
  const freezer = createFreezer();
  let library: Promise<Library | undefined> | undefined;
  let instance: Promise<Instance> | undefined;
  let current: Instance | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastScan = 0;
  let lastRetry = 0;
  let scanEvery = SCAN_MS;
  let scanGap = drawn(SCAN_MS);
  const verifying = new Set<GitGuard>();

  const made = () => [...guards.values()].flatMap((entry) => (entry.made ? [entry.made] : []));
  const watched = () => made().reduce((sum, guard) => sum + guard.watch.watched, 0);

  function dispatch(from: Instance, events: InotifyEvent[]): void {
    if (from !== current) return; // an instance being closed: its watch ids mean nothing now
    const overflow = events.some((event) => event.mask & IN_Q_OVERFLOW);
    for (const guard of made()) {
      const own = events.filter((event) => event.mask & IN_Q_OVERFLOW || guard.watch.owns(event.wd));
      guard.watch.record(own); // before the barrier below can let a waiter go
      if (own.length > 0 || overflow) void guard.events(own).catch(() => undefined);
    }
    from.barriers.seen(events);
  }

  function listenWith(opened: Instance, inotify: Inotify): void {
    opened.inotify = inotify;
    opened.barriers.watchWith(inotify);
    inotify.listen((events) => dispatch(opened, events));
  }

  /** The kernel refused an instance before (max_user_instances): one may be free now. */
  function retry(): void {
    const opened = current;
    if (!opened?.lib || opened.inotify) return;
    lastRetry = performance.now();
    const inotify = openInotify(opened.lib);
    if (!inotify) return;
    listenWith(opened, inotify);
    for (const guard of made()) void guard.attach(inotify).catch(() => undefined);
  }

  function openInstance(): Promise<Instance> {
    instance ??= (async () => {
      library ??= loadInotify(options.native?.());
      const lib = await library;
      const opened: Instance = { inotify: undefined, barriers: createBarriers(join(options.stateDir, "barrier")), lib };
      current = opened;
      const inotify = lib && openInotify(lib);
      if (inotify) listenWith(opened, inotify);
      return opened;
    })();
    return instance;
  }

  async function closeInstance(): Promise<void> {
    const closing = instance;
    instance = undefined;
    current = undefined;
    const opened = await closing;
    opened?.barriers.close();
    await opened?.inotify?.close();
  }

  function makeGuard(root: string, inotify: Inotify | undefined): GitGuard {
    const linked = linkedGitFolders(root, realFs);
    const extraGitDirs = linked
      ? [...new Set([linked.gitDir, linked.commonDir])].filter((dir) => !isInside(dir, root))
      : [];
    const watch = createTreeWatch({
      root,
      extraGitDirs,
      inotify,
      budget: () => limit - watched(),
      maxFolders: MAX_FOLDERS,
      ...(options.stormUnits !== undefined && { meter: createStormMeter({ units: options.stormUnits }) }),
    });
    const record = openGuardRecord(options.stateDir, root);
    return createGitGuard({ root, watch, record, configKeys, extraGitDirs, freezer });
  }

  /** While a guarded command runs: judge again what may change without an event (an mmap), scan what is unwatched. */
  function tick(): void {
    const now = performance.now();
    if (now - lastRetry >= RETRY_MS) retry();
    const scan = now - lastScan >= scanGap;
    if (scan) lastScan = now;
    for (const guard of made()) {
      if (!guard.active || verifying.has(guard)) continue;
      verifying.add(guard);
      void guard
        .verify(scan)
        .catch(() => undefined)
        .finally(() => {
          verifying.delete(guard);
          if (!scan) return;
          scanEvery = Math.max(SCAN_MS, 10 * (performance.now() - now));
          scanGap = drawn(scanEvery);
        });
    }
  }

  async function drop(root: string, entry: Entry): Promise<void> {
    if (guards.get(root) !== entry) return;
    guards.delete(root);
    (await entry.guard.catch(() => undefined))?.close();
    if (guards.size === 0) await closeInstance();
  }

  return {
    lease(root) {
      let entry = guards.get(root);
      if (entry) entry.refs++;
      else {
        const fresh: Entry = {
          refs: 1,
          guard: openInstance().then((opened) => {
            fresh.made = makeGuard(root, opened.inotify); // (the instance got by a retry, if one was)
            return fresh.made;
          }),
        };
        entry = fresh;
        guards.set(root, entry);
      }
      const held = entry;
      let released = false;
      return {
        guard: held.guard,
        async release() {
          if (released) return;
          released = true;
          if (--held.refs === 0) await drop(root, held);
        },
      };
    },
    has: (root) => guards.has(root),
    async pass() {
      return (await (await instance)?.barriers.pass()) ?? false;
    },
    async changesSince(root, token) {
      const guard = guards.get(root)?.made;
      if (!guard) return { token: "", paths: "all" };
      const passed = (await (await instance)?.barriers.pass()) ?? false;
      // Until the guard has handled the events read so far, its map of watches may be behind the tree: an event in
      // a folder just renamed is recorded under the old name (or not at all), and what was made in a folder moved in
      // is recorded when the walk of it ends. A guard that takes longer than SETTLE_MS vouches for nothing this time.
      let wait: ReturnType<typeof setTimeout> | undefined;
      const settled = await Promise.race([
        guard.settled().then(() => true),
        new Promise<boolean>((resolve) => {
          wait = setTimeout(() => resolve(false), SETTLE_MS);
        }),
      ]);
      clearTimeout(wait);
      // A nested repository's commits move its HEAD through refs/, which no watch sees: git records it as a gitlink.
      // On a network or FUSE file system what the other side changes raises no event (localTree.ts).
      const covered = passed && settled && guard.watch.covered && guard.heldRepos().length === 0 && treeIsLocal(root);
      return guard.watch.changes.answer(token, covered);
    },
    arm() {
      const active = made().some((guard) => guard.active);
      if (active && !timer) {
        const next = () => {
          timer = setTimeout(() => {
            tick();
            next();
          }, drawn(VERIFY_MS));
          timer.unref(); // never keeps Garuda alive
        };
        next();
      } else if (!active && timer) {
        clearTimeout(timer);
        timer = undefined;
      }
    },
    retry,
    get watching() {
      return current?.inotify !== undefined;
    },
    maxWatches: limit,
    get watches() {
      return watched();
    },
    stateDir: options.stateDir,
    async close() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      for (const [root, entry] of [...guards]) await drop(root, entry);
    },
  };
}
