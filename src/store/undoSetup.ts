// Setting up the undo store (undo.ts) before its first snapshot: reasons not to take one at all
// (undoPrecheck.ts, no git), then the store's folder (~/.garuda/snapshots/<hash>/, 0700), its
// git, what it never stores (info/exclude), its attributes, and its first index (undoSeed.ts).
import { chmodSync, existsSync, lstatSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { garudaPaths } from "../config/paths.ts";
import { writeFileAtomic } from "../files/atomicWrite.ts";
import { type GitRunner, gitMessage } from "./undoGit.ts";
import { undoPrecheck } from "./undoPrecheck.ts";
import { seedIndex } from "./undoSeed.ts";

export interface StoreSetup {
  home: string;
  /** Paths (relative to the project) no snapshot holds. */
  excluded: readonly string[];
  /** The most files of a folder in no git repository. */
  maxFiles: number;
}

/** Sets the store up: whether its index is the project's copy (undoSeed.ts), or why undo is off. */
export async function setUpStore(
  git: GitRunner,
  setup: StoreSetup,
): Promise<{ seeded: boolean } | { refused: string }> {
  const { root, gitDir, tmpDir } = git.dirs;
  const { home, excluded } = setup;
  const refused = await undoPrecheck(root, setup.maxFiles, excluded);
  if (refused !== undefined) return { refused };
  const probe = await git.run({ script: "command -v git >/dev/null || exit 127\ng --version >/dev/null" });
  if (probe.exitCode === 127)
    return {
      refused:
        "git is not installed, and Garuda keeps its undo snapshots with git. Install " +
        "git (e.g. `sudo apt-get install git`, `brew install git`) and start a new " +
        "session.",
    };
  if (probe.exitCode !== 0) return { refused: `git does not work here (${gitMessage(probe)}).` };
  // Sessions of the same project set the same store up at once (an editor opening two threads):
  // every step here may meet another session's, so none fails on what the other just made.
  for (const dir of [garudaPaths(home).dir, garudaPaths(home).snapshots, gitDir])
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(gitDir, 0o700);
  const problem = await initStore(git, gitDir);
  if (problem !== undefined) return { refused: `the snapshot store could not be created (${problem}).` };
  mkdirSync(join(gitDir, "info"), { recursive: true, mode: 0o700 });
  mkdirSync(tmpDir, { recursive: true, mode: 0o700 });
  const info = { mode: 0o600, dirMode: 0o700 };
  writeFileAtomic(join(gitDir, "info", "exclude"), excluded.map((path) => `/${path}/\n`).join(""), info);
  // Highest-precedence attributes: no eol, filter, ident or encoding conversion, so files
  // come back byte for byte whatever the project's .gitattributes say.
  writeFileAtomic(join(gitDir, "info", "attributes"), "* -text -eol -filter -ident -working-tree-encoding\n", info);
  mkdirSync(join(gitDir, "objects", "info"), { recursive: true, mode: 0o700 });
  return { seeded: await seedIndex(git) };
}

/** Tries of `git init` while another session's holds the store's config lock. */
const INIT_TRIES = 5;
/** A config lock this old was left by a git killed while writing (a session closed during its set-up). */
const STALE_LOCK_MS = 10_000;

/**
 * `git init` of the store unless it exists, or why it could not be made. Another session making
 * the same store at the same moment holds its config's lock: wait and look again (git init of a
 * store that exists now is harmless). A git that was stopped (the session closing) is not tried again.
 */
async function initStore(git: GitRunner, gitDir: string): Promise<string | undefined> {
  const lock = join(gitDir, "config.lock");
  let problem: string | undefined;
  for (let attempt = 0; attempt < INIT_TRIES; attempt++) {
    removeStale(lock);
    if (existsSync(join(gitDir, "HEAD")) && !existsSync(lock)) return undefined;
    if (attempt > 0) await Bun.sleep(50 * attempt);
    const created = await git.run({ script: "g init --quiet --template= >/dev/null" });
    if (created.exitCode === 0) return undefined;
    problem = gitMessage(created);
    // Stopped (null) or killed by a signal (128 + TERM, KILL, INT); git's own failures exit 128.
    if (created.exitCode === null || [130, 137, 143].includes(created.exitCode)) return problem;
  }
  return problem;
}

/** Removes `lock` when it is older than STALE_LOCK_MS. */
function removeStale(lock: string): void {
  try {
    if (Date.now() - lstatSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { force: true });
  } catch {
    // No lock.
  }
}
