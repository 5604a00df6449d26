// Red team of the one-plan-per-call contract (NOTES-plan.md): edit_file's and write_file's plan()
// resolves its path for the permission request, then again to plan the change (the diff the user
// approves). A process that re-points the path between the two (here at the first moment it can,
// in the withheld-path check that runs between them) must not make the question show the diff of
// one file under the name of another.
import { describe, expect, test } from "bun:test";
import { renameSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { planContext, session, tempRoot, writeFiles } from "../support/toolFixtures.ts";

describe("a path re-pointed inside plan()", () => {
  for (const [tool, input] of [
    ["edit_file", { path: "a.txt", old_string: "old", new_string: "new" }],
    ["write_file", { path: "a.txt", content: "new\n" }],
  ] as const) {
    test(
      `${tool}: a.txt swapped for a link to b.txt while planning → the call cannot ` +
        `run; no diff of b.txt titled a.txt (control: no swap, a.txt's diff)`,
      async () => {
        using root = tempRoot();
        writeFiles(root.path, { "a.txt": "keep=1; old\n", "b.txt": "old\n" });
        const s = session(root.path);
        for (const file of ["a.txt", "b.txt"]) await s.run("read_file", { path: file });
        const withheld = s.deps.withheld;

        const control = s.tool(tool).plan(input, planContext(root.path));
        expect(control.cannotRun).toBeUndefined();
        expect(control.permission.change?.oldText).toBe("keep=1; old\n");

        let swapped = false;
        s.deps.withheld = (path: string) => {
          if (!swapped) {
            swapped = true;
            renameSync(join(root.path, "a.txt"), join(root.path, "a.orig"));
            symlinkSync("b.txt", join(root.path, "a.txt"));
          }
          return withheld(path);
        };
        const plan = s.tool(tool).plan(input, planContext(root.path));
        expect(plan.permission.target).toMatchObject({ path: join(root.path, "a.txt") });
        expect(plan.permission.change?.oldText).not.toBe("old\n");
        expect(plan.cannotRun).toContain("changed while this call waited");
      },
    );
  }
});
