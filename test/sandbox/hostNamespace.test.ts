// Garuda's own host commands (ExecRequest.internal: undo's git) on Linux run in a PID namespace of
// their own (src/sandbox/hostNamespace.ts), not under a Bun keeper, with the keeper's guarantee:
// what they detach ends when they exit, on cancel, and when the agent is SIGKILLed. They see the
// host's files and write them as the user. Negative controls: without the namespace and without a
// keeper the daemons stay; the user's host commands still get their keeper.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import { hostHiddenPaths, hostPidNamespaceArgv } from "../../src/sandbox/hostNamespace.ts";
import { KEEPER_COMMAND } from "../../src/sandbox/keeperName.ts";
import { signalProcess } from "../../src/sandbox/processTree.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import { tempDir } from "../support/tempDir.ts";
import {
  SELF_COMMAND,
  describeSandbox,
  detached,
  detachingCommand,
  eventually,
  machineSandbox,
  marker,
} from "../support/sandboxSupport.ts";

const root = tempDir("garuda-root-");
const home = tempDir("garuda-home-");
const executors: ProcessExecutor[] = [];
const leftovers: number[] = [];

async function executor(options: { keeper?: boolean } = {}): Promise<ProcessExecutor> {
  const created = await createExecutor({
    root: root.path,
    home: home.path,
    selfCommand: SELF_COMMAND,
    probe: machineSandbox,
    ...(options.keeper === false && { keeperCommand: false }),
  });
  executors.push(created);
  return created;
}

/** The keeper's command line, compiled (its hidden command) or from source (keeperMain.ts). */
const KEEPER = new RegExp(`${KEEPER_COMMAND}|keeperMain\\.ts`);

const cleanUp = (tag: string) => {
  for (const pid of detached(tag)) signalProcess(pid, "SIGKILL");
};

afterAll(async () => {
  for (const e of executors) await e.shutdown();
  for (const pid of leftovers) signalProcess(pid, "SIGKILL");
  root[Symbol.dispose]();
  home[Symbol.dispose]();
});

describe("hostPidNamespaceArgv", () => {
  test("the host's / whole (devices too), its own /proc and PID namespace, bwrap dying with Garuda", () => {
    expect(hostPidNamespaceArgv("/usr/bin/bwrap", "/p", ["/bin/bash", "-c", "git status"])).toMatchInlineSnapshot(`
      [
        "/usr/bin/bwrap",
        "--dev-bind",
        "/",
        "/",
        "--proc",
        "/proc",
        "--unshare-pid",
        "--die-with-parent",
        "--chdir",
        "/p",
        "--",
        "/bin/bash",
        "-c",
        "git status",
      ]
    `);
  });
});

describe("hostHiddenPaths", () => {
  test("the sandbox's hidden places that exist, but those inside one and those holding or inside a kept folder", () => {
    const kinds: Record<string, "dir" | "file"> = {
      "/h/.ssh": "dir",
      "/h/.ssh/id_rsa": "file",
      "/h/.netrc": "file",
      "/h/.garuda/snapshots": "dir",
      "/h/.config/hub": "dir",
    };
    const hidden = hostHiddenPaths(
      ["/h/.aws", "/h/.config/hub", "/h/.garuda/snapshots", "/h/.netrc", "/h/.ssh", "/h/.ssh/id_rsa"],
      ["/h/.config/hub/project", "/h/.garuda/snapshots/0123"],
      (path) => kinds[path] ?? "missing",
    );
    expect(hidden).toEqual([
      { path: "/h/.netrc", dir: false },
      { path: "/h/.ssh", dir: true },
    ]);
    expect(hostPidNamespaceArgv("/b", "/p", ["sh"], hidden).slice(1, 14)).toEqual([
      ...["--dev-bind", "/", "/", "--proc", "/proc"],
      ...["--ro-bind", "/dev/null", "/h/.netrc", "--tmpfs", "/h/.ssh", "--remount-ro", "/h/.ssh"],
      "--unshare-pid",
    ]);
  });
});

describeSandbox(
  "Garuda's own host commands in a PID namespace",
  () => {
    test(
      "they run in a namespace of their own, not under a keeper, and write the host's " + "files as the user",
      async () => {
        const e = await executor();
        const result = await e.run({
          command: `echo $$; tr '\\0' ' ' </proc/$PPID/cmdline; echo; echo hi >made.txt; cat /dev/null`,
          cwd: root.path,
          sandbox: null,
          internal: true,
        });
        expect(result.exitCode).toBe(0);
        const [pid, parent] = result.output.split("\n");
        expect(Number(pid)).toBeLessThan(10); // its own PID namespace
        expect(parent).not.toMatch(KEEPER);
        expect(readFileSync(join(root.path, "made.txt"), "utf8")).toBe("hi\n");
        expect(statSync(join(root.path, "made.txt")).uid).toBe(process.getuid?.() as number);
        // The user's host command keeps its keeper.
        const user = await e.run({ command: `tr '\\0' ' ' </proc/$PPID/cmdline`, cwd: root.path, sandbox: null });
        expect(user.output).toMatch(KEEPER);
      },
    );

    test("they cannot read what the sandbox hides, not even through a link a command made in the project", async () => {
      // The undo store's git opens a file after its lstat: a sandboxed background process that
      // swaps the file for a link in between would have a secret hashed into a snapshot.
      mkdirSync(join(home.path, ".ssh"), { recursive: true });
      writeFileSync(join(home.path, ".ssh", "id_rsa"), "PRIVATE KEY\n");
      symlinkSync(join(home.path, ".ssh", "id_rsa"), join(root.path, "swapped"));
      const store = join(home.path, ".garuda", "snapshots", "0123456789abcdef");
      mkdirSync(store, { recursive: true });
      const e = await executor();
      const result = await e.run({
        command: `cat swapped ${join(home.path, ".ssh", "id_rsa")}; echo kept >${join(store, "written")}; echo done`,
        cwd: root.path,
        sandbox: null,
        internal: true,
      });
      expect(result.output).not.toContain("PRIVATE KEY");
      expect(result.output).toContain("done");
      // The undo store itself stays readable and writable.
      expect(readFileSync(join(store, "written"), "utf8")).toBe("kept\n");
      // The user's own host commands are not Garuda's: they read it.
      const user = await e.run({ command: "cat swapped", cwd: root.path, sandbox: null });
      expect(user.output).toBe("PRIVATE KEY\n");
    });

    test(
      "what one detaches ends when it exits (negative control: no namespace and no " + "keeper, the daemons stay)",
      async () => {
        const tag = marker();
        const result = await (await executor({ keeper: false })).run({
          command: detachingCommand(tag, "sleep 0.2; echo done"),
          cwd: root.path,
          sandbox: null,
          internal: true,
        });
        expect(result.output).toBe("done\n");
        await eventually(() => detached(tag).length === 0);

        const control = marker();
        try {
          await (await executor({ keeper: false })).run({
            command: detachingCommand(control, "sleep 0.2; echo done"),
            cwd: root.path,
            sandbox: null,
          });
          await Bun.sleep(300);
          expect(detached(control)).toHaveLength(2);
        } finally {
          cleanUp(control);
        }
      },
    );

    test("cancel ends the command and what it detached", async () => {
      const tag = marker();
      const controller = new AbortController();
      const pending = (await executor({ keeper: false })).run({
        command: detachingCommand(tag),
        cwd: root.path,
        sandbox: null,
        internal: true,
        signal: controller.signal,
      });
      await eventually(() => detached(tag).length === 3, 10_000);
      controller.abort();
      expect((await pending).killed).toBe(true);
      await eventually(() => detached(tag).length === 0);
    });

    test("nothing outlives a SIGKILLed agent", async () => {
      const tag = marker();
      const agent =
        `
        import { createExecutor } from ` +
        `${JSON.stringify(join(import.meta.dir, "../../src/sandbox/executor.ts"))};
    ` +
        `    const e = await createExecutor({ root: ${JSON.stringify(root.path)}, home: ` +
        `${JSON.stringify(home.path)}, selfCommand: ${JSON.stringify(SELF_COMMAND)}, ` +
        `keeperCommand: false });
        void e.run({ command: ` +
        `${JSON.stringify(detachingCommand(tag))}, cwd: ${JSON.stringify(root.path)}, ` +
        `sandbox: null, internal: true });
        await new Promise(() => {});
      `;
      const proc = Bun.spawn([process.execPath, "-e", agent], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        stdout: "ignore",
        stderr: "inherit",
      });
      leftovers.push(proc.pid);
      try {
        await eventually(() => detached(tag).length === 3, 15_000);
        proc.kill("SIGKILL");
        await proc.exited;
        await eventually(() => detached(tag).length === 0, 5_000);
      } finally {
        cleanUp(tag);
      }
    }, 30_000);
  },
  "bwrap",
);
