// OPEN HOLE (test.failing: it passes while the hole is there; make it a plain test once fixed). A
// folder whose name is not UTF-8 is neither watched nor scanned by the git guard: its name reads
// back with U+FFFD (inotify's names, readdir's), which names no folder, so the walk never gets in.
// A command plants a repository with an evil config there and a gitlink to it in the index; the
// user's own `git status` at the project root then runs the planted program (git looks into each
// populated submodule). The same plant in a folder named in UTF-8 is caught (guard.bwrap.test.ts,
// its first vector). The undo store's change log does not vouch while such a folder is there
// (folderNames.ts), but the guard itself would have to handle names as bytes.
import { expect, test } from "bun:test";
import { labPerSuite } from "../../support/gitAttack.ts";
import { describeSandbox } from "../../support/sandboxSupport.ts";

describeSandbox(
  "git guard and folder names that are not UTF-8",
  () => {
    const lab = labPerSuite();
    test.failing("a repository planted below such a folder is moved aside, and git at the root runs nothing", async () => {
      const plant = [
        lab.evilRepo("$TMPDIR/n"),
        `mkdir -p $'u\\xff/sub' && cp -r "$TMPDIR/n/.git" $'u\\xff/sub/.git' && echo x > $'u\\xff/sub/f'`,
        `git update-index --add --cacheinfo 160000,$(git -C "$TMPDIR/n" rev-parse HEAD),$'u\\xff/sub'`,
      ].join(" && ");
      const result = await lab.attack(lab.guarded, lab.project("unnamed"), plant, ["."]);
      expect(result.output).toContain("PLANTED");
      expect({ during: result.during, after: result.after }).toEqual({ during: [], after: [] });
    }, 90_000);
  },
  "bwrap",
);
