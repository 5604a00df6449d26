// Session folders (src/sandbox/sessionFolders.ts) with real processes: a private base, and when the
// usual one is not this user's own (planted by another uid, open to others, a link), a fresh private
// one with a notice; the sweep removes a SIGKILLed process's folder and a folder whose pid
// now belongs to another process (same pid, other start time), and keeps a live process's. In the
// real bubblewrap sandbox, two sessions cannot see each other's tmp, also where the base would be
// visible (a writePath over the temp folder).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from "node:fs";
import { basename, join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import {
  createSessionFolder,
  deadSessionFolders,
  ensureSessionFolderBase,
  processStart,
  removeProcessFolders,
  sessionFolderBase,
  sweepSessionFolders,
} from "../../src/sandbox/sessionFolders.ts";
import type { ProcessExecutor, SandboxSpec } from "../../src/sandbox/types.ts";
import { makeTempDir, tempDir } from "../support/tempDir.ts";
import { SELF_COMMAND, describeSandbox, machineSandbox } from "../support/sandboxSupport.ts";

const MODULE = join(import.meta.dir, "../../src/sandbox/sessionFolders.ts");

/** A real process that makes a session folder under `base`, writes a file in its tmp and waits. */
async function holder(base: string): Promise<{ proc: ReturnType<typeof Bun.spawn>; dir: string }> {
  const script = `const { createSessionFolder } = await import(${JSON.stringify(MODULE)});
const folder = await createSessionFolder(${JSON.stringify(base)});
await Bun.write(folder.tmp + "/data", new Uint8Array(4 * 1024 * 1024).fill(7));
console.log(folder.dir);
await Bun.sleep(600_000);`;
  const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the holder process ended early");
    text += new TextDecoder().decode(value);
  }
  return { proc, dir: text.trim() };
}

describe("session folders", () => {
  test(
    "the base is the temp folder's garuda-<uid>, private; each folder is named by " +
      "pid and start time, with a tmp inside",
    async () => {
      using temp = tempDir();
      const base = sessionFolderBase({ TMPDIR: temp.path });
      expect(base).toBe(join(realpathSync(temp.path), `garuda-${process.getuid?.() ?? 0}`));
      const folder = await createSessionFolder(base);
      expect(statSync(base).mode & 0o777).toBe(0o700);
      expect(statSync(folder.dir).mode & 0o777).toBe(0o700);
      expect(basename(folder.dir)).toMatch(
        new RegExp(`^${process.pid}-${await processStart(process.pid)}-\\d+-[0-9a-f]{8}$`),
      );
      expect(folder.tmp).toBe(join(folder.dir, "tmp"));
      await folder.remove();
      expect(existsSync(folder.dir)).toBe(false);
    },
  );

  test(
    "a base another user planted, one others may write, or a link is not used: a " +
      "fresh private one is, with a notice (negative control: a private one is used " +
      "as it is)",
    async () => {
      using temp = tempDir();
      const base = join(temp.path, "garuda-x");
      const me = process.getuid?.() ?? 0;
      const planted = (what: () => void, problem: RegExp) => {
        what();
        const chosen = ensureSessionFolderBase(base);
        expect(chosen.dir).not.toBe(base);
        expect(basename(chosen.dir)).toMatch(/^garuda-x-[A-Za-z0-9]{6}$/);
        const stat = lstatSync(chosen.dir);
        expect(stat.isDirectory() && stat.uid === me && (stat.mode & 0o777) === 0o700).toBe(true);
        expect(chosen.notice).toMatch(problem);
        expect(chosen.notice).toContain(`so this session keeps its own folders in ${chosen.dir} instead`);
        return chosen.dir;
      };
      // Another local user (uid 65534) made it first, private to them: it would block every session.
      const other = planted(() => {
        mkdirSync(base, { mode: 0o700 });
        chownSync(base, 65534, 65534);
      }, /is not Garuda's private folder \(it belongs to another user \(uid 65534\)\)/);
      const folder = await createSessionFolder(other, true);
      expect(existsSync(folder.tmp)).toBe(true);
      expect(readdirSync(base)).toEqual([]);
      // The private base goes with its last folder.
      await folder.remove();
      expect(existsSync(other)).toBe(false);
      // Open to everyone (mode 0777), though it is this user's own.
      rmSync(base, { recursive: true });
      planted(() => {
        mkdirSync(base);
        chmodSync(base, 0o777);
      }, /others may read or write it \(mode 777\)/);
      // A link to a folder elsewhere.
      rmSync(base, { recursive: true });
      mkdirSync(join(temp.path, "elsewhere"));
      planted(() => symlinkSync(join(temp.path, "elsewhere"), base), /it is a symbolic link/);
      // Negative control: this user's private folder is the base, with no notice.
      rmSync(base);
      mkdirSync(base, { mode: 0o700 });
      expect(ensureSessionFolderBase(base)).toEqual({ dir: base });
      // A base handed to createSessionFolder that is not private is refused, never used.
      chownSync(base, 65534, 65534);
      await expect(createSessionFolder(base)).rejects.toThrow(/it belongs to another user \(uid 65534\)/);
    },
  );

  test(
    "private bases made in place of the usual one: the sweep removes dead " +
      "processes' folders in them and long-empty ones, the exit this process's; " +
      "others' stay",
    async () => {
      using temp = tempDir();
      const base = join(temp.path, "garuda-x");
      mkdirSync(base, { mode: 0o700 });
      chownSync(base, 65534, 65534);
      const own = ensureSessionFolderBase(base).dir;
      const live = await createSessionFolder(own, true);
      const namespace = basename(live.dir).split("-")[2];
      // A folder of this very pid but another start time, in another private base: its process is gone.
      const other = ensureSessionFolderBase(base).dir;
      const dead = join(other, `${process.pid}-${Number(await processStart(process.pid)) + 1}-${namespace}-0badf00d`);
      mkdirSync(join(dead, "tmp"), { recursive: true });
      // An empty private base: left while new (its session is about to make its folder), removed when old.
      const fresh = ensureSessionFolderBase(base).dir;
      const stale = ensureSessionFolderBase(base).dir;
      const old = new Date(Date.now() - 3_600_000);
      utimesSync(stale, old, old);
      // Another user's folder under such a name is not this user's to remove.
      const foreign = join(temp.path, "garuda-x-XyZ789");
      mkdirSync(join(foreign, `1-1-${namespace}-0badf00d`), { recursive: true });
      chownSync(foreign, 65534, 65534);
      expect((await sweepSessionFolders(base)).sort()).toEqual([dead, stale].sort());
      expect(existsSync(live.tmp) && existsSync(other) && existsSync(fresh) && existsSync(foreign)).toBe(true);
      // At exit: this process's folders go, and a private base they leave empty.
      removeProcessFolders(base);
      expect(existsSync(own)).toBe(false);
      expect(readdirSync(temp.path).sort()).toEqual(
        [basename(base), basename(other), basename(fresh), "garuda-x-XyZ789"].sort(),
      );
    },
  );

  test("the sweep removes a SIGKILLed process's folder and a reused pid's, and keeps " +
    "live processes' (its own too) and other namespaces'", async () => {
    using temp = tempDir();
    const base = join(temp.path, "base");
    const own = await createSessionFolder(base);
    const live = await holder(base);
    const killed = await holder(base);
    const namespace = basename(own.dir).split("-")[2];
    // A folder of this very pid but another start time: the pid was reused.
    const reused = join(base, `${process.pid}-${Number(await processStart(process.pid)) + 1}-${namespace}-0badf00d`);
    mkdirSync(join(reused, "tmp"), { recursive: true });
    // Not a session folder, or one of another PID namespace (a container sharing the temp folder): never touched.
    mkdirSync(join(base, "notes"));
    const foreign = `${process.pid}-1-${Number(namespace) + 1}-0badf00d`;
    mkdirSync(join(base, foreign));
    expect(await deadSessionFolders(base)).toEqual([reused]);

    killed.proc.kill("SIGKILL");
    await killed.proc.exited;
    expect(existsSync(killed.dir)).toBe(true);
    const swept = await sweepSessionFolders(base);
    expect(swept.sort()).toEqual([killed.dir, reused].sort());
    expect(readdirSync(base).sort()).toEqual([basename(own.dir), basename(live.dir), "notes", foreign].sort());
    expect(readFileSync(join(live.dir, "tmp", "data")).length).toBe(4 * 1024 * 1024);

    live.proc.kill("SIGKILL");
    await live.proc.exited;
    expect(await sweepSessionFolders(base)).toEqual([live.dir]);
    expect(readdirSync(base).sort()).toEqual([basename(own.dir), "notes", foreign].sort());
  }, 30_000);
});

let scratch: string;
let executors: ProcessExecutor[] = [];

describeSandbox(
  "two sessions in bubblewrap",
  () => {
    beforeAll(() => {
      scratch = makeTempDir("garuda-apart-", { real: true });
    });
    afterAll(async () => {
      for (const executor of executors) await executor.shutdown();
      executors = [];
      rmSync(scratch, { recursive: true, force: true });
    });

    async function session(name: string, base: string) {
      const root = join(scratch, name);
      mkdirSync(root, { recursive: true });
      const folder = await createSessionFolder(base);
      const executor = await createExecutor({
        root,
        home: join(scratch, "home"),
        tmpDir: folder.tmp,
        selfCommand: SELF_COMMAND,
        probe: machineSandbox,
      });
      executors.push(executor);
      const spec = (extra: Partial<SandboxSpec> = {}): SandboxSpec => ({
        ...executor.spec(),
        sessionsDir: base,
        ...extra,
      });
      return {
        root,
        folder,
        executor,
        spec,
        run: (command: string, s = spec()) => executor.run({ command, cwd: root, sandbox: s }),
      };
    }

    test(
      "neither sees the other's tmp: not by default, nor through a writePath over the " +
        "temp folder (negative control: without the hiding, it reads and plants)",
      async () => {
        const base = join(scratch, "temp", "garuda-sessions");
        mkdirSync(join(scratch, "home"), { recursive: true });
        mkdirSync(join(scratch, "temp"));
        const a = await session("a", base);
        const b = await session("b", base);
        expect((await a.run('echo secret-of-a > "$TMPDIR/token" && cat /tmp/token')).output).toBe("secret-of-a\n");
        const other = join(a.folder.tmp, "token");

        // By default: the host's temp folders are not in b's view at all.
        const plain = await b.run(`cat ${other}`);
        expect(plain.output).toContain("No such file or directory");
        expect((await b.run(`ls -A ${base}`)).output.split("\n")).not.toContain(basename(a.folder.dir));

        // A writePath over the whole temp folder: b's own tmp works, a's is not there, nothing lands in it.
        const wide = b.spec({ writePaths: [join(scratch, "temp")] });
        const planted = join(a.folder.tmp, "planted");
        const attempt = await b.run(
          `echo mine > "$TMPDIR/own" && cat "$TMPDIR/own"; cat ${other}; echo planted > ${planted}`,
          wide,
        );
        expect(attempt.output).toContain("mine\n");
        expect(attempt.output).not.toContain("secret-of-a");
        expect((await b.run(`ls -A ${base}`, wide)).output.split("\n")).not.toContain(basename(a.folder.dir));
        expect(readFileSync(join(b.folder.tmp, "own"), "utf8")).toBe("mine\n");
        expect(readFileSync(other, "utf8")).toBe("secret-of-a\n");
        expect(readdirSync(a.folder.tmp)).not.toContain("planted");

        // Negative control: the same writePath without the hiding lets b read and plant.
        const unhidden = b.spec({ writePaths: [join(scratch, "temp")], sessionsDir: undefined });
        const leak = await b.run(`cat ${other} && echo planted > ${join(a.folder.tmp, "planted")}`, unhidden);
        expect(leak.output).toContain("secret-of-a");
        expect(readFileSync(join(a.folder.tmp, "planted"), "utf8")).toBe("planted\n");
      },
    );
  },
  "bwrap",
);
