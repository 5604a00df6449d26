// The git guard in an editor's extra workspace folder (additionalDirectories), with the real
// sandbox, real git and real processes: a sandboxed command may write the extra folder as it
// writes the root, so what it plants there for git on the host — a nested repository with
// core.fsmonitor and a gitlink to it, a .git/commondir redirect, a .git file pointing out, a bare
// repository — is moved aside while it runs, as in the root (gitGuard.bwrap.test.ts). Negative
// control for each: the same plant under an executor without the guard, and git runs the marker.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { git, expectCaught, expectUncaught, labPerSuite, plantVectors } from "../support/gitAttack.ts";
import { describeSandbox } from "../support/sandboxSupport.ts";

describeSandbox(
  "git guard in an extra workspace folder, in bubblewrap",
  () => {
    const lab = labPerSuite();

    const vectors = plantVectors(lab);

    for (const vector of vectors) {
      test(`${vector.name}, in an extra folder: git on the host runs nothing, while the ` +
        `command runs and after (negative control: without the guard it runs the ` +
        `marker)`, async () => {
        const slug = vector.name.replace(/[^a-z]+/gi, "-").slice(0, 40);
        const session = lab.project(`xr-${slug}`);
        const extra = lab.project(`xe-${slug}`, vector.repo ?? true);
        vector.setup?.(extra);
        const result = await lab.attack(lab.guarded, extra, vector.plant(), vector.dirs, {
          root: session,
          extraRoots: [extra],
        });
        expectCaught(result, vector);
        expect(existsSync(join(extra, ".garuda/quarantine"))).toBe(true);
        expect(existsSync(join(session, ".garuda/quarantine"))).toBe(false);

        const controlSession = lab.project(`ur-${slug}`);
        const control = lab.project(`ue-${slug}`, vector.repo ?? true);
        vector.setup?.(control);
        const unchecked = await lab.attack(lab.unguarded, control, vector.plant(), vector.dirs, {
          root: controlSession,
          extraRoots: [control],
        });
        expectUncaught(unchecked);
      }, 90_000);
    }

    test("a session root inside an extra folder: a repository planted in the root is " +
      "moved by the extra folder's guard, and the root's own repository keeps working", async () => {
      const extra = lab.project("xo-outer");
      const session = join(extra, "app");
      mkdirSync(join(session, "src"), { recursive: true });
      git(session, lab.home, "init", "-q");
      git(session, lab.home, "commit", "-q", "--allow-empty", "-m", "first");
      const result = await lab.attack(lab.guarded, session, lab.evilRepo("sub"), [".", "sub"], {
        root: session,
        extraRoots: [extra],
      });
      expect(result.during).toEqual([]);
      expect(result.after).toEqual([]);
      expect(result.output).toContain("made app/sub/.git, a git repository; its config sets");
      expect(git(session, lab.home, "log", "--format=%s").split("\n")).toContain("first");
    }, 90_000);
  },
  "bwrap",
);
