// The git guard of one project: git on this computer must never run a program that a sandboxed
// command planted. The sandbox holds what exists (paths.ts: .git/config, hooks, redirect files,
// and the same in every nested repository known here); what does not exist yet cannot be held
// by a mount, so the guard watches for it while sandboxed commands run (gitWatch.ts) and moves
// it out of git's way within milliseconds (gitQuarantine.ts):
// - a nested repository anywhere in the project (`.git` folder, file or link, or a bare
//   repository) that could run something (gitRepos.ts judges it); one that cannot (a clone,
//   `git worktree add`, `git submodule update`) is left alone and checked again as it changes;
// - a commondir, or a config.worktree git would read, appearing in a known repository's git folder.
// Known repositories are the user's: those found before any sandboxed command ran, made while
// none ran, or judged harmless. A Garuda process that dies mid-command leaves its owner file
// behind (gitGuardRecord.ts), and the next guard for the project sweeps it: every repository
// not known then is judged as if a command had just made it.
import { existsSync, realpathSync } from "node:fs";
import { join, relative } from "node:path";
import { isInside } from "./fsView.ts";
import type { GuardRecord, KnownRepo } from "./gitGuardRecord.ts";
import { type Moved, QUARANTINE_DIR, quarantine } from "./gitQuarantine.ts";
import { type JudgeContext, type Marker, configFileProblem, gitDirOf, judgeMarker, markerAt, readSmall, trustedWorktreeConfig } from "./gitRepos.ts";
import type { TreeWatch, WatchChange } from "./gitWatch.ts";

const REDIRECTS = ["commondir", "config.worktree"] as const;
const OUTSIDE = "run the git command outside the sandbox (outside_sandbox: true; the user is asked first)";

/** One sandboxed command that may write the project, while it runs. */
export interface GuardedRun {
  notes: string[];
  onNote: (note: string) => void;
}

interface Known {
  marker: Marker;
  /** Redirect files its git folder had when it became known (held read-only from then on). */
  redirects: Set<string>;
}

export interface GitGuard {
  readonly root: string;
  readonly watch: TreeWatch;
  /** Nested repositories (their folders) to hold read-only in the next command. */
  heldRepos(): string[];
  /** Looks at what the watch saw. `active`: a sandboxed command may have made it. */
  process(change: WatchChange): void;
  /** A full look at what may have changed unseen: unwatched subtrees, content changed without an event. */
  verify(scanUnwatched: boolean): void;
  begin(run: GuardedRun): void;
  /** Ends a run; true when it was the last one (the guard is idle again). */
  end(run: GuardedRun): boolean;
  readonly active: boolean;
  /** Notes no command received yet (a sweep at start); the next command gets them. */
  pendingNotes(): string[];
  close(): void;
}

export interface GitGuardOptions {
  root: string;
  watch: TreeWatch;
  record: GuardRecord;
  configKeys: JudgeContext["configKeys"];
  extraGitDirs: string[];
}

const sameMarker = (a: Marker, b: Marker) => a.kind === b.kind && a.ino === b.ino && a.entry === b.entry;

export function createGitGuard(options: GitGuardOptions): GitGuard {
  const { root, watch, record } = options;
  const quarantineDir = join(root, QUARANTINE_DIR);
  const known = new Map<string, Known>();
  const provisional = new Map<string, Marker>();
  const runs = new Set<GuardedRun>();
  const pending: string[] = [];
  let dirty = false;

  const rel = (path: string) => relative(root, path) || ".";

  function note(text: string): void {
    if (runs.size === 0) pending.push(text);
    for (const run of runs) {
      run.notes.push(text);
      run.onNote(text);
    }
  }

  function trustedGitDirs(): Set<string> {
    const dirs = new Set<string>();
    for (const { marker } of known.values()) {
      const gitDir = gitDirOf(marker);
      if (typeof gitDir === "string") dirs.add(gitDir);
    }
    return dirs;
  }

  function context(): JudgeContext {
    const trusted = trustedGitDirs();
    return {
      trusted: (dir) => trusted.has(dir),
      watched: (dir) => covered(dir),
      configKeys: options.configKeys,
    };
  }

  /** A folder the guard looks at: in the project (not the quarantine) or a linked worktree's git folders. */
  function covered(dir: string): boolean {
    if (!existsSync(dir)) return false;
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

  function describe(marker: Marker): string {
    if (marker.kind === "bare") return `made ${rel(marker.dir)} a git repository (HEAD, objects, refs)`;
    const what = marker.kind === "file" ? "a .git file (a link to a git folder)" : marker.kind === "link" ? "a .git symbolic link" : "a git repository";
    return `made ${rel(marker.entry)}, ${what}`;
  }

  function moved(result: Moved, what: string, where: string): string {
    if ("to" in result) return `Garuda moved it to ${rel(result.to)}`;
    return `Garuda could not move it (${result.error}): tell the user not to run git in ${where} before checking ${what}`;
  }

  function neutralize(marker: Marker, why: string): void {
    const result = quarantine(root, marker.entry);
    provisional.delete(marker.dir);
    known.delete(marker.dir);
    dirty = true;
    note(
      `[Garuda: the command ${describe(marker)}; ${why}, which git on this computer would run in ${rel(marker.dir)} (and git status in the project, through a gitlink). ${moved(result, rel(marker.entry), rel(marker.dir))}. To make such a repository, ${OUTSIDE}.]`,
    );
  }

  function judgeProvisional(ctx: JudgeContext): void {
    for (const marker of [...provisional.values()]) {
      const current = markerAt(marker.dir);
      if (!current) {
        provisional.delete(marker.dir);
        continue;
      }
      const verdict = judgeMarker(current, ctx);
      if (!verdict.ok) neutralize(current, verdict.why);
      else provisional.set(marker.dir, current);
    }
  }

  /** Redirect files that appeared in a known repository's git folder. */
  function checkRedirects(ctx: JudgeContext): void {
    for (const entry of [...known.values()]) {
      const gitDir = gitDirOf(entry.marker);
      if (typeof gitDir !== "string" || !covered(gitDir)) continue;
      for (const name of REDIRECTS) {
        const path = join(gitDir, name);
        if (entry.redirects.has(name) || !existsSync(path)) continue;
        // config.worktree counts only when the (held) config turns per-worktree config on; then it must be harmless.
        if (name === "config.worktree" && (!trustedWorktreeConfig(join(gitDir, "config"), ctx) || !configFileProblem(path, ctx))) continue;
        const target = name === "commondir" ? readSmall(path, 4096) : undefined;
        const pointsAt = target && "text" in target ? ` (${target.text.trim().slice(0, 200)})` : "";
        const result = quarantine(root, path);
        dirty = true;
        note(
          `[Garuda: the command made ${rel(path)}${pointsAt}, which would make git on this computer take config and hooks from elsewhere (or read config the command wrote); ${moved(result, rel(path), rel(entry.marker.dir))}. Do not write ${name} into a git folder.]`,
        );
      }
    }
  }

  function look(dirs: Iterable<string>): void {
    for (const dir of dirs) {
      const marker = markerAt(dir);
      const was = known.get(dir);
      if (was && marker && sameMarker(was.marker, marker)) continue;
      if (was) {
        known.delete(dir);
        dirty = true;
      }
      const maybe = provisional.get(dir);
      if (!marker) {
        provisional.delete(dir);
        continue;
      }
      if (maybe && sameMarker(maybe, marker)) continue;
      if (runs.size === 0) {
        // No sandboxed command runs: the user (or a command they approved) made it.
        known.set(dir, { marker, redirects: presentRedirects(marker) });
        provisional.delete(dir);
        dirty = true;
      } else provisional.set(dir, marker);
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
    try {
      record.saveKnown(repos);
      dirty = false;
    } catch {
      // ~/.garuda not writable: the record stays as it was; the guard itself keeps working.
    }
  }

  /** The first look at the tree: known repositories, or a sweep when a Garuda process died mid-command. */
  function init(): void {
    const found = watch.start();
    const recorded = record.known();
    const owners = record.owners();
    const sweep = owners.dead.length > 0 || owners.live.length > 0;
    const recordedAt = new Map((recorded ?? []).map((repo) => [join(root, repo.dir), repo]));
    const suspects: Marker[] = [];
    for (const dir of found) {
      const marker = markerAt(dir);
      if (!marker) continue;
      const was = recordedAt.get(dir);
      const matches = was !== undefined && was.kind === marker.kind && was.ino === marker.ino;
      if (!sweep || matches) {
        known.set(dir, { marker, redirects: matches ? new Set(was.redirects) : presentRedirects(marker) });
      } else suspects.push(marker);
    }
    dirty = true;
    if (sweep) {
      const ctx = context();
      const before = pending.length;
      for (const marker of suspects) {
        const verdict = judgeMarker(marker, ctx);
        if (verdict.ok) known.set(marker.dir, { marker, redirects: presentRedirects(marker) });
        else neutralize(marker, verdict.why);
      }
      checkRedirects(context());
      if (owners.dead.length > 0 && pending.length > before) {
        pending.splice(before, 0, "[Garuda: a Garuda session that ended without its last check (it was killed while a command ran in the sandbox) may have left repositories git would run something from; this session checked the project:]");
      }
      record.forget(owners.dead);
    }
    save();
  }

  init();

  return {
    root,
    watch,
    heldRepos: () => [...known.keys()].filter((dir) => dir !== root),
    process(change) {
      if (change.overflow) {
        const all = watch.rescan();
        look(new Set([...all, ...known.keys(), ...provisional.keys()]));
      } else look(change.candidates);
      if (runs.size > 0 && (change.overflow || change.candidates.size > 0 || change.touched.size > 0)) {
        const ctx = context();
        judgeProvisional(ctx);
        checkRedirects(ctx);
      }
      if (runs.size === 0) save();
    },
    verify(scanUnwatched) {
      if (scanUnwatched && watch.unwatched > 0) look(watch.scanUnwatched());
      const ctx = context();
      judgeProvisional(ctx);
      checkRedirects(ctx);
    },
    begin(run) {
      runs.add(run);
      record.claim();
      for (const text of pending.splice(0)) {
        run.notes.push(text);
        run.onNote(text);
      }
    },
    end(run) {
      runs.delete(run);
      if (runs.size > 0) return false;
      // Idle: what was judged harmless while commands ran is known from now on (and held in the next).
      for (const marker of provisional.values()) known.set(marker.dir, { marker, redirects: presentRedirects(marker) });
      if (provisional.size > 0) dirty = true;
      provisional.clear();
      save();
      return true;
    },
    get active() {
      return runs.size > 0;
    },
    pendingNotes: () => [...pending],
    close() {
      save();
      record.release();
      watch.close();
    },
  };
}
