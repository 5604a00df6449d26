// A config changed through a shared writable mapping raises no inotify event, so the git guard
// judges a repository a command made again every 250 ms while the command runs. The command can
// see each of those reads (IN_CLOSE_NOWRITE on a watch it holds on the file): right after each it
// writes an evil config through the mapping, and puts the harmless text back 150 ms later, before
// the next read. The guard reads a harmless config every time, and for most of each 250 ms the
// user's git in that folder would run the program it names. The guard stops the command while it
// looks and moves aside a repository whose git folder's files a command process holds open for
// writing or mapped shared and writable (writeHolds.ts): both with the file still open and with
// only the mapping left.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { createExecutor } from "../../../src/sandbox/executor.ts";
import { createGitGuardHost } from "../../../src/sandbox/gitGuard/host.ts";
import type { RunningProcess } from "../../../src/sandbox/types.ts";
import { type MarkerProgram, git, markerProgram, probe } from "../../support/gitAttack.ts";
import { SELF_COMMAND, describeSandbox, eventually, machineSandbox } from "../../support/sandboxSupport.ts";
import { makeTempDir } from "../../support/tempDir.ts";

/**
 * How the job holds the config: open and mapped all along; mapped only (the file closed); open
 * only, each write through a mapping made and dropped at once (no mapping for a look to see); or
 * not at all, each write through a hard link made for it in the folder above, a mapping, and the
 * link removed (the close raises its event in a folder of the tree, under another name).
 */
type Hold = "open and mapped" | "mapped" | "open" | "through a passing link";

/** The job's flipper: python's mmap and libc's inotify (IN_CLOSE_NOWRITE = 0x10) on p/.git/config. */
const flipper = (marker: string, hold: Hold) => `
import ctypes, mmap, os, select, sys, time
config = "p/.git/config"
evil = b"[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = ${marker}\\n\\tpager = ${marker} pager\\n"
harmless = b"[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n"
harmless += b"#" * (len(evil) - len(harmless) - 1) + b"\\n"
with open(config, "wb") as f: f.write(harmless)
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0)
if fd < 0 or libc.inotify_add_watch(fd, config.encode(), 0x10) < 0: sys.exit("inotify: %d" % ctypes.get_errno())
f = open(config, "r+b")
m = mmap.mmap(f.fileno(), len(evil))
if "${hold}" == "mapped": f.close()   # the mapping alone keeps the file open
def write(text):
    if "${hold}" == "open":
        with mmap.mmap(f.fileno(), len(evil)) as brief: brief[:] = text
    elif "${hold}" == "through a passing link":
        os.link(config, "p/x")
        with open("p/x", "r+b") as g, mmap.mmap(g.fileno(), len(evil)) as brief: brief[:] = text
        os.unlink("p/x")
    else: m[:] = text
if "${hold}" in ("open", "through a passing link"): m.close()
if "${hold}" == "through a passing link": f.close()
time.sleep(1.5)                 # the guard's judgement of the write above, event-driven, is over
while select.select([fd], [], [], 0)[0]: os.read(fd, 65536)
print("FLIPPING", flush=True)
n = 0
while True:
    os.read(fd, 65536)          # a read of the config has ended (the guard's, every 250 ms)
    write(evil)                 # no event: a write through a mapping
    n += 1
    print("EVIL %d" % n, flush=True)
    time.sleep(0.15)
    write(harmless)
    while select.select([fd], [], [], 0)[0]: os.read(fd, 65536)   # reads during the window were not the guard's
`;

describeSandbox(
  "git guard: a config flipped through a shared mapping between the guard's reads",
  () => {
    let scratch = "";
    let home = "";
    beforeAll(() => {
      scratch = makeTempDir("garuda-mapped-config-", { real: true });
      home = join(scratch, "home");
      mkdirSync(home);
    }, 60_000);
    afterAll(() => rm(scratch, { recursive: true, force: true }), 60_000);

    /** A project where a job made p/.git and flips its config (held as `hold`); `use` once it flips. */
    async function flipping(
      hold: Hold,
      use: (job: RunningProcess, root: string, marker: MarkerProgram) => Promise<void>,
    ) {
      const root = join(scratch, hold.replaceAll(" ", "-"));
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
      const marker = markerProgram(join(scratch, `bin-${hold.replaceAll(" ", "-")}`));
      try {
        const job = await attacker.start({
          command: [
            'git init -q "$TMPDIR/r" && mkdir p && cp -r "$TMPDIR/r/.git" p/.git',
            `cat > "$TMPDIR/flip.py" <<'PY'\n${flipper(marker.path, hold)}\nPY`,
            'exec /usr/bin/python3 "$TMPDIR/flip.py"',
          ].join("\n"),
          cwd: root,
          sandbox: attacker.spec(),
        });
        await eventually(() => job.output().includes("FLIPPING"), 30_000);
        await use(job, root, marker);
      } finally {
        await attacker.shutdown();
        await host.close();
      }
    }
    const evils = (job: RunningProcess) => (job.output().match(/EVIL \d+/g) ?? []).length;

    // "open": the guard gives a file held open (not mapped) a second (a copy holds files so for a
    // moment), so the job's flipping begins after that; what it can do within it is in docs/safety.md.
    for (const hold of ["open and mapped", "mapped", "open"] as const) {
      test(`the user's git never runs what the flipped config names: the file ${hold}`, async () => {
        await flipping(hold, async (job, root, marker) => {
          let hits: string[] = [];
          // Ten probes, each right after the job wrote the evil text (or after a second without one).
          for (let i = 0; i < 10 && hits.length === 0; i++) {
            const seen = evils(job);
            await eventually(() => evils(job) > seen, 1_000).catch(() => undefined);
            hits = probe(marker, home, [join(root, "p")]);
          }
          console.log(`${hold}: evil writes ${evils(job)} | moved: ${job.output().includes("made p/.git")}`);
          expect(hits).toEqual([]);
          expect(job.output()).toContain("holds a file of its git folder open for writing or mapped");
        });
      }, 120_000);
    }

    // Nothing held at any look, and no event in the git folder: only the looks' timing, drawn at
    // random, finds it. The job keeps the evil text 150 ms after each look it sees, so a look
    // finds it about one time in four (with looks every 250 ms exactly, never: the negative
    // control). Until then the user's git there would run it: this is the chance docs/safety.md names.
    test("a config flipped through a passing hard link is found by a look the job cannot foresee", async () => {
      await flipping("through a passing link", async (job, root, marker) => {
        await eventually(() => job.output().includes("made p/.git"), 15_000).catch(() => undefined);
        console.log(`passing link: evil writes ${evils(job)}`);
        expect(job.output()).toContain("made p/.git, a git repository; its config sets core.fsmonitor");
        expect(probe(marker, home, [join(root, "p")])).toEqual([]);
      });
    }, 120_000);
  },
  "bwrap",
);
