// A subtree that stormed is scanned, not watched (storm.ts). A command can see each scan coming:
// the scan opens the stormed folder first, which raises IN_OPEN on an inotify watch the command
// holds itself on that folder. On that event it hides its plant for 300 ms (renames `.git/HEAD`
// away, then `.git` to a plain name, which is neither a `.git` nor a bare repository), then puts
// it back; every scan would walk past it, and between scans (most of the time) the user's git in
// that folder runs what its config names, for as long as the command runs. The guard stops the
// command's processes while it scans and judges (freeze.ts): the plant is where git finds it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { createExecutor } from "../../../src/sandbox/executor.ts";
import { createGitGuardHost } from "../../../src/sandbox/gitGuard/host.ts";
import type { RunningProcess } from "../../../src/sandbox/types.ts";
import { type MarkerProgram, evilConfigScript, git, markerProgram, probe } from "../../support/gitAttack.ts";
import { SELF_COMMAND, describeSandbox, eventually, machineSandbox } from "../../support/sandboxSupport.ts";
import { makeTempDir } from "../../support/tempDir.ts";

const PLANT = "storm/q/e1999/p";

/**
 * Renames storm/a (200 folders in it) to storm/z and back until `stormed` appears (the guard gave up watching storm).
 */
const storm = (tag: string) =>
  `rm -rf storm && perl -e 'mkdir "storm"; mkdir "storm/a"; mkdir "storm/a/d$_" ` +
  `for 1..200; until (-e "stormed") { for (1..2000) { rename "storm/a", ` +
  `"storm/z"; rename "storm/z", "storm/a"; } }' ${tag}`;

/** The hiders' start: an inotify watch on `storm` for IN_OPEN, and how the plant is shown and hidden. */
const WATCH_STORM = `my ($dir, $p) = @ARGV;
my $fd = syscall(294, 0); die "inotify_init1: $!" if $fd < 0;
open(my $fh, "<&=", $fd) or die "fdopen: $!";
my $wd = syscall(254, $fd, $dir, 0x20); die "inotify_add_watch: $!" if $wd < 0;
sub show { rename "$p/gx", "$p/.git"; rename "$p/.git/XX", "$p/.git/HEAD"; }
sub hide { rename "$p/.git/HEAD", "$p/.git/XX"; rename "$p/.git", "$p/gx"; }
`;

/**
 * inotify (x86_64 syscalls 294 inotify_init1, 254 inotify_add_watch) on `storm` for IN_OPEN: each
 * scan's opendir of it hides the plant for 300 ms, then it is put back.
 */
const hider =
  `perl -e '
${WATCH_STORM}show(); $| = 1; print "WATCHING\\n";
my $hides = ` +
  `0;
while (1) { my $buf; sysread($fh, $buf, 65536); hide(); $hides++; ` +
  `select(undef, undef, undef, 0.3); show(); print "HID $hides\\n"; }
' storm ` +
  `${PLANT}`;

/**
 * The same watch, used as a clock: after each scan it sees, the plant is shown for 1.9 s, then
 * hidden until the next scan (scans 2 s apart or more would never find it).
 */
const clockHider = `perl -e '
${WATCH_STORM}hide(); $| = 1; print "WATCHING\\n";
my $shows = 0;
while (1) {
  my $buf; sysread($fh, $buf, 65536); show(); $shows++; print "SHOWN $shows\\n";
  select(undef, undef, undef, 1.9);
  my $rin = ""; vec($rin, $fd, 1) = 1; while (select(my $r = $rin, undef, undef, 0)) { sysread($fh, $buf, 65536); }
  hide();
}
' storm ${PLANT}`;

describeSandbox(
  "git guard: a plant in a stormed subtree that hides from each scan",
  () => {
    let scratch = "";
    let home = "";
    beforeAll(() => {
      scratch = makeTempDir("garuda-hidden-plant-", { real: true });
      home = join(scratch, "home");
      mkdirSync(home);
    }, 60_000);
    afterAll(() => rm(scratch, { recursive: true, force: true }), 60_000);

    /**
     * A project whose `storm` folder a job has stormed (now scanned, not watched), the plant in it and `hiding`
     * running.
     */
    async function attack(
      name: string,
      hiding: string,
      use: (job: RunningProcess, plant: string, marker: MarkerProgram) => Promise<void>,
    ) {
      const root = join(scratch, name);
      mkdirSync(join(root, "src"), { recursive: true });
      git(root, home, "init", "-q");
      const host = createGitGuardHost({ stateDir: join(scratch, "state"), path: process.env.PATH });
      const attacker = await createExecutor({
        root,
        home,
        selfCommand: SELF_COMMAND,
        probe: machineSandbox,
        killGraceMs: 300,
        gitGuards: host,
      });
      const marker = markerProgram(join(scratch, `bin-${name}`));
      try {
        const job = await attacker.start({
          command: [
            storm("31021"),
            // The plant, made outside the project and copied in as a non-repository (no HEAD, not named .git).
            `git init -q "$TMPDIR/r" && ${evilConfigScript("$TMPDIR/r/.git/config", marker.path)}`,
            'mv "$TMPDIR/r/.git/HEAD" "$TMPDIR/r/.git/XX"',
            "mkdir -p storm/q && (cd storm/q && mkdir e$(seq -s ' e' 0 1999))",
            `mkdir -p ${PLANT} && cp -r "$TMPDIR/r/.git" ${PLANT}/gx`,
            hiding,
          ].join("\n"),
          cwd: root,
          sandbox: attacker.spec(),
        });
        await eventually(() => job.output().includes("[Garuda: storm changes so fast"), 30_000);
        writeFileSync(join(root, "stormed"), "");
        await eventually(() => job.output().includes("WATCHING"), 30_000);
        await use(job, join(root, PLANT), marker);
      } finally {
        await attacker.shutdown();
        await host.close();
      }
    }

    test("hidden the moment a scan opens the folder: the user's git there never runs the " +
      "plant while the job runs", async () => {
      await attack("react", hider, async (job, plant, marker) => {
        // Four scans or more (one every 2 s on average while a command runs).
        await Bun.sleep(9_000);
        let hits: string[] = [];
        for (let i = 0; i < 20 && hits.length === 0; i++) {
          if (existsSync(join(plant, ".git/HEAD"))) hits = probe(marker, home, [plant]);
          else await Bun.sleep(50);
        }
        console.log(
          "hides seen by the job:",
          job
            .output()
            .match(/HID \d+/g)
            ?.pop(),
          "| guard moved it:",
          job.output().includes(`made ${PLANT}/.git`),
          "| marker hits:",
          hits.length,
        );
        expect(job.output()).toContain("HID"); // the scans came, and were seen
        expect(hits).toEqual([]);
      });
    }, 120_000);

    // Shown 1.9 s after each scan it sees, then hidden: scans at least 2 s apart would never find
    // it (the negative control); at moments drawn at random one finds it about every other scan.
    // Until then the user's git there would run it: the chance docs/safety.md names.
    test("shown on the job's own clock between scans: a scan it cannot foresee finds it", async () => {
      await attack("clock", clockHider, async (job, plant, marker) => {
        // A loaded machine (the suite runs four files at a time) may delay the guard's scans: up to 75 s.
        await eventually(() => job.output().includes(`made ${PLANT}/.git`), 75_000).catch(() => undefined);
        console.log(
          "shown after scans:",
          job
            .output()
            .match(/SHOWN \d+/g)
            ?.pop(),
        );
        expect(job.output()).toContain(`made ${PLANT}/.git, a git repository`);
        expect(probe(marker, home, [plant])).toEqual([]);
      });
    }, 180_000);
  },
  "bwrap",
);
