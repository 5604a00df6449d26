// Who relays a session network's connections (src/sandbox/sessionNetwork.ts, socketHandover.ts),
// with the real bwrap and nsenter: by default no Bun process stays in the namespace (its holder is
// `cat`, Garuda serves the socket), the egress proxy can accept there itself with every check in
// force, and a bridge process relays where making the socket inside is refused, or where asked for.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { type EgressProxy, startEgressProxy } from "../../src/sandbox/egressProxy.ts";
import { childEnv } from "../../src/sandbox/env.ts";
import { createExecutor, type ExecutorOptions } from "../../src/sandbox/executor.ts";
import { descendants } from "../../src/sandbox/processTree.ts";
import { createSessionNetworks, findNsenter, HOLDER_NAME } from "../../src/sandbox/sessionNetwork.ts";
import { forwardListener } from "../../src/sandbox/relay.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import { tempDir } from "../support/tempDir.ts";
import {
  SELF_COMMAND,
  describeSandbox,
  eventually,
  httpGet,
  httpServer,
  machineSandbox,
} from "../support/sandboxSupport.ts";

const scratch = tempDir("garuda-netrelay-");
const home = join(scratch.path, "home");
mkdirSync(home, { recursive: true });
const hostServer = httpServer();
let proxy: EgressProxy;
const executors: ProcessExecutor[] = [];

async function session(
  name: string,
  extra: Partial<ExecutorOptions> = {},
): Promise<{ executor: ProcessExecutor; root: string }> {
  const root = join(scratch.path, name);
  mkdirSync(root, { recursive: true });
  const executor = await createExecutor({
    root,
    home,
    selfCommand: SELF_COMMAND,
    probe: machineSandbox,
    killGraceMs: 300,
    gitGuard: false,
    ...extra,
  });
  executors.push(executor);
  return { executor, root };
}

const withProxy = (executor: ProcessExecutor) => ({ ...executor.spec(), network: proxy.network });

/** What runs below `pid` (not bwrap): each process's argv[0] and the program it is. */
function below(pid = process.pid): Array<{ pid: number; name: string; exe: string; argv: string[] }> {
  return descendants(pid).flatMap((child) => {
    try {
      const argv = readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0");
      return [{ pid: child, name: basename(argv[0] ?? ""), exe: readlinkSync(`/proc/${child}/exe`), argv }];
    } catch {
      return [];
    }
  });
}

describeSandbox(
  "who relays a session network",
  () => {
    beforeAll(async () => {
      proxy = await startEgressProxy({
        allow: [`svc.test:${hostServer.port}`],
        resolve: async (host) => (host.endsWith(".test") ? ["127.0.0.1"] : []),
      });
      expect(findNsenter()).toBeDefined();
    });
    afterAll(async () => {
      await Promise.all(executors.map((executor) => executor.shutdown()));
      await proxy?.close();
      hostServer.stop();
      scratch[Symbol.dispose]();
    });

    test("by default no process stays for the namespace (its holder, cat, ends once the socket is made), and the proxy is reached (negative control: networkRelay process keeps a Bun bridge)", async () => {
      const earlier = new Set(below().map((p) => p.pid));
      const { executor, root } = await session("agent");
      const via = await executor.run({
        command: httpGet(`http://svc.test:${hostServer.port}/a`),
        cwd: root,
        sandbox: withProxy(executor),
      });
      expect(via.output).toContain("hello /a");
      await eventually(() => below().every((p) => earlier.has(p.pid)));
      const again1 = await executor.run({
        command: httpGet(`http://svc.test:${hostServer.port}/a2`),
        cwd: root,
        sandbox: withProxy(executor),
      });
      expect(again1.output).toContain("hello /a2");
      expect(below().filter((p) => !earlier.has(p.pid))).toEqual([]);
      await executor.shutdown();

      const bridged = await session("process", { networkRelay: "process" });
      const again = await bridged.executor.run({
        command: httpGet(`http://svc.test:${hostServer.port}/b`),
        cwd: bridged.root,
        sandbox: withProxy(bridged.executor),
      });
      expect(again.output).toContain("hello /b");
      const bridge = below().find((p) => p.argv.includes("--hold") && !p.exe.endsWith("bwrap"));
      expect(bridge?.exe).toBe(process.execPath);
    });

    test("the proxy accepts on the namespace's socket itself (serveProxy), with its checks: the token, the allowlist, no host beside it", async () => {
      let served = 0;
      const { executor, root } = await session("direct", {
        serveProxy: (socketPath, fd) => {
          if (socketPath !== proxy.socketPath) return undefined;
          served++;
          return proxy.serve(fd);
        },
      });
      const ok = await executor.run({
        command: httpGet(`http://svc.test:${hostServer.port}/d`),
        cwd: root,
        sandbox: withProxy(executor),
      });
      expect(ok.output).toContain("hello /d");
      expect(served).toBe(1);
      const refused = await executor.run({
        command: httpGet(`http://other.test:${hostServer.port}/x`),
        cwd: root,
        sandbox: withProxy(executor),
      });
      expect(refused.output).not.toContain("hello /x");
      // without the session's token the proxy answers 407 (curl prints the status it got)
      const noToken = await executor.run({
        command: `curl -s -o /dev/null -w '%{http_code}' -x http://127.0.0.1:3128 http://svc.test:${hostServer.port}/t`,
        cwd: root,
        sandbox: withProxy(executor),
      });
      expect(noToken.output).toBe("407");
      const direct = await executor.run({
        command: httpGet(hostServer.url("/direct"), { direct: true }),
        cwd: root,
        sandbox: withProxy(executor),
      });
      expect(direct.output).not.toContain("hello /direct");
      expect(served).toBe(1);
    });

    test("a refused listener switches the session to a bridge process in hold mode, and its network is ready", async () => {
      const root = join(scratch.path, "refused");
      mkdirSync(root, { recursive: true });
      const launcher = machineSandbox.launcher;
      const bwrap = launcher?.kind === "bwrap" ? launcher.path : "bwrap";
      const networks = createSessionNetworks({
        bwrap,
        nsenter: findNsenter() as string,
        selfCommand: SELF_COMMAND,
        port: 3128,
        env: childEnv({ base: process.env, home, tmpDir: root }),
        serve: (socketPath, fd) => forwardListener(fd, socketPath),
        listenInside: () => ({ error: "entering the sandbox's user namespace (setns) failed (EPERM)" }),
      });
      const earlier = new Set(below().map((p) => p.pid));
      const fresh = () => below().filter((p) => !earlier.has(p.pid));
      try {
        const joined = await networks.ready(proxy.socketPath);
        expect("prefix" in joined).toBe(true);
        const bridge = fresh().find((p) => p.argv.includes("--hold") && !p.exe.endsWith("bwrap"));
        expect(bridge).toBeDefined();
        // the refused holder is gone (bwrap killed, its cat by the parent-death signal)
        await eventually(() => !fresh().some((p) => p.name === HOLDER_NAME));
      } finally {
        await networks.close();
      }
    });
  },
  "bwrap",
);
