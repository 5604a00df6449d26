// The git guard with the real sandbox, real git and real processes. For every way a sandboxed
// command can make git on the host run a program, a long-running sandboxed command plants it, and
// while that command still runs the user's own git (status, diff, log with a terminal, commit, an
// alias, a fetch over ssh) runs in the project and in the folder below it: the marker program
// must not run, and the command's output must say what Garuda moved. Negative control for each:
// the same plant under an executor without the guard, and the same git commands run the marker.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  evilConfigScript,
  git,
  expectCaught,
  expectUncaught,
  labPerSuite,
  plantVectors,
} from "../../support/gitAttack.ts";
import { describeSandbox } from "../../support/sandboxSupport.ts";

describeSandbox(
  "git guard in bubblewrap",
  () => {
    const lab = labPerSuite();

    const vectors = plantVectors(lab);

    for (const vector of vectors) {
      test(`${vector.name}: git on the host runs nothing, while the command runs and after ` +
        `(negative control: without the guard it runs the marker)`, async () => {
        const slug = vector.name.replace(/[^a-z]+/gi, "-").slice(0, 40);
        const root = lab.project(`g-${slug}`, vector.repo ?? true);
        vector.setup?.(root);
        const result = await lab.attack(lab.guarded, root, vector.plant(), vector.dirs);
        expectCaught(result, vector);

        const control = lab.project(`u-${slug}`, vector.repo ?? true);
        vector.setup?.(control);
        const unchecked = await lab.attack(lab.unguarded, control, vector.plant(), vector.dirs);
        expectUncaught(unchecked);
      }, 90_000);
    }

    test("the quarantine loses nothing, is out of git's way and read-only to commands: " +
      "the moved repository keeps its files, HEAD renamed", async () => {
      const root = lab.project("quarantine");
      const result = await lab.attack(
        lab.guarded,
        root,
        [
          "git init -q sub",
          "echo kept > sub/.git/description",
          evilConfigScript("sub/.git/config", lab.marker.path),
        ].join(" && "),
        ["sub"],
      );
      expect(result.output).toContain("made sub/.git");
      const stamps = readdirSync(join(root, ".garuda/quarantine")).filter((name) => name !== ".gitignore");
      expect(stamps).toHaveLength(1);
      const moved = join(root, ".garuda/quarantine", stamps[0] as string, "sub/.git.garuda-quarantined");
      expect(readFileSync(join(moved, "description"), "utf8")).toBe("kept\n");
      expect(existsSync(join(moved, "HEAD.garuda-quarantined"))).toBe(true);
      expect(existsSync(join(moved, "HEAD"))).toBe(false);
      expect(readFileSync(join(root, ".garuda/quarantine/.gitignore"), "utf8")).toContain("*");
      expect(git(root, lab.home, "status", "--porcelain", "--untracked-files=all")).not.toContain(".garuda");
      const write = await lab.guarded.run({
        command: `echo x > '${moved}/config'`,
        cwd: root,
        sandbox: { ...lab.guarded.spec(), root },
      });
      expect(write.output).toContain("Read-only file system");
    }, 60_000);
  },
  "bwrap",
);
