// Setting up the undo store (undo.ts) before its first snapshot: reasons not to take one at all
// (undoPrecheck.ts, no git), then the store's folder (~/.garuda/snapshots/<hash>/, 0700), its
// git, what it never stores (info/exclude), its attributes, and its first index (undoSeed.ts).
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { garudaPaths } from "../config/paths.ts";
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
  for (const dir of [garudaPaths(home).dir, garudaPaths(home).snapshots, gitDir]) {
    if (!existsSync(dir)) mkdirSync(dir, { mode: 0o700 });
  }
  chmodSync(gitDir, 0o700);
  if (!existsSync(join(gitDir, "HEAD"))) {
    const created = await git.run({ script: "g init --quiet --template= >/dev/null" });
    if (created.exitCode !== 0) return { refused: `the snapshot store could not be created (${gitMessage(created)}).` };
  }
  mkdirSync(join(gitDir, "info"), { recursive: true, mode: 0o700 });
  mkdirSync(tmpDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(gitDir, "info", "exclude"), excluded.map((path) => `/${path}/\n`).join(""));
  // Highest-precedence attributes: no eol, filter, ident or encoding conversion, so files
  // come back byte for byte whatever the project's .gitattributes say.
  writeFileSync(join(gitDir, "info", "attributes"), "* -text -eol -filter -ident -working-tree-encoding\n");
  mkdirSync(join(gitDir, "objects", "info"), { recursive: true, mode: 0o700 });
  return { seeded: await seedIndex(git) };
}
