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
import { evilConfigScript, git, markerProgram, probe } from "../../support/gitAttack.ts";
import { SELF_COMMAND, describeSandbox, eventually, machineSandbox } from "../../support/sandboxSupport.ts";
import { makeTempDir } from "../../support/tempDir.ts";

const PLANT = "storm/q/e1999/p";

/** Renames storm/a (200 folders in it) to storm/z and back until `stormed` appears (the guard gave up watching storm). */
const storm = (tag: string) =>
  `rm -rf storm && perl -e 'mkdir "storm"; mkdir "storm/a"; mkdir "storm/a/d$_" for 1..200; until (-e "stormed") { for (1..2000) { rename "storm/a", "storm/z"; rename "storm/z", "storm/a"; } }' ${tag}`;

/**
 * inotify (x86_64 syscalls 294 inotify_init1, 254 inotify_add_watch) on `storm` for IN_OPEN: each
 * scan's opendir of it hides the plant for 300 ms, then it is put back.
 */
const hider = `perl -e '
my ($dir, $p) = @ARGV;
my $fd = syscall(294, 0); die "inotify_init1: $!" if $fd < 0;
open(my $fh, "<&=", $fd) or die "fdopen: $!";
my $wd = syscall(254, $fd, $dir, 0x20); die "inotify_add_watch: $!" if $wd < 0;
sub show { rename "$p/gx", "$p/.git"; rename "$p/.git/XX", "$p/.git/HEAD"; }
sub hide { rename "$p/.git/HEAD", "$p/.git/XX"; rename "$p/.git", "$p/gx"; }
show(); $| = 1; print "WATCHING\\n";
my $hides = 0;
while (1) { my $buf; sysread($fh, $buf, 65536); hide(); $hides++; select(undef, undef, undef, 0.3); show(); print "HID $hides\\n"; }
' storm ${PLANT}`;

describeSandbox(
  "git guard: a plant in a stormed subtree that hides from each scan",
  () => {
    let scratch = "";
    let home = "";
    let root = "";
    beforeAll(() => {
      scratch = makeTempDir("garuda-hidden-plant-", { real: true });
      home = join(scratch, "home");
      root = join(scratch, "project");
      mkdirSync(home);
      mkdirSync(join(root, "src"), { recursive: true });
      git(root, home, "init", "-q");
    }, 60_000);
    afterAll(() => rm(scratch, { recursive: true, force: true }), 60_000);

    test("the user's git in the stormed folder never runs the plant while the job runs", async () => {
      const host = createGitGuardHost({ stateDir: join(scratch, "state"), path: process.env.PATH });
      const attacker = await createExecutor({
        root,
        home,
        selfCommand: SELF_COMMAND,
        probe: machineSandbox,
        killGraceMs: 300,
        gitGuards: host,
      });
      const marker = markerProgram(join(scratch, "bin"));
      try {
        const job = await attacker.start({
          command: [
            storm("31021"),
            // The plant, made outside the project and copied in as a non-repository (no HEAD, not named .git).
            `git init -q "$TMPDIR/r" && ${evilConfigScript("$TMPDIR/r/.git/config", marker.path)}`,
            'mv "$TMPDIR/r/.git/HEAD" "$TMPDIR/r/.git/XX"',
            "mkdir -p storm/q && (cd storm/q && mkdir e$(seq -s ' e' 0 1999))",
            `mkdir -p ${PLANT} && cp -r "$TMPDIR/r/.git" ${PLANT}/gx`,
            hider,
          ].join("\n"),
          cwd: root,
          sandbox: attacker.spec(),
        });
        await eventually(() => job.output().includes("[Garuda: storm changes so fast"), 30_000);
        writeFileSync(join(root, "stormed"), "");
        await eventually(() => job.output().includes("WATCHING"), 30_000);
        // Four scans or more (one every 2 s while a command runs).
        await Bun.sleep(9_000);
        const plant = join(root, PLANT);
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
      } finally {
        await attacker.shutdown();
        await host.close();
      }
    }, 120_000);
  },
  "bwrap",
);
