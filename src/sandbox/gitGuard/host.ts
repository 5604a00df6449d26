// The git guards of one executor: one guard per project root (gitGuard.ts) and one inotify
// instance for all of them (the kernel allows a user few), whose events are read as they come,
// between commands too (so the watches follow the tree, and what the user does then is known as
// theirs). The executor calls enter() before a sandboxed command that may write a project and
// leave() after it.
import { readFileSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { realFs } from "../fsView.ts";
import { isInside } from "../../files/isInside.ts";
import { type GitGuard, type GuardedRun, createGitGuard } from "./guard.ts";
import { openGuardRecord } from "./record.ts";
import { type TreeWatch, createTreeWatch } from "./watch.ts";
import { createBarriers } from "./barrier.ts";
import { IN_Q_OVERFLOW, type Inotify, type InotifyEvent, loadInotify, openInotify } from "../inotify.ts";
import { linkedGitFolders } from "../paths.ts";
import type { SandboxSpec } from "../types.ts";

/** How often, while one runs, repositories judged harmless are judged again (content changed through an mmap raises no event). */
const VERIFY_MS = 250;
/** Unwatched subtrees are scanned at most this often while a command runs (and always when it ends), and at most a tenth of the time. */
const SCAN_MS = 2_000;
/** Most folders one walk of a project looks at (breadth first). */
const MAX_FOLDERS = 100_000;
/** The first walk of the executor's own project starts this long after the executor, in steps of this many folders. */
const PREPARE_DELAY_MS = 200;
const PREPARE_STEP = 500;
/** Most watches of one executor: a quarter of the user's limit, at most this many. */
const MAX_WATCHES = 65_536;
const CONFIG_CACHE = 256;

export interface GuardedCommand {
  /** Nested repositories (folders) the sandbox must hold read-only, as it holds the root's .git. */
  readonly repos: string[];
  /** After the command: the last look; every note of this command (also given to onNote as they came). */
  leave(): Promise<string[]>;
}

export interface GitGuards {
  /** Before a sandboxed command: its guard, or undefined when it cannot write the project. */
  enter(spec: SandboxSpec, onNote: (note: string) => void): GuardedCommand | undefined;
  /** At start: sweeps `root` now when a Garuda process died while a command ran there; the notes. */
  sweepAtStart(root: string): string[];
  /** Walks `root` in the background, a step at a time, so the first command does not wait for it. */
  prepare(root: string): void;
  close(): Promise<void>;
}

export interface GitGuardsOptions {
  /** Where the records live (~/.garuda/git-guard). */
  stateDir: string;
  /** To find git (its parser reads config files: no second opinion on what git reads). */
  path: string | undefined;
  /** Most watches (default: a quarter of the kernel's max_user_watches, at most 65,536). */
  maxWatches?: number;
}

/** The config keys of a config file's text, parsed by git itself. */
export function gitConfigParser(git: string | undefined): (text: string) => Array<[string, string]> | undefined {
  const cache = new Map<string, Array<[string, string]> | undefined>();
  return (text) => {
    if (cache.has(text)) return cache.get(text);
    let keys: Array<[string, string]> | undefined;
    if (text.trim() === "") keys = [];
    else if (git) {
      const result = Bun.spawnSync([git, "config", "--file", "-", "--list", "--null", "--no-includes"], {
        stdin: Buffer.from(text),
        cwd: "/",
        env: {
          PATH: "/usr/bin:/bin",
          HOME: "/nonexistent",
          GIT_CONFIG_NOSYSTEM: "1",
          GIT_CONFIG_GLOBAL: "/dev/null",
          GIT_PAGER: "cat",
          GIT_CEILING_DIRECTORIES: "/",
          LC_ALL: "C",
        },
        timeout: 5_000,
      });
      if (result.exitCode === 0) {
        keys = result.stdout
          .toString()
          .split("\0")
          .filter(Boolean)
          .map((item): [string, string] => {
            const cut = item.indexOf("\n");
            return cut < 0 ? [item, ""] : [item.slice(0, cut), item.slice(cut + 1)];
          });
      }
    }
    if (cache.size >= CONFIG_CACHE) cache.clear();
    cache.set(text, keys);
    return keys;
  };
}

/** Whether a sandboxed command with this spec can write inside its root. */
function writesRoot(spec: SandboxSpec, root: string): boolean {
  if (!spec.projectReadOnly) return true;
  return spec.writePaths.some((path) => {
    const lexical = path === "~" || path.startsWith("~/") ? join(spec.home, path.slice(1)) : resolve(spec.root, path);
    return isInside(lexical, root) || isInside(lexical, spec.root);
  });
}

function maxWatches(): number {
  try {
    const limit = Number(readFileSync("/proc/sys/fs/inotify/max_user_watches", "utf8").trim());
    return Number.isFinite(limit) && limit > 0 ? Math.min(MAX_WATCHES, Math.floor(limit / 4)) : 2_048;
  } catch {
    return 2_048;
  }
}

export async function createGitGuards(options: GitGuardsOptions): Promise<GitGuards> {
  const lib = await loadInotify();
  let inotify: Inotify | undefined;
  let inotifyTried = false;
  const limit = options.maxWatches ?? maxWatches();
  const guards = new Map<string, GitGuard>();
  const configKeys = gitConfigParser(Bun.which("git", { PATH: options.path ?? "/usr/bin:/bin" }) ?? undefined);
  const barriers = createBarriers(join(options.stateDir, "barrier"));
  /** Watches being walked in the background (prepare), with the events for them so far. */
  const preparing = new Map<string, { watch: TreeWatch; extraGitDirs: string[]; events: InotifyEvent[] }>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let lastScan = 0;
  let scanEvery = SCAN_MS;
  let closed = false;

  function dispatch(events: InotifyEvent[]): void {
    const overflow = events.some((event) => event.mask & IN_Q_OVERFLOW);
    const mine = (watch: TreeWatch) => events.filter((event) => event.mask & IN_Q_OVERFLOW || watch.owns(event.wd));
    for (const guard of guards.values()) {
      const own = mine(guard.watch);
      if (own.length > 0 || overflow) guard.process(guard.watch.handle(own));
    }
    for (const entry of preparing.values()) entry.events.push(...mine(entry.watch));
    barriers.seen(events);
  }

  /** While a guarded command runs: judge again what may change without an event (an mmap), scan what is unwatched. */
  function tick(): void {
    const now = performance.now();
    const scan = now - lastScan >= scanEvery;
    if (scan) lastScan = now;
    for (const guard of guards.values()) if (guard.active) guard.verify(scan);
    if (scan) scanEvery = Math.max(SCAN_MS, 10 * (performance.now() - now));
  }

  /** The verify timer runs only while a guarded command does, and never keeps Garuda alive. */
  function arm(): void {
    const active = [...guards.values()].some((guard) => guard.active);
    if (active && !timer) {
      timer = setInterval(tick, VERIFY_MS);
      timer.unref();
    } else if (!active && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  }

  function ensureInotify(): void {
    if (inotifyTried) return;
    inotifyTried = true;
    inotify = lib ? openInotify(lib) : undefined;
    if (inotify) {
      barriers.watchWith(inotify);
      inotify.listen(dispatch);
    }
  }

  function newWatch(root: string): { watch: TreeWatch; extraGitDirs: string[] } {
    ensureInotify();
    const linked = linkedGitFolders(root, realFs);
    const extraGitDirs = linked
      ? [...new Set([linked.gitDir, linked.commonDir])].filter((dir) => !isInside(dir, root))
      : [];
    // The budget counts every tree's watches, this one's too while it is walked (before it is in `guards`).
    const all = () =>
      [...guards.values()].map((guard) => guard.watch).concat([...preparing.values()].map((entry) => entry.watch));
    const others = () => all().reduce((sum, other) => sum + (other === watch ? 0 : other.watched), 0);
    const watch: TreeWatch = createTreeWatch({
      root,
      extraGitDirs,
      inotify,
      budget: () => limit - others() - watch.watched,
      maxFolders: MAX_FOLDERS,
    });
    return { watch, extraGitDirs };
  }

  function guardFor(root: string): GitGuard {
    const existing = guards.get(root);
    if (existing) return existing;
    const prepared = preparing.get(root);
    preparing.delete(root);
    const { watch, extraGitDirs } = prepared ?? newWatch(root);
    const guard = createGitGuard({
      root,
      watch,
      record: openGuardRecord(options.stateDir, root),
      configKeys,
      extraGitDirs,
    });
    guards.set(root, guard);
    // What happened while it was walked in the background: no command ran, so it was the user's.
    if (prepared && prepared.events.length > 0) guard.process(watch.handle(prepared.events));
    return guard;
  }

  const realRoot = (root: string) => {
    try {
      return realpathSync(root);
    } catch {
      return resolve(root);
    }
  };

  return {
    enter(spec, onNote) {
      const root = realRoot(spec.root);
      if (!writesRoot(spec, root)) return undefined;
      const guard = guardFor(root);
      guard.catchUp();
      const run: GuardedRun = { notes: [], onNote };
      guard.begin(run);
      arm();
      return {
        repos: guard.heldRepos(),
        async leave() {
          // The command's processes are gone, so every event they caused is queued: once an event
          // made after them has come through, all of theirs have been looked at.
          await barriers.pass();
          guard.verify(true);
          guard.end(run);
          arm();
          return run.notes;
        },
      };
    },
    prepare(root) {
      const real = realRoot(root);
      if (guards.has(real) || preparing.has(real)) return;
      const step = () => {
        const entry = preparing.get(real);
        if (!entry || closed) return; // a command came first and finished the walk, or the executor is gone
        if (entry.watch.startSome(PREPARE_STEP) === undefined) setTimeout(step, 0).unref();
        else guardFor(real);
      };
      setTimeout(() => {
        if (closed || guards.has(real) || preparing.has(real)) return;
        preparing.set(real, { ...newWatch(real), events: [] });
        step();
      }, PREPARE_DELAY_MS).unref();
    },
    sweepAtStart(root) {
      const real = realRoot(root);
      if (
        guards.has(real) ||
        !openGuardRecord(options.stateDir, real)
          .owners()
          .dead.some((owner) => owner.active)
      )
        return [];
      // The notes stay pending as well: the next command in this project gets them, for the model.
      return guardFor(real).pendingNotes();
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      for (const guard of guards.values()) guard.close();
      guards.clear();
      for (const entry of preparing.values()) entry.watch.close();
      preparing.clear();
      barriers.close();
      await inotify?.close();
      inotify = undefined;
    },
  };
}
