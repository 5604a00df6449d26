// A sandboxed job that takes every inotify instance left (issue 31.5), for real: inotifyExhaustion.ts
// runs two Garuda processes' guards in a user namespace of its own whose max_inotify_instances it
// lowers (so the machine's other programs keep theirs), with real bwrap, git and processes. The
// guard that gets no instance says so in its first command's output (the user and the model see
// it), scans instead (a plant is moved when the command ends), its session's one-line command
// still completes within 2 s, closing the attacking session ends the job that held the instances,
// and the next command's start gets one: the project is watched again and a plant is moved while
// its command still runs. Negative control (checked once by hand, see the report of issue 31.5):
// without host.retry() the guard stays without an instance, and `watchingAfter` is false.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { describeSandbox } from "../../support/sandboxSupport.ts";
import { tempDir } from "../../support/tempDir.ts";

const WITHIN_MS = 2_000;

describeSandbox(
  "git guard: no inotify instance left",
  () => {
    test("the guard says so, scans, tries again at the next command and watches once an " +
      "instance is free; the other session's command completes within 2 s", async () => {
      using scratch = tempDir("garuda-guardinotify-", { real: true });
      const child = Bun.spawn(
        [
          "unshare",
          "-Ur",
          process.execPath,
          join(import.meta.dir, "../../fixtures/inotifyExhaustion.ts"),
          scratch.path,
        ],
        { stdout: "pipe", stderr: "pipe" },
      );
      const [stdout, stderr, code] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.exited,
      ]);
      expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
      const seen = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
      // The attack: the job held every instance left, and the second process's guard got none.
      expect(seen.held).toBe(true);
      expect(seen.heldOutput).toMatch(/^HELD \d+$/);
      expect(seen.watchingWhileHeld).toBe(false);
      // Said to the user and the model, in the first command's output; that command is not held up.
      expect(seen.first.output).toContain("no inotify instance was left for it");
      expect(seen.first.output).toContain("It tries again as each command starts");
      expect(seen.first.ms).toBeLessThan(WITHIN_MS);
      // Scanned: a plant is moved when its command ends, and the user's git runs nothing there.
      expect(seen.planted).toContain("[Garuda: the command made sub/.git, a git repository");
      expect(seen.hitsWhileHeld).toEqual([]);
      // Closing the attacking session ended the job (and freed what it held).
      expect(seen.holdersAfterClose).toBe(0);
      // The next command's start got an instance: the project (200 folders and more) is watched.
      expect(seen.second.ms).toBeLessThan(WITHIN_MS);
      expect(seen.watchingAfter).toBe(true);
      expect(seen.watchesAfter).toBeGreaterThan(200);
      expect(seen.movedWhileRunning).toBe(true);
    }, 180_000);
  },
  "bwrap",
);
