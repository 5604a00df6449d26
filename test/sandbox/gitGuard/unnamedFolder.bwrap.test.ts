// A folder whose name is not UTF-8 cannot be watched or scanned by the git guard: its name reads
// back with U+FFFD (inotify's names, readdir's), which names no folder, so no walk gets in. A
// command could plant a repository with an evil config there and a gitlink to it in the index;
// the user's own `git status` at the project root would then run the planted program (git looks
// into each populated submodule). So while commands run, the guard moves every such folder to its
// quarantine by the bytes of its name (guardState.ts's moveUnnamed): one a command makes, and the
// user's own when a command begins (a command could plant in it as well).
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "bun:test";
import { expectUncaught, labPerSuite } from "../../support/gitAttack.ts";
import { describeSandbox } from "../../support/sandboxSupport.ts";

const UNNAMED = Buffer.from("u\xff", "latin1");

describeSandbox(
  "git guard and folder names that are not UTF-8",
  () => {
    const lab = labPerSuite();
    const plant = (make: boolean, repo: string) =>
      [
        lab.evilRepo(`$TMPDIR/${repo}`),
        `${make ? "mkdir -p $'u\\xff/sub' && " : ""}cp -r "$TMPDIR/${repo}/.git" $'u\\xff/sub/.git' && ` +
          `echo x > $'u\\xff/sub/f'`,
        `git update-index --add --cacheinfo 160000,$(git -C "$TMPDIR/${repo}" rev-parse HEAD),$'u\\xff/sub'`,
      ].join(" && ");
    const quarantined = (root: string) =>
      readdirSync(join(root, ".garuda/quarantine"), { recursive: true, encoding: "utf8" }).filter((p) =>
        p.endsWith("u\\xff.garuda-quarantined"),
      );

    test("a repository planted below such a folder is moved aside, and git at the root runs nothing", async () => {
      const root = lab.project("unnamed");
      const result = await lab.attack(lab.guarded, root, plant(true, "n1"), ["."]);
      expect(result.output).toContain("PLANTED");
      expect({ during: result.during, after: result.after }).toEqual({ during: [], after: [] });
      expect(result.output).toContain("there is a folder u\\xff whose name is not UTF-8");
      expect(result.output).toContain("Garuda moved it to .garuda/quarantine/");
      expect(readdirSync(root, { encoding: "buffer" }).some((name) => name.equals(UNNAMED))).toBe(false);
      expect(quarantined(root)).toHaveLength(1);
    }, 90_000);

    test("the user's own such folder is moved aside when a command begins; a plant in it runs nothing", async () => {
      const root = lab.project("unnamed-own");
      mkdirSync(Buffer.from(`${root}/u\xff/sub`, "latin1"), { recursive: true });
      writeFileSync(Buffer.from(`${root}/u\xff/sub/mine`, "latin1"), "mine\n");
      // The plant needs the folder, which the guard moved before the command ran: it makes nothing.
      const atStart = "if [ -d $'u\\xff' ]; then echo FOLDER-AT-START; fi";
      const result = await lab.attack(lab.guarded, root, `${atStart}; ${plant(false, "n2")}; true`, ["."]);
      expect(result.output).not.toContain("FOLDER-AT-START");
      expect({ during: result.during, after: result.after }).toEqual({ during: [], after: [] });
      expect(result.output).toContain("there is a folder u\\xff whose name is not UTF-8");
      const [moved] = quarantined(root);
      expect(readdirSync(join(root, ".garuda/quarantine", `${moved}`, "sub"))).toEqual(["mine"]);
    }, 90_000);

    test("without the guard the same plant makes git at the root run the program (the negative control)", async () => {
      expectUncaught(await lab.attack(lab.unguarded, lab.project("unnamed-open"), plant(true, "n3"), ["."]));
    }, 90_000);
  },
  "bwrap",
);
