// The process keeper (src/sandbox/keeper.ts): a host command's daemons, detached with setsid and
// a double fork, end with the command, with a cancel, with a stop, with shutdown, and with the
// agent itself when it is killed with SIGKILL (a sandboxed command too: bwrap dies with its
// parent). Real processes, each checked gone by pid in /proc. Negative controls: the same
// executor without a keeper (keeperCommand: false) leaves the daemons running.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import { keeperCommandFor, keeperLaunch } from "../../src/sandbox/keeper.ts";
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
const unavailable = {
  availability: { available: false as const, reason: "no sandbox in this test", fix: "none needed" },
};
const executors: ProcessExecutor[] = [];
const leftovers: number[] = [];

async function executor(
  options: { keeper?: boolean; sandbox?: boolean; killGraceMs?: number } = {},
): Promise<ProcessExecutor> {
  const created = await createExecutor({
    root: root.path,
    home: home.path,
    selfCommand: SELF_COMMAND,
    probe: options.sandbox ? machineSandbox : unavailable,
    ...(options.keeper === false && { keeperCommand: false }),
    ...(options.killGraceMs !== undefined && { killGraceMs: options.killGraceMs }),
  });
  executors.push(created);
  return created;
}

/** Kills what a negative control left running. */
function cleanUp(tag: string): void {
  for (const pid of detached(tag)) signalProcess(pid, "SIGKILL");
}

afterAll(async () => {
  for (const e of executors) await e.shutdown();
  for (const pid of leftovers) signalProcess(pid, "SIGKILL");
  root[Symbol.dispose]();
  home[Symbol.dispose]();
});

describe("keeper command line", () => {
  test("the compiled binary runs its hidden command; from source, keeperMain.ts beside the bridge's entry", () => {
    expect(keeperCommandFor(["/usr/local/bin/garuda", "__sandbox-bridge"])).toEqual([
      "/usr/local/bin/garuda",
      KEEPER_COMMAND,
    ]);
    expect(keeperCommandFor(["/usr/bin/bun", "/repo/src/sandbox/bridgeMain.ts"])).toEqual([
      "/usr/bin/bun",
      "/repo/src/sandbox/keeperMain.ts",
    ]);
    expect(() => keeperCommandFor([])).toThrow(/selfCommand/);
  });

  test("the command's environment is one variable of the keeper's: Bun's start-up sees none of it", () => {
    const launch = keeperLaunch(["/g", KEEPER_COMMAND], {
      parent: 7,
      graceMs: 2000,
      cwd: "/p",
      argv: ["/bin/bash", "-c", "true"],
      env: { BUN_OPTIONS: "--print 1", PATH: "/bin" },
    });
    expect(launch.argv).toEqual(["/g", KEEPER_COMMAND, "7", "2000", "/p", "--", "/bin/bash", "-c", "true"]);
    expect(Object.keys(launch.env)).toEqual(["GARUDA_KEEPER_ENV"]);
    expect(JSON.parse(launch.env.GARUDA_KEEPER_ENV as string)).toEqual({ BUN_OPTIONS: "--print 1", PATH: "/bin" });
  });

  test(
    "bad arguments: a usage line and exit 2; a parent that is not the keeper's: the " + "command never runs",
    async () => {
      const keeper = keeperCommandFor(SELF_COMMAND);
      const bad = Bun.spawnSync([...keeper, "x"], { stderr: "pipe", env: {} });
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr.toString()).toContain("usage:");
      using dir = tempDir();
      const orphan = Bun.spawnSync([...keeper, "1", "100", dir.path, "--", "/bin/sh", "-c", "touch ran"], {
        stderr: "pipe",
        env: {},
      });
      expect(orphan.exitCode).toBe(1);
      expect(await Bun.file(join(dir.path, "ran")).exists()).toBe(false);
    },
  );
});

describe.skipIf(process.platform !== "linux")("a host command under its keeper", () => {
  test("exit code, signal, output, folder and environment are the command's own", async () => {
    const e = await executor();
    const result = await e.run({
      command: "pwd; echo $FROM_REQUEST; env | grep -c GARUDA_KEEPER; exit 4",
      cwd: root.path,
      sandbox: null,
      env: { FROM_REQUEST: "yes" },
    });
    expect(result.exitCode).toBe(4);
    expect(result.output).toBe(`${root.path}\nyes\n0\n`);
    const killed = await e.run({ command: "kill -TERM $$", cwd: root.path, sandbox: null });
    expect(killed).toMatchObject({ exitCode: null, signal: "SIGTERM" });
  });

  test("the daemons a command detached end when it exits (negative control: without a keeper they stay)", async () => {
    const tag = marker();
    const result = await (await executor()).run({
      command: detachingCommand(tag, "sleep 0.3; echo done"),
      cwd: root.path,
      sandbox: null,
    });
    expect(result.output).toBe("done\n");
    await eventually(() => detached(tag).length === 0);

    const control = marker();
    try {
      await (await executor({ keeper: false })).run({
        command: detachingCommand(control, "sleep 0.3; echo done"),
        cwd: root.path,
        sandbox: null,
      });
      await Bun.sleep(300);
      expect(detached(control)).toHaveLength(2);
    } finally {
      cleanUp(control);
    }
  });

  test("cancel ends the daemons too (negative control: without a keeper the double-forked one stays)", async () => {
    for (const keeper of [true, false]) {
      const tag = marker();
      const controller = new AbortController();
      const e = await executor({ keeper });
      try {
        const pending = e.run({
          command: detachingCommand(tag),
          cwd: root.path,
          sandbox: null,
          signal: controller.signal,
        });
        await eventually(() => detached(tag).length === 3);
        controller.abort();
        expect((await pending).killed).toBe(true);
        if (keeper) await eventually(() => detached(tag).length === 0);
        else {
          await Bun.sleep(300);
          expect(detached(tag).length).toBeGreaterThan(0);
        }
      } finally {
        cleanUp(tag);
      }
    }
  });

  test("stop() and shutdown() end a background process's daemons, also ones that ignore SIGTERM", async () => {
    const e = await executor({ killGraceMs: 300 });
    const stopped = marker();
    const a = await e.start({ command: detachingCommand(stopped), cwd: root.path, sandbox: null });
    const ended = marker();
    const b = await e.start({
      command: `trap '' TERM; ${detachingCommand(ended, `(trap '' TERM; sleep ${ended}3)`)}`,
      cwd: root.path,
      sandbox: null,
    });
    await eventually(() => detached(stopped).length === 3 && detached(ended).length === 3);
    expect((await a.stop()).killed).toBe(true);
    await eventually(() => detached(stopped).length === 0);
    expect(detached(ended)).toHaveLength(3);
    await e.shutdown();
    expect((await b.exited).killed).toBe(true);
    await eventually(() => detached(ended).length === 0);
  });
});

// The agent: a Bun process with an executor (the process guards make it a subreaper, as Garuda
// is), two background processes that detach daemons, one on the host and (with bwrap) one in the
// sandbox, and a command on the host still running. Then it is killed with SIGKILL.
const AGENT =
  `
import { createExecutor } from ` +
  `${JSON.stringify(join(import.meta.dir, "../../src/sandbox/executor.ts"))};
import ` +
  `{ probeSandbox } from ` +
  `${JSON.stringify(join(import.meta.dir, "../../src/sandbox/probe.ts"))};
const ` +
  `[root, home, hostTag, boxTag, runTag] = ` +
  `JSON.parse(process.env.GARUDA_TEST_AGENT);
const noKeeper = ` +
  `process.env.GARUDA_TEST_NO_KEEPER === "1";
const probe = boxTag === "-" ? { ` +
  `availability: { available: false, reason: "-", fix: "-" } } : await ` +
  `probeSandbox({ env: process.env, tmpDir: home });
const e = await ` +
  `createExecutor({ root, home, selfCommand: ${JSON.stringify(SELF_COMMAND)}, ` +
  `probe, ...(noKeeper && { keeperCommand: false }) });
const daemons = (tag, ` +
  `rest) => "setsid sleep " + tag + "1 & (setsid sleep " + tag + "2 </dev/null ` +
  `>/dev/null 2>&1 &); " + (rest ?? "sleep " + tag + "3");
await e.start({ ` +
  `command: daemons(hostTag), cwd: root, sandbox: null });
if (boxTag !== "-") ` +
  `await e.start({ command: daemons(boxTag), cwd: root, sandbox: e.spec() ` +
  `});
void e.run({ command: daemons(runTag), cwd: root, sandbox: null ` +
  `});
console.log("started");
await new Promise(() => {});
`;

async function killedAgent(options: { sandbox: boolean; keeper: boolean }): Promise<{ tags: string[]; agent: number }> {
  const tags = [marker(), options.sandbox ? marker() : "-", marker()];
  const proc = Bun.spawn([process.execPath, "-e", AGENT], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      GARUDA_TEST_AGENT: JSON.stringify([root.path, home.path, ...tags]),
      ...(options.keeper ? {} : { GARUDA_TEST_NO_KEEPER: "1" }),
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  leftovers.push(proc.pid);
  const live = tags.filter((tag) => tag !== "-");
  await eventually(() => live.every((tag) => detached(tag).length === 3), 10_000);
  proc.kill("SIGKILL");
  await proc.exited;
  return { tags: live, agent: proc.pid };
}

describe.skipIf(process.platform !== "linux")("SIGKILL of the agent", () => {
  test("no process a host command started outlives it (negative control: without a keeper all stay)", async () => {
    const { tags } = await killedAgent({ sandbox: false, keeper: true });
    await eventually(() => tags.every((tag) => detached(tag).length === 0), 5_000);

    const control = await killedAgent({ sandbox: false, keeper: false });
    try {
      await Bun.sleep(500);
      for (const tag of control.tags) expect(detached(tag)).toHaveLength(3);
    } finally {
      for (const tag of control.tags) cleanUp(tag);
    }
  }, 30_000);
});

describeSandbox(
  "SIGKILL of the agent, with the sandbox",
  () => {
    test("no process a sandboxed or a host command started outlives it", async () => {
      const { tags } = await killedAgent({ sandbox: true, keeper: true });
      await eventually(() => tags.every((tag) => detached(tag).length === 0), 5_000);
    }, 30_000);
  },
  "bwrap",
);
