// The Executor on the host (`sandbox: null`): process groups, kill, output, environment.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { SandboxUnavailableError, createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import { signalGroup, signalProcess } from "../../src/sandbox/processTree.ts";
import { tempDir } from "../support/tempDir.ts";
import { SELF_COMMAND, eventually, marker, sleepers } from "../support/sandboxSupport.ts";

const root = tempDir("garuda-root-");
const home = tempDir("garuda-home-");
const unavailable = {
  availability: { available: false as const, reason: "no sandbox in this test", fix: "none needed" },
};
const executors: ProcessExecutor[] = [];
async function executor(options: { killGraceMs?: number; envAllowlist?: string[] } = {}): Promise<ProcessExecutor> {
  const created = await createExecutor({
    root: root.path,
    home: home.path,
    selfCommand: SELF_COMMAND,
    probe: unavailable,
    ...options,
  });
  executors.push(created);
  return created;
}
afterAll(async () => {
  for (const e of executors) await e.shutdown();
  root[Symbol.dispose]();
  home[Symbol.dispose]();
});

const run = async (command: string, extra: Partial<Parameters<ProcessExecutor["run"]>[0]> = {}, e?: ProcessExecutor) =>
  (e ?? (await executor())).run({ command, cwd: root.path, sandbox: null, ...extra });

describe("Executor on the host", () => {
  test("exit code, working folder, stdin, and both streams in the output", async () => {
    const result = await run("pwd; cat; echo oops >&2; exit 3", { stdin: "from stdin\n" });
    expect(result.exitCode).toBe(3);
    expect(result.output).toBe(`${realpathSync(root.path)}\nfrom stdin\noops\n`);
    expect(result).toMatchObject({ signal: null, truncated: false, timedOut: false, killed: false });
  });

  test(
    "stdin bytes hold no descriptor once the command ended (a long-running agent " + "does not pile them up)",
    async () => {
      const e = await executor();
      const memfds = () =>
        readdirSync("/proc/self/fd").filter((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`).startsWith("/memfd:");
          } catch {
            return false;
          }
        }).length;
      const before = memfds();
      const big = "y".repeat(3_000_000);
      for (let i = 0; i < 5; i++) expect((await run("wc -c", { stdin: big }, e)).output.trim()).toBe("3000000");
      expect((await run("exit 0", { stdin: big }, e)).exitCode).toBe(0); // leaves without reading it
      expect(memfds()).toBe(before);
    },
  );

  test("output streams while the command runs, stdout and stderr interleaved as they come", async () => {
    const chunks: Array<[string, number]> = [];
    const started = performance.now();
    const result = await run("echo one; sleep 0.3; echo two >&2; sleep 0.3; echo three", {
      onOutput: (chunk) => chunks.push([chunk, performance.now() - started]),
    });
    expect(chunks.map(([chunk]) => chunk).join("")).toBe("one\ntwo\nthree\n");
    expect(result.output).toBe("one\ntwo\nthree\n");
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    expect(chunks[0]?.[1] ?? 1e9).toBeLessThan(250); // "one" arrived long before the end
  });

  test(
    "a consumer that returns a promise holds the output: the command waits for it, " + "and nothing is lost",
    async () => {
      let held = 0;
      let bytes = 0;
      let release: (() => void) | undefined;
      const started = performance.now();
      const running = run("head -c 3000000 /dev/zero | tr '\\0' x; echo; echo done", {
        onOutput: (chunk) => {
          bytes += chunk.length;
          if (held > 0) return undefined;
          held = performance.now();
          // Held until the test lets go: the command cannot finish while its output waits.
          return new Promise<void>((resolve) => {
            release = resolve;
          });
        },
      });
      await Bun.sleep(400);
      expect(bytes).toBeLessThan(3_000_000);
      release?.();
      const result = await running;
      expect(result.exitCode).toBe(0);
      expect(bytes).toBe(3_000_000 + "\ndone\n".length);
      expect(performance.now() - started).toBeGreaterThanOrEqual(400);
    },
  );

  test("a hold that never settles does not outlive the command: a timeout still ends the run", async () => {
    // Output without end: with 3 MB, a loaded machine's keeper drained it all and the command
    // finished before its timeout, which was then not what ended the run.
    const result = await run("yes", { timeoutMs: 300, onOutput: () => new Promise<void>(() => {}) });
    expect(result.timedOut).toBe(true);
  }, 15_000);

  test("a long output keeps its head and tail", async () => {
    const result = await run("seq 1 100000", { maxOutputBytes: 1000 });
    expect(result.truncated).toBe(true);
    expect(result.output.startsWith("1\n2\n3\n")).toBe(true);
    expect(result.output.endsWith("99999\n100000\n")).toBe(true);
    expect(result.output).toMatch(/\[\d+ bytes of output cut\]/);
    expect(Buffer.byteLength(result.output)).toBeLessThan(1100);
  });

  test("the environment is the allowlist only: a provider key in process.env never reaches a child", async () => {
    process.env.ANTHROPIC_API_KEY = "sk-ant-must-not-leak";
    process.env.GARUDA_TEST_OTHER = "other";
    try {
      const e = await executor();
      const result = await run("env", { env: { FROM_REQUEST: "yes" } }, e);
      expect(result.output).not.toContain("sk-ant-must-not-leak");
      expect(result.output).not.toContain("GARUDA_TEST_OTHER");
      expect(result.output).toContain("FROM_REQUEST=yes\n");
      expect(result.output).toContain(`HOME=${home.path}\n`);
      expect(result.output).toContain(`TMPDIR=${e.tmpDir}\n`);
      // negative control: the same key is visible when the allowlist names it
      const named = await run("env", {}, await executor({ envAllowlist: ["ANTHROPIC_API_KEY"] }));
      expect(named.output).toContain("ANTHROPIC_API_KEY=sk-ant-must-not-leak");
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
      delete process.env.GARUDA_TEST_OTHER;
    }
  });

  test(
    "each command has its own process group and session, led by the command (Linux: " + "by its keeper, its parent)",
    async () => {
      const result = await run("echo $$ $PPID $(ps -o pgid= -p $$) $(ps -o sid= -p $$)");
      const [pid, ppid, pgid, sid] = result.output.trim().split(/\s+/);
      const leader = process.platform === "linux" ? ppid : pid;
      expect(pgid).toBe(leader as string);
      expect(sid).toBe(leader as string);
      expect(Number(pid)).not.toBe(process.pid);
      expect(Number(leader)).not.toBe(process.pid);
    },
  );

  test("timeout: the command is ended and says so", async () => {
    const started = Date.now();
    const result = await run("sleep 30", { timeoutMs: 200 });
    expect(result).toMatchObject({ timedOut: true, killed: false });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test("cancel ends the whole group, grandchildren included", async () => {
    const tag = marker();
    const controller = new AbortController();
    const pending = run(`sleep ${tag} & sleep ${tag} & echo started; wait`, { signal: controller.signal });
    await eventually(() => sleepers(tag).length === 2);
    controller.abort();
    const result = await pending;
    expect(result.killed).toBe(true);
    expect(result.output).toBe("started\n");
    await eventually(() => sleepers(tag).length === 0);
  });

  test("negative control: killing only the main process leaves the grandchildren running", async () => {
    const tag = marker();
    const proc = Bun.spawn(["bash", "-c", `sleep ${tag} & sleep ${tag} & wait`], {
      env: { PATH: process.env.PATH ?? "" },
      detached: true,
    });
    try {
      await eventually(() => sleepers(tag).length === 2);
      proc.kill("SIGKILL");
      await proc.exited;
      await Bun.sleep(100);
      expect(sleepers(tag)).toHaveLength(2);
    } finally {
      signalGroup(proc.pid, "SIGKILL");
    }
    await eventually(() => sleepers(tag).length === 0);
  });

  test("cancel reaches a descendant that left the group with setsid", async () => {
    const tag = marker();
    const controller = new AbortController();
    const pending = run(`setsid sleep ${tag} & echo started; wait`, { signal: controller.signal });
    await eventually(() => sleepers(tag).length === 1);
    controller.abort();
    expect((await pending).killed).toBe(true);
    await eventually(() => sleepers(tag).length === 0);
  });

  test("negative control: a group kill alone misses the setsid descendant", async () => {
    const tag = marker();
    const proc = Bun.spawn(["bash", "-c", `setsid sleep ${tag} & wait`], {
      env: { PATH: process.env.PATH ?? "" },
      detached: true,
    });
    try {
      await eventually(() => sleepers(tag).length === 1);
      signalGroup(proc.pid, "SIGKILL");
      await proc.exited;
      await Bun.sleep(100);
      expect(sleepers(tag)).toHaveLength(1);
    } finally {
      signalGroup(proc.pid, "SIGKILL");
      for (const pid of sleepers(tag)) signalProcess(pid, "SIGKILL");
    }
  });

  test("SIGTERM first: a command that handles it gets to clean up", async () => {
    const controller = new AbortController();
    const result = await run("trap 'echo cleaning up; exit 7' TERM; echo ready; sleep 30 & wait", {
      signal: controller.signal,
      onOutput: (c) => c.includes("ready") && controller.abort(),
    });
    expect(result.output).toBe("ready\ncleaning up\n");
    expect(result.exitCode).toBe(7);
    expect(result.killed).toBe(true);
  });

  test("SIGKILL after the grace period for a command that ignores SIGTERM", async () => {
    const e = await executor({ killGraceMs: 300 });
    const controller = new AbortController();
    const started = Date.now();
    const result = await run(
      "trap '' TERM; echo ready; sleep 30",
      { signal: controller.signal, onOutput: () => controller.abort() },
      e,
    );
    const took = Date.now() - started;
    expect(result.signal).toBe("SIGKILL");
    expect(took).toBeGreaterThanOrEqual(300);
    expect(took).toBeLessThan(2000);
  });

  test("a command cancelled before it starts never runs", async () => {
    using dir = tempDir();
    const controller = new AbortController();
    controller.abort();
    const result = await run(`touch ${dir.path}/ran`, { signal: controller.signal });
    expect(result.killed).toBe(true);
    expect(existsSync(`${dir.path}/ran`)).toBe(false);
  });

  test(
    "what a command leaves running in its group is ended when it exits, and the " + "result does not wait for it",
    async () => {
      const tag = marker();
      const started = Date.now();
      const result = await run(`sleep ${tag} & echo done`);
      expect(result.output).toBe("done\n");
      expect(Date.now() - started).toBeLessThan(1500);
      await eventually(() => sleepers(tag).length === 0);
    },
  );

  test("start(): a long-running process with an output ring, stopped on request", async () => {
    const e = await executor();
    const proc = await e.start({
      command: "for i in $(seq 1 5); do echo line $i; done; echo err >&2; sleep 30",
      cwd: root.path,
      sandbox: null,
    });
    expect(proc.id).toBe("p1");
    expect(proc.command).toContain("seq 1 5");
    await eventually(() => proc.output().includes("err"));
    expect(proc.output()).toContain("line 5\n");
    const result = await proc.stop();
    expect(result.killed).toBe(true);
    expect(await proc.exited).toBe(result);
  });

  test("start({raw}): stdin and stdout are the caller's pipes; stderr goes to the ring", async () => {
    const e = await executor();
    const proc = await e.start({ command: "echo to-stderr >&2; cat", cwd: root.path, sandbox: null, raw: true });
    const writer = proc.stdin?.getWriter();
    await writer?.write(new TextEncoder().encode("ping\n"));
    await writer?.close();
    const echoed = await new Response(proc.stdout).text();
    expect(echoed).toBe("ping\n");
    const result = await proc.exited;
    expect(result.exitCode).toBe(0);
    expect(proc.output()).toBe("to-stderr\n");
  });

  test("shutdown() ends every process it started, at once, and removes its private tmp", async () => {
    const e = await executor({ killGraceMs: 400 });
    const tag = marker();
    const a = e.run({ command: `trap '' TERM; sleep ${tag}`, cwd: root.path, sandbox: null });
    const b = e.run({ command: `trap '' TERM; sleep ${tag}`, cwd: root.path, sandbox: null });
    const c = await e.start({ command: `trap '' TERM; sleep ${tag}`, cwd: root.path, sandbox: null });
    await eventually(() => sleepers(tag).length === 3);
    const started = Date.now();
    await e.shutdown();
    const results = await Promise.all([a, b, c.exited]);
    expect(results.map((r) => r.killed)).toEqual([true, true, true]);
    // three processes that ignore SIGTERM, one grace period: ended together, not one after another
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    // One after another would take three grace periods (1,200 ms); a loaded machine adds some to one.
    expect(Date.now() - started).toBeLessThan(1_200);
    expect(sleepers(tag)).toEqual([]);
    expect(existsSync(e.tmpDir)).toBe(false);
    expect(() => e.run({ command: "true", cwd: root.path, sandbox: null })).toThrow(/shut down/);
  });

  test("a sandboxed request without a sandbox fails with the reason and the fix, and nothing runs", async () => {
    const e = await executor();
    expect(e.sandbox).toEqual(unavailable.availability);
    using dir = tempDir();
    const attempt = e.run({ command: `touch ${dir.path}/ran`, cwd: root.path, sandbox: e.spec() });
    await expect(attempt).rejects.toBeInstanceOf(SandboxUnavailableError);
    await expect(attempt).rejects.toThrow("no sandbox in this test. Fix: none needed");
    await expect(
      e.start({ command: `touch ${dir.path}/ran`, cwd: root.path, sandbox: e.spec() }),
    ).rejects.toBeInstanceOf(SandboxUnavailableError);
    expect(existsSync(`${dir.path}/ran`)).toBe(false);
  });

  test("spec(): the executor's root, home and tmp, the caller's choices, and the session bus hidden", async () => {
    const e = await createExecutor({
      root: root.path,
      home: home.path,
      selfCommand: SELF_COMMAND,
      probe: unavailable,
      env: { PATH: "/usr/bin", XDG_RUNTIME_DIR: "/run/user/1000" },
    });
    executors.push(e);
    const network = { mode: "proxy" as const, socketPath: "/s", token: "t" };
    expect(e.spec({ projectReadOnly: true, writePaths: ["/w"], denyReadPaths: ["/d"], network })).toEqual({
      root: root.path,
      home: home.path,
      tmpDir: e.tmpDir,
      projectReadOnly: true,
      writePaths: ["/w"],
      protectedPaths: [],
      denyReadPaths: ["/run/user/1000", "/d"],
      network,
    });
    expect(e.spec().network).toEqual({ mode: "none" });
  });

  test("a bridge command is required", async () => {
    await expect(
      createExecutor({ root: root.path, home: home.path, selfCommand: [], probe: unavailable }),
    ).rejects.toThrow(/selfCommand/);
  });
});
