// Attacks on the undo store's snapshots by changed path (undoChangeScope.ts), made as a sandboxed
// command would make them, on the session's real executor, sandbox and git guard: each turn's
// change must still be undone, and nothing the user did lost.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeSandbox } from "../support/sandboxSupport.ts";
import { sandboxed, type UndoSession, undoSession, wholeTree } from "../support/undoSession.ts";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

type Session = UndoSession;

async function session(setUp?: (root: string) => void): Promise<Session> {
  const s = await undoSession("garuda-undo-attack-", setUp);
  cleanups.push(() => s.close());
  return s;
}

/** The names in `dir` that are not UTF-8. */
const notUtf8In = (dir: string) =>
  readdirSync(dir, { encoding: "buffer" }).filter((name) => !Buffer.from(name.toString()).equals(name));

const sh = sandboxed;

/** One turn that runs `command` in the sandbox. */
async function turn(s: Session, command: string): Promise<void> {
  await s.store.beginTurn();
  await s.store.beforeCommand();
  const result = await sh(s, command);
  // (The guard may add a note: a storm it stopped watching.)
  expect({ exit: result.exitCode, out: result.output.replace(/^\[Garuda: .*\]\n/gm, "") }).toEqual({
    exit: 0,
    out: "",
  });
  await s.store.endTurn();
}

describeSandbox(
  "undo by changed path, attacked",
  () => {
    test("a write through a hard link kept in a folder whose name is not UTF-8 is undone", async () => {
      const s = await session();
      // The git guard moves such a folder aside within milliseconds (no path reaches into it to watch it): the link
      // is opened before the folder gets that name, and written through once it is gone, which raises no event.
      // (.git would hide it as well, but is a mount of its own in the sandbox: a link there is refused.)
      const link = "mkdir h && ln notes.md h/keep && exec 3>>h/keep && mv h $'h\\xff'";
      await turn(s, `echo gone > src/a.c && ${link} && sleep 0.5 && echo evil >&3`);
      expect(notUtf8In(s.root)).toEqual([]);
      expect(readFileSync(join(s.root, "notes.md"), "utf8")).toBe("mine\nevil\n");
      expect(await s.store.undoLastTurn()).toEqual({ restored: ["notes.md", "src/a.c"], removed: [], notes: [] });
      expect(readFileSync(join(s.root, "notes.md"), "utf8")).toBe("mine\n");
    });

    test("a turn that makes a file whose name is not UTF-8 is still undone, that file too", async () => {
      const s = await session();
      await turn(s, "echo gone > src/a.c && echo x > $'src/caf\\xe9.c'");
      const outcome = await s.store.undoLastTurn();
      expect(outcome).toEqual({ restored: ["src/a.c"], removed: ["src/caf\udce9.c"], notes: [] });
      expect(readFileSync(join(s.root, "src/a.c"), "utf8")).toBe("int a;\n");
      expect(readdirSync(join(s.root, "src"))).toEqual(["a.c"]);
    });

    test("a command that makes a tracked file a FIFO leaves undo on, and its turn is undone", async () => {
      const s = await session();
      await turn(s, "echo gone > src/a.c && rm notes.md && mkfifo notes.md");
      expect(s.store.status).toEqual({ enabled: true });
      expect(await s.store.undoLastTurn()).toEqual({ restored: ["notes.md", "src/a.c"], removed: [], notes: [] });
      expect(readFileSync(join(s.root, "notes.md"), "utf8")).toBe("mine\n");
      expect(readFileSync(join(s.root, "src/a.c"), "utf8")).toBe("int a;\n");
    });

    test("a file written in a folder swapped with another (renameat2 RENAME_EXCHANGE) is undone", async () => {
      const s = await session((root) => {
        mkdirSync(join(root, "a"));
        mkdirSync(join(root, "b"));
        writeFileSync(join(root, "a/f"), "one\n");
        writeFileSync(join(root, "b/g"), "two\n");
      });
      await turn(s, `perl -e 'my ($x, $y) = ("a", "b"); syscall(316, -100, $x, -100, $y, 2) == 0 or die "$!"'`);
      await turn(s, "echo evil > b/f");
      expect(await s.store.undoLastTurn()).toEqual({ restored: ["b/f"], removed: [], notes: [] });
      expect(readFileSync(join(s.root, "b/f"), "utf8")).toBe("one\n");
    });

    test("a file written in a folder renamed over an empty one is undone", async () => {
      const s = await session((root) => {
        mkdirSync(join(root, "a"));
        mkdirSync(join(root, "b"));
        writeFileSync(join(root, "a/f"), "one\n");
      });
      await turn(s, "mv -T a b");
      await turn(s, "echo evil > b/f");
      expect(await s.store.undoLastTurn()).toEqual({ restored: ["b/f"], removed: [], notes: [] });
      expect(readFileSync(join(s.root, "b/f"), "utf8")).toBe("one\n");
    });

    test("a tracked file whose name is not UTF-8, changed by a command, is undone", async () => {
      const name = Buffer.from("caf\xe9.txt", "latin1");
      const s = await session((root) => writeFileSync(Buffer.concat([Buffer.from(`${root}/`), name]), "old\n"));
      await turn(s, "echo x > src/a.c");
      await turn(s, "echo evil > $'caf\\xe9.txt'");
      const outcome = await s.store.undoLastTurn();
      expect(outcome.notes).toEqual([]);
      expect(readFileSync(Buffer.concat([Buffer.from(`${s.root}/`), name]), "utf8")).toBe("old\n");
    });

    test("a folder whose name is not UTF-8 that a command makes is moved aside, and its turn undone", async () => {
      const s = await session();
      await turn(s, "echo gone > src/a.c && mkdir $'d\\xff' && { echo one > $'d\\xff/f'; } 2>&-; true");
      expect(notUtf8In(s.root)).toEqual([]); // the git guard cannot watch inside it (gitGuard/unnamedFolder)
      const outcome = await s.store.undoLastTurn();
      expect(outcome).toEqual({ restored: ["src/a.c"], removed: [], notes: [] });
      expect(readFileSync(join(s.root, "src/a.c"), "utf8")).toBe("int a;\n");
    });

    test("an edit in a folder renamed just before a question is in the next answer", async () => {
      // A large folder: the guard's walk of it under its new name takes a while.
      const s = await session((root) => {
        for (let i = 0; i < 100; i++)
          for (let j = 0; j < 100; j++) mkdirSync(join(root, `big/d${i}/e${j}`), { recursive: true });
        writeFileSync(join(root, "big/d7/x"), "orig\n");
      });
      const changes = s.executor.changesSince?.bind(s.executor);
      const start = await changes?.(s.root, undefined);
      renameSync(join(s.root, "big"), join(s.root, "big2"));
      const renamed = await changes?.(s.root, start?.token);
      // "all" (the guard took over its 1 s to walk it, on a loaded machine) is safe too: the whole tree is read.
      if (renamed?.paths !== "all") expect(renamed?.paths).toContain(join(s.root, "big2"));
      writeFileSync(join(s.root, "big2/d7/x"), "the user's edit\n");
      const edited = await changes?.(s.root, renamed?.token);
      const file = join(s.root, "big2/d7/x");
      const paths = edited?.paths === "all" ? ["all"] : (edited?.paths ?? []);
      expect(paths.some((path) => path === "all" || path === file || file.startsWith(`${path}/`))).toBe(true);
    }, 30_000);

    test("a deep tree made at once, then a file deep in it written in the next turn, is undone", async () => {
      const s = await session();
      await turn(s, "mkdir -p $(printf 't/%d/x/y/z ' $(seq 1 40)) && echo one > t/15/x/y/z/f");
      const before = s.scripts.length;
      await turn(s, "echo two > t/15/x/y/z/f && echo new > t/39/x/y/z/g");
      // Read by path: the log vouched for the tree walked while it was made.
      expect(s.scripts.slice(before).filter(wholeTree)).toEqual([]);
      expect(await s.store.undoLastTurn()).toEqual({
        restored: ["t/15/x/y/z/f"],
        removed: ["t/39/x/y/z/g"],
        notes: [],
      });
      expect(readFileSync(join(s.root, "t/15/x/y/z/f"), "utf8")).toBe("one\n");
    });

    test("names with a newline, a folder swapped for a link to /etc: undone, nothing outside read", async () => {
      const s = await session();
      await turn(s, "echo x > $'new\\nline' && rm -r src && ln -s /etc src");
      expect(await s.store.undoLastTurn()).toEqual({
        restored: ["src/a.c"],
        removed: ["new\nline", "src"],
        notes: [],
      });
      expect(readFileSync(join(s.root, "src/a.c"), "utf8")).toBe("int a;\n");
    });

    test("the user's editor saves between turns (a temporary file renamed over, a backup): never undone", async () => {
      const s = await session();
      await turn(s, "echo turn > src/a.c");
      // Between turns: an atomic save of notes.md, and a backup-and-write save of src/a.c (vim's).
      writeFileSync(join(s.root, ".notes.md.tmp"), "the user's notes\n");
      renameSync(join(s.root, ".notes.md.tmp"), join(s.root, "notes.md"));
      renameSync(join(s.root, "src/a.c"), join(s.root, "src/a.c~"));
      writeFileSync(join(s.root, "src/a.c"), "the user's a.c\n");
      await turn(s, "echo more >> notes.md");
      const outcome = await s.store.undoLastTurn();
      expect(outcome).toEqual({ restored: ["notes.md"], removed: [], notes: [] });
      expect(readFileSync(join(s.root, "notes.md"), "utf8")).toBe("the user's notes\n");
      // Undoing the first turn too leaves the user's a.c as they saved it.
      const first = await s.store.undoLastTurn();
      expect(first.restored).toEqual([]);
      expect(readFileSync(join(s.root, "src/a.c"), "utf8")).toBe("the user's a.c\n");
    });
  },
  "bwrap",
);
