// One network namespace per session (src/sandbox/sessionNetwork.ts), with the real bwrap and
// nsenter: a server one command starts is reachable from the next, not from another session,
// the host's loopback stays out of reach, no process stays to hold it (Garuda's descriptors do:
// the child that made it has exited), and it ends with the executor and with Garuda (SIGKILL
// included).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type EgressProxy, startEgressProxy } from "../../src/sandbox/egressProxy.ts";
import { createExecutor } from "../../src/sandbox/executor.ts";
import { descendants } from "../../src/sandbox/processTree.ts";
import { MAKE_NETWORK } from "../../src/sandbox/networkChild.ts";
import { findNsenter } from "../../src/sandbox/sessionNetwork.ts";
import type { ProcessExecutor, RunningProcess } from "../../src/sandbox/types.ts";
import { tempDir } from "../support/tempDir.ts";
import {
  SELF_COMMAND,
  describeSandbox,
  eventually,
  httpGet,
  httpServer,
  machineSandbox,
} from "../support/sandboxSupport.ts";

const scratch = tempDir("garuda-netns-");
const home = join(scratch.path, "home");
mkdirSync(home, { recursive: true });
const hostServer = httpServer();
let proxy: EgressProxy;
const executors: ProcessExecutor[] = [];

/** A port inside the sandbox's network namespace: a namespace of its own, so any fixed port is free. */
const DEV_PORT = 4701;
/** A dev server in the sandbox: prints "listening" once it accepts connections. */
const devServer = (answer: string) =>
  `'${process.execPath}' -e 'Bun.serve({ hostname: "127.0.0.1", port: ` +
  `${DEV_PORT}, fetch: () => new Response("${answer}\\n") }); ` +
  `console.log("listening")'`;

async function session(name: string): Promise<{ executor: ProcessExecutor; root: string }> {
  const root = join(scratch.path, name);
  mkdirSync(root, { recursive: true });
  const executor = await createExecutor({
    root,
    home,
    selfCommand: SELF_COMMAND,
    probe: machineSandbox,
    killGraceMs: 300,
    serveProxy: (socketPath, fd) => (socketPath === proxy.socketPath ? proxy.serve(fd) : undefined),
  });
  executors.push(executor);
  return { executor, root };
}

const withProxy = (executor: ProcessExecutor) => ({ ...executor.spec(), network: proxy.network });

/** Processes below `pid` that make or hold a session network (the network child, or the bwrap above it). */
function holders(pid = process.pid): number[] {
  return descendants(pid).filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0").includes(MAKE_NETWORK);
    } catch {
      return false;
    }
  });
}

/** The network namespaces other than the host's that process `pid` holds descriptors of: "net:[inode]" each. */
function networksHeld(pid: number | "self" = "self"): string[] {
  const own = readlinkSync("/proc/self/ns/net");
  return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    try {
      const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      return link.startsWith("net:[") && link !== own ? [link] : [];
    } catch {
      return [];
    }
  });
}

/** Every process on the machine that is in network namespace `ns` or holds a descriptor of it. */
function usersOf(ns: string): number[] {
  return readdirSync("/proc").flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      if (readlinkSync(`/proc/${entry}/ns/net`) === ns) return [Number(entry)];
      return readdirSync(`/proc/${entry}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${entry}/fd/${fd}`) === ns;
        } catch {
          return false;
        }
      })
        ? [Number(entry)]
        : [];
    } catch {
      return [];
    }
  });
}

async function startDevServer(executor: ProcessExecutor, root: string, answer: string): Promise<RunningProcess> {
  const server = await executor.start({ command: devServer(answer), cwd: root, sandbox: withProxy(executor) });
  await eventually(() => server.output().includes("listening"), 10_000);
  return server;
}

describeSandbox(
  "one network per session (bwrap + nsenter)",
  () => {
    beforeAll(async () => {
      proxy = await startEgressProxy({
        allow: [`svc.test:${hostServer.port}`],
        resolve: async (host) => (host.endsWith(".test") ? ["127.0.0.1"] : []),
      });
    });
    afterAll(async () => {
      await Promise.all(executors.map((executor) => executor.shutdown()));
      await proxy?.close();
      hostServer.stop();
      scratch[Symbol.dispose]();
    });

    test("nsenter is found here (the shared network is what these tests check)", () => {
      expect(findNsenter()).toBeDefined();
    });

    test(
      "a dev server started in the sandbox answers the session's later commands on " +
        "localhost, in one namespace that no process holds (negative control: a command " +
        "with a network of its own does not reach it)",
      async () => {
        const before = networksHeld();
        const { executor, root } = await session("dev");
        const server = await startDevServer(executor, root, "dev-a");
        const later = await executor.run({
          command: httpGet(`http://127.0.0.1:${DEV_PORT}/`, { direct: true }),
          cwd: root,
          sandbox: withProxy(executor),
        });
        expect(later.output).toContain("dev-a");
        expect(later.exitCode).toBe(0);
        // the proxy still works from the same namespace, which this process holds and no holder process does
        const viaProxy = await executor.run({
          command: `${httpGet(`http://svc.test:${hostServer.port}/p`)}; readlink /proc/self/ns/net`,
          cwd: root,
          sandbox: withProxy(executor),
        });
        expect(viaProxy.output).toContain("hello /p");
        const made = networksHeld().filter((ns) => !before.includes(ns));
        expect(made.length).toBe(1);
        expect(viaProxy.output).toContain(made[0] as string);
        expect(holders()).toEqual([]);
        const own = await executor.run({
          command: httpGet(`http://127.0.0.1:${DEV_PORT}/`, { direct: true }),
          cwd: root,
          sandbox: executor.spec(),
        });
        expect(own.exitCode).not.toBe(0);
        expect(own.output).not.toContain("dev-a");
        await server.stop();
      },
    );

    test(
      "session B cannot reach session A's server; each has its own (negative control: " + "A reaches its own)",
      async () => {
        const a = await session("iso-a");
        const b = await session("iso-b");
        const server = await startDevServer(a.executor, a.root, "dev-iso-a");
        const fromB = await b.executor.run({
          command: httpGet(`http://127.0.0.1:${DEV_PORT}/`, { direct: true }),
          cwd: b.root,
          sandbox: withProxy(b.executor),
        });
        expect(fromB.output).not.toContain("dev-iso-a");
        expect(fromB.exitCode).not.toBe(0);
        const fromA = await a.executor.run({
          command: httpGet(`http://127.0.0.1:${DEV_PORT}/`, { direct: true }),
          cwd: a.root,
          sandbox: withProxy(a.executor),
        });
        expect(fromA.output).toContain("dev-iso-a");
        // B's own server on the same port: the namespaces do not collide
        const serverB = await startDevServer(b.executor, b.root, "dev-iso-b");
        const fromB2 = await b.executor.run({
          command: httpGet(`http://127.0.0.1:${DEV_PORT}/`, { direct: true }),
          cwd: b.root,
          sandbox: withProxy(b.executor),
        });
        expect(fromB2.output).toContain("dev-iso-b");
        await Promise.all([server.stop(), serverB.stop()]);
      },
    );

    test(
      "the host's loopback is out of reach from the shared network, only the proxy " +
        "leads out (negative control: the host reaches it)",
      async () => {
        const { executor, root } = await session("nohost");
        const direct = await executor.run({
          command: httpGet(hostServer.url("/direct"), { direct: true }),
          cwd: root,
          sandbox: withProxy(executor),
        });
        expect(direct.output).not.toContain("hello /direct");
        expect(direct.exitCode).not.toBe(0);
        const refused = await executor.run({
          command: httpGet(hostServer.url("/x", "other.test")),
          cwd: root,
          sandbox: withProxy(executor),
        });
        expect(refused.output).not.toContain("hello /x");
        const host = await executor.run({
          command: httpGet(hostServer.url("/direct"), { direct: true }),
          cwd: root,
          sandbox: null,
        });
        expect(host.output).toContain("hello /direct");
        // the command's network is not the host's and not Garuda's
        const ns = await executor.run({
          command: "readlink /proc/self/ns/net",
          cwd: root,
          sandbox: withProxy(executor),
        });
        expect(ns.output.trim()).toMatch(/^net:\[\d+\]$/);
        expect(ns.output.trim()).not.toBe(readlinkSync("/proc/self/ns/net"));
      },
    );

    test("shutdown ends the network; a new executor makes its own at its first networked command only", async () => {
      const before = networksHeld();
      const { executor, root } = await session("ends");
      await executor.run({ command: "true", cwd: root, sandbox: executor.spec() });
      expect(networksHeld()).toEqual(before);
      await executor.run({ command: "true", cwd: root, sandbox: withProxy(executor) });
      const made = networksHeld().filter((ns) => !before.includes(ns));
      expect(made.length).toBe(1);
      expect(holders()).toEqual([]);
      await executor.shutdown();
      expect(networksHeld()).toEqual(before);
      // nothing is left in it or holding it: the namespace is gone
      await eventually(() => usersOf(made[0] as string).length === 0);
    });

    test(
      "a command holds no descriptor of the namespaces it was entered through " +
        "(negative control: its own network namespace is the session's)",
      async () => {
        const { executor, root } = await session("fds");
        const listed = await executor.run({
          command:
            'for f in /proc/self/fd/*; do printf "%s " "$(readlink "$f")"; done; echo; readlink /proc/self/ns/net',
          cwd: root,
          sandbox: withProxy(executor),
        });
        const [fds, ns] = listed.output.trim().split("\n");
        expect(fds).not.toMatch(/(net|user):\[/);
        expect(ns).toMatch(/^net:\[\d+\]$/);
        expect(networksHeld()).toContain(ns as string);
      },
    );

    test("an unprivileged, non-dumpable Garuda's commands join its network (its " +
      "/proc/<pid>/fd is root's; nsenter gets the descriptors instead)", async () => {
      // As root here (CI), the check would pass whatever the way in: the agent runs as nobody.
      const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((path) => Bun.file(path).size > 0);
      const asNobody = process.getuid?.() === 0;
      if (asNobody && !setpriv) return;
      const dir = join("/tmp", `garuda-netns-nobody-${process.pid}`);
      mkdirSync(join(dir, "home"), { recursive: true, mode: 0o755 });
      mkdirSync(join(dir, "root"), { recursive: true, mode: 0o755 });
      const script = join(dir, "agent.ts");
      const src = join(import.meta.dir, "../../src/sandbox");
      writeFileSync(
        script,
        `import { createExecutor } from ` +
          `${JSON.stringify(join(src, "executor.ts"))};
import { startEgressProxy } from ` +
          `${JSON.stringify(join(src, "egressProxy.ts"))};
const proxy = await ` +
          `startEgressProxy({});
const root = ${JSON.stringify(join(dir, "root"))};
const ` +
          `executor = await createExecutor({ root, home: ` +
          `${JSON.stringify(join(dir, "home"))}, selfCommand: ` +
          `${JSON.stringify(SELF_COMMAND)}, serveProxy: (path, fd) => path === ` +
          `proxy.socketPath ? proxy.serve(fd) : undefined });
const dumpable = (await ` +
          `import("node:fs")).readFileSync("/proc/self/status", "utf8");
const result = ` +
          `await executor.run({ command: "readlink /proc/self/ns/net", cwd: root, ` +
          `sandbox: { ...executor.spec(), network: proxy.network } ` +
          `});
console.log(JSON.stringify({ uid: process.getuid(), output: ` +
          `result.output.trim(), exitCode: result.exitCode, own: (await ` +
          `import("node:fs")).readlinkSync("/proc/self/ns/net"), procFdOwner: (await ` +
          `import("node:fs")).statSync("/proc/self/fd").uid }));
await ` +
          `executor.shutdown();
await proxy.close();
process.exit(0);
`,
        { mode: 0o644 },
      );
      if (asNobody) Bun.spawnSync(["chown", "-R", "65534:65534", dir]);
      try {
        const argv = asNobody
          ? [setpriv as string, "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, script]
          : [process.execPath, script];
        const proc = Bun.spawn(argv, {
          cwd: dir,
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(dir, "home"), TMPDIR: dir },
          stdout: "pipe",
          stderr: "pipe",
        });
        const [out, err] = await Promise.all([
          new Response(proc.stdout).text(),
          new Response(proc.stderr).text(),
          proc.exited,
        ]);
        const said = JSON.parse(out.trim().split("\n").pop() ?? "{}") as {
          uid: number;
          output: string;
          exitCode: number;
          own: string;
          procFdOwner: number;
        };
        if (!said.output) throw new Error(`the agent said nothing useful: ${out} ${err}`);
        expect(said.uid).not.toBe(0);
        expect(said.procFdOwner).toBe(0); // not dumpable: the case this test is about
        expect(said.exitCode).toBe(0);
        expect(said.output).toMatch(/^net:\[\d+\]$/);
        expect(said.output).not.toBe(said.own);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 30_000);

    test(
      "the network does not outlive a SIGKILLed Garuda (its descriptors close with " +
        "it; the commands in it end by their parent-death signal)",
      async () => {
        const script = join(scratch.path, "agent.ts");
        const src = join(import.meta.dir, "../../src/sandbox");
        writeFileSync(
          script,
          `import { createExecutor } from ` +
            `${JSON.stringify(join(src, "executor.ts"))};
import { startEgressProxy } from ` +
            `${JSON.stringify(join(src, "egressProxy.ts"))};
const proxy = await ` +
            `startEgressProxy({ dir: ${JSON.stringify(scratch.path)} });
const root = ` +
            `${JSON.stringify(join(scratch.path, "killed"))};
const executor = await ` +
            `createExecutor({ root, home: ${JSON.stringify(home)}, selfCommand: ` +
            `${JSON.stringify(SELF_COMMAND)}, tmpDir: ` +
            `${JSON.stringify(join(scratch.path, "killed-tmp"))}, serveProxy: (path, fd) => ` +
            `path === proxy.socketPath ? proxy.serve(fd) : undefined });
const result = ` +
            `await executor.run({ command: "true", cwd: root, sandbox: { ` +
            `...executor.spec(), network: proxy.network } });
await executor.start({ ` +
            `command: "sleep 60", cwd: root, sandbox: { ...executor.spec(), network: ` +
            `proxy.network } });
await Bun.sleep(300);
console.log("ran", ` +
            `result.exitCode);
await Bun.sleep(60_000);
`,
        );
        // Its temp folders are in scratch: nothing removes a SIGKILLed process's own.
        mkdirSync(join(scratch.path, "killed"), { recursive: true });
        mkdirSync(join(scratch.path, "killed-tmp"), { recursive: true });
        const agent = Bun.spawn([process.execPath, script], { stdout: "pipe", stderr: "inherit" });
        let below: number[];
        let ns: string[];
        try {
          const reader = agent.stdout.getReader();
          const first = new TextDecoder().decode((await reader.read()).value);
          expect(first).toContain("ran 0");
          below = descendants(agent.pid);
          ns = networksHeld(agent.pid);
          expect(ns.length).toBe(1);
          expect(holders(agent.pid)).toEqual([]);
          // the sleeping command is in it
          expect(usersOf(ns[0] as string).length).toBeGreaterThan(1);
        } finally {
          agent.kill("SIGKILL");
          await agent.exited;
        }
        const alive = (pid: number) => {
          try {
            return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
          } catch {
            return false;
          }
        };
        await eventually(() => below.every((pid) => !alive(pid)), 5_000);
        await eventually(() => usersOf(ns[0] as string).every((pid) => !alive(pid)), 5_000);
      },
    );
  },
  "bwrap",
);
