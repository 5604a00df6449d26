// What the git guard judges while sandboxed commands run (and once at a sweep): each repository
// made meanwhile (harmless, or moved away; sooner when a command holds its git files open for
// writing), redirect files new in a known repository's git folder, and the kept submodule configs
// (a harmful change put back). Apart from guard.ts, which decides when to judge, with the
// commands' processes stopped (`stilled`); the state judged is guardState.ts.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type GuardState, REDIRECTS, covered, judgeContext, neutralize, note } from "./guardState.ts";
import { quarantine, restoreFile } from "./quarantine.ts";
import {
  type JudgeContext,
  configFileProblem,
  gitDirOf,
  judgeMarker,
  markersAt,
  readSmall,
  trustedWorktreeConfig,
  unsafeAddition,
} from "./repos.ts";
import { writeHeld } from "./writeHolds.ts";

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

/** A submodule's git folder, whose config commands may write (`git submodule update`): the guard keeps it. */
const MODULE_GIT_DIR = /\/\.git\/modules\//;

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
async function judgeProvisional(state: GuardState, ctx: JudgeContext, pids: number[]): Promise<void> {
  for (const marker of [...state.provisional.values()]) {
    const current = markersAt(marker.dir).find((m) => m.entry === marker.entry);
    if (!current) {
      state.provisional.delete(marker.entry);
      continue;
    }
    state.provisional.set(marker.entry, current);
    const gitDir = gitDirOf(current);
    const held = new Set(
      pids.length > 0 && typeof gitDir === "string" ? writeHeld(pids, gitFiles(gitDir)).values() : [],
    );
    if (held.size > 0) {
      // Read now it may be harmless; written through a mapping later, no event would tell.
      const since = state.heldSince.get(current.dir) ?? performance.now();
      state.heldSince.set(current.dir, since);
      if (held.has("mapped") || performance.now() - since >= HOLD_GRACE_MS) {
        neutralize(state, current, HELD_OPEN);
        continue;
      }
    }
    const verdict = await judgeMarker(current, ctx);
    if (!verdict.ok) neutralize(state, current, verdict.why);
  }
}

/** Redirect files that appeared in a known repository's git folder. */
export async function checkRedirects(state: GuardState, ctx: JudgeContext): Promise<void> {
  for (const entry of [...state.known.values()]) {
    const gitDir = gitDirOf(entry.marker);
    if (typeof gitDir !== "string" || !covered(state, gitDir)) continue;
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
      const pointsAt = target && "text" in target && target.text.trim() ? ` (${target.text.trim().slice(0, 200)})` : "";
      note(state, path, state.notes.redirect(path, name, pointsAt, entry.marker.dir, quarantine(state.root, path)));
    }
  }
}

/** The known submodules' configs, as they are when a command starts. */
export function keepConfigs(state: GuardState): void {
  const before = JSON.stringify([...state.kept]);
  state.kept.clear();
  for (const { marker } of state.known.values()) {
    const gitDir = gitDirOf(marker);
    if (typeof gitDir !== "string" || !MODULE_GIT_DIR.test(gitDir) || !covered(state, gitDir)) continue;
    const file = readSmall(join(gitDir, "config"));
    if ("text" in file) state.kept.set(join(gitDir, "config"), file.text);
  }
  if (JSON.stringify([...state.kept]) !== before) state.dirty = true;
}

/**
 * A kept config that changed: fine when everything the command added is harmless (core.worktree,
 * which `git submodule update` writes); otherwise put back as it was.
 */
export async function checkConfigs(state: GuardState, ctx: JudgeContext, pids: number[]): Promise<void> {
  const held = pids.length > 0 ? writeHeld(pids, [...state.kept.keys()]) : new Set<string>();
  for (const [path, text] of state.kept) {
    if (held.has(path)) {
      // The text put back is a new file: a mapping of the old one writes only to that.
      note(state, path, state.notes.config(path, HELD_CONFIG, restoreFile(path, text)));
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
        state.kept.set(path, now.text);
        state.dirty = true;
        continue;
      }
      why = bad;
    }
    note(state, path, state.notes.config(path, why, restoreFile(path, text)));
  }
}

/** Judges what may run something now: planted repositories, redirect files, kept configs. */
export async function judgeAll(state: GuardState, pids: number[]): Promise<void> {
  const ctx = judgeContext(state);
  await judgeProvisional(state, ctx, pids);
  await checkRedirects(state, ctx);
  await checkConfigs(state, ctx, pids);
}
