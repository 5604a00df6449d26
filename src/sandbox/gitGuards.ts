// The git guards of one executor: one guard per project root (gitGuard.ts), one inotify instance
// for all of them (the kernel allows a user few), and one timer that reads its events: every
// few milliseconds while a sandboxed command that may write a project runs, slowly otherwise
// (so the watches follow the tree, and what the user does between commands is known as theirs).
// The executor calls enter() before such a command and leave() after it.
import { readFileSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { isInside, realFs } from "./fsView.ts";
import { type GitGuard, type GuardedRun, createGitGuard } from "./gitGuard.ts";
import { openGuardRecord } from "./gitGuardRecord.ts";
import { createTreeWatch } from "./gitWatch.ts";
import type { Inotify } from "./inotify.ts";
import { linkedGitFolders } from "./paths.ts";
import type { SandboxSpec } from "./types.ts";

/** How often events are read while a guarded command runs, and otherwise. */
const ACTIVE_POLL_MS = 5;
const IDLE_POLL_MS = 250;
/** How often, while one runs, repositories judged harmless are judged again (content changed through an mmap raises no event). */
const VERIFY_MS = 250;
/** Unwatched subtrees are scanned at most this often while a command runs (and always when it ends). */
const SCAN_MS = 2_000;
/** Most watches of one executor: a quarter of the user's limit, at most this many. */
const MAX_WATCHES = 65_536;
const CONFIG_CACHE = 256;

export interface GuardedCommand {
  /** Nested repositories (folders) the sandbox must hold read-only, as it holds the root's .git. */
  readonly repos: string[];
  /** After the command: the last look; every note of this command (also given to onNote as they came). */
  leave(): string[];
}

export interface GitGuards {
  /** Before a sandboxed command: its guard, or undefined when it cannot write the project. */
  enter(spec: SandboxSpec, onNote: (note: string) => void): GuardedCommand | undefined;
  /** At start: sweeps `root` now when a Garuda process died while a command ran there; the notes. */
  sweepAtStart(root: string): string[];
  close(): void;
}

export interface GitGuardsOptions {
  /** Where the records live (~/.garuda/git-guard). */
  stateDir: string;
  /** To find git (its parser reads config files: no second opinion on what git reads). */
  path: string | undefined;
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
        env: { PATH: "/usr/bin:/bin", HOME: "/nonexistent", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_PAGER: "cat", GIT_CEILING_DIRECTORIES: "/", LC_ALL: "C" },
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
  const { loadInotify, openInotify } = await import("./inotify.ts");
  const lib = loadInotify();
  let inotify: Inotify | undefined;
  let inotifyTried = false;
  const limit = maxWatches();
  const guards = new Map<string, GitGuard>();
  const configKeys = gitConfigParser(Bun.which("git", { PATH: options.path ?? "/usr/bin:/bin" }) ?? undefined);
  let timer: ReturnType<typeof setInterval> | undefined;
  let timerMs = 0;
  let lastVerify = 0;
  let lastScan = 0;

  const watchedNow = () => [...guards.values()].reduce((sum, guard) => sum + guard.watch.watched, 0);

  function poll(): void {
    if (!inotify) return;
    const events = inotify.drain();
    if (events.length === 0) return;
    const overflow = events.some((event) => event.wd === -1);
    for (const guard of guards.values()) {
      const own = events.filter((event) => event.wd === -1 || guard.watch.owns(event.wd));
      if (own.length > 0 || overflow) guard.process(guard.watch.handle(own));
    }
  }

  function tick(): void {
    poll();
    const now = performance.now();
    if (now - lastVerify < VERIFY_MS) return;
    lastVerify = now;
    const scan = now - lastScan >= SCAN_MS;
    if (scan) lastScan = now;
    for (const guard of guards.values()) if (guard.active) guard.verify(scan);
  }

  /** Reads events fast while a guarded command runs; the timer never keeps Garuda alive. */
  function arm(): void {
    const want = [...guards.values()].some((guard) => guard.active) ? ACTIVE_POLL_MS : IDLE_POLL_MS;
    if (timer && timerMs === want) return;
    if (timer) clearInterval(timer);
    timerMs = want;
    timer = setInterval(tick, want);
    timer.unref();
  }

  function guardFor(root: string): GitGuard {
    const existing = guards.get(root);
    if (existing) return existing;
    if (!inotifyTried) {
      inotifyTried = true;
      inotify = lib ? openInotify(lib) : undefined;
    }
    const linked = linkedGitFolders(root, realFs);
    const extraGitDirs = linked ? [...new Set([linked.gitDir, linked.commonDir])].filter((dir) => !isInside(dir, root)) : [];
    const watch = createTreeWatch({ root, extraGitDirs, inotify, budget: () => limit - watchedNow() });
    const guard = createGitGuard({ root, watch, record: openGuardRecord(options.stateDir, root), configKeys, extraGitDirs });
    guards.set(root, guard);
    arm();
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
      if (!guard.active) poll(); // what happened since the last command was the user's
      const run: GuardedRun = { notes: [], onNote };
      guard.begin(run);
      arm();
      return {
        repos: guard.heldRepos(),
        leave() {
          // The command's processes are gone: every event it caused is queued by now.
          poll();
          guard.verify(true);
          guard.end(run);
          arm();
          return run.notes;
        },
      };
    },
    sweepAtStart(root) {
      const real = realRoot(root);
      if (guards.has(real) || openGuardRecord(options.stateDir, real).owners().dead.length === 0) return [];
      // The notes stay pending as well: the next command in this project gets them, for the model.
      return guardFor(real).pendingNotes();
    },
    close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      for (const guard of guards.values()) guard.close();
      guards.clear();
      inotify?.close();
      inotify = undefined;
    },
  };
}
