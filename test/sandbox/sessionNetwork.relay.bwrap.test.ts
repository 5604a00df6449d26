// The two ways a sandboxed command reaches the egress proxy (src/sandbox/sessionNetwork.ts), with
// the real bwrap and nsenter: the session network, made by one short-lived child and served by the
// proxy itself (no process stays, every check in force), and the fallback where nsenter is missing,
// a namespace and bridge per command (bridge.ts). And the checks on what the child sends: a
// network that is Garuda's own is refused.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { type EgressProxy, startEgressProxy } from "../../src/sandbox/egressProxy.ts";
import { childEnv } from "../../src/sandbox/env.ts";
import { createExecutor, type ExecutorOptions } from "../../src/sandbox/executor.ts";
import { openNative } from "../../src/sandbox/native.ts";
import { MAKE_NETWORK } from "../../src/sandbox/networkChild.ts";
import { descendants } from "../../src/sandbox/processTree.ts";
import { createSessionNetworks, findNsenter } from "../../src/sandbox/sessionNetwork.ts";
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
let served = 0;

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
    serveProxy: (socketPath, fd) => {
      if (socketPath !== proxy.socketPath) return undefined;
      served++;
      return proxy.serve(fd);
    },
    ...extra,
  });
  executors.push(executor);
  return { executor, root };
}

const withProxy = (executor: ProcessExecutor) => ({ ...executor.spec(), network: proxy.network });

/** What runs below `pid`: each process's argv[0], the program it is, and its argv. */
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

const bwrapPath = () => (machineSandbox.launcher?.kind === "bwrap" ? machineSandbox.launcher.path : "bwrap");

describeSandbox(
  "the ways to the egress proxy",
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

    test(
      "the session network: its child ends once the network is made, no process " +
        "stays, and the proxy serves its socket itself with every check (the token, the " +
        "allowlist, no host beside it)",
      async () => {
        const earlier = new Set(below().map((p) => p.pid));
        const servedBefore = served;
        const { executor, root } = await session("main");
        const ok = await executor.run({
          command: httpGet(`http://svc.test:${hostServer.port}/d`),
          cwd: root,
          sandbox: withProxy(executor),
        });
        expect(ok.output).toContain("hello /d");
        expect(served - servedBefore).toBe(1);
        await eventually(() => below().every((p) => earlier.has(p.pid)));
        const refused = await executor.run({
          command: httpGet(`http://other.test:${hostServer.port}/x`),
          cwd: root,
          sandbox: withProxy(executor),
        });
        expect(refused.output).not.toContain("hello /x");
        // without the session's token the proxy answers 407 (curl prints the status it got)
        const noToken = await executor.run({
          command:
            "curl -s -o /dev/null -w '%{http_code}' -x http://127.0.0.1:3128 " + `http://svc.test:${hostServer.port}/t`,
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
        // one network for all of them; no network child ran again, and nothing stays
        expect(served - servedBefore).toBe(1);
        expect(below().filter((p) => !earlier.has(p.pid))).toEqual([]);
      },
    );

    test(
      "the fallback without nsenter: a namespace and a bridge per command, which " +
        "reach the proxy (negative control: the main path runs no bridge)",
      async () => {
        const { executor, root } = await session("fallback", { nsenter: null });
        const bridgeSeen = await executor.run({
          command: `${httpGet(`http://svc.test:${hostServer.port}/b`)}; echo; readlink /proc/self/ns/net`,
          cwd: root,
          sandbox: withProxy(executor),
        });
        expect(bridgeSeen.output).toContain("hello /b");
        const other = await executor.run({
          command: "readlink /proc/self/ns/net",
          cwd: root,
          sandbox: withProxy(executor),
        });
        // each command has its own namespace here
        expect(other.output.trim()).not.toBe(bridgeSeen.output.trim().split("\n").pop());
        const refused = await executor.run({
          command: httpGet(`http://other.test:${hostServer.port}/x`),
          cwd: root,
          sandbox: withProxy(executor),
        });
        expect(refused.output).not.toContain("hello /x");
        // the bridge runs while the command does, inside the command's bwrap
        const running = await executor.start({ command: "sleep 5", cwd: root, sandbox: withProxy(executor) });
        await eventually(() => below().some((p) => p.argv.includes("--socket") && p.exe === process.execPath));
        await running.stop();
        const main = await session("no-bridge");
        const sleeping = await main.executor.start({
          command: "sleep 5",
          cwd: main.root,
          sandbox: withProxy(main.executor),
        });
        await Bun.sleep(300);
        expect(below().some((p) => p.argv.includes("--socket") && p.exe === process.execPath)).toBe(false);
        await sleeping.stop();
      },
    );

    test(
      "a network child that is not in namespaces of its own is refused: nothing is " +
        "served and the command does not run (negative control: the real child is " +
        "accepted)",
      async () => {
        const root = join(scratch.path, "own-namespace");
        mkdirSync(root, { recursive: true });
        // A "bwrap" that makes no namespace: it runs what follows "--" in Garuda's own.
        const fakeBwrap = join(scratch.path, "no-namespace-bwrap");
        writeFileSync(fakeBwrap, '#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n');
        chmodSync(fakeBwrap, 0o755);
        let servedHere = 0;
        const options = (bwrap: string) => ({
          bwrap,
          nsenter: findNsenter() as string,
          selfCommand: SELF_COMMAND,
          port: 3128,
          env: childEnv({ base: process.env, home, tmpDir: root }),
          serve: (_socketPath: string, fd: number) => {
            servedHere++;
            return proxy.serve(fd);
          },
          native: openNative,
        });
        const fake = createSessionNetworks(options(fakeBwrap));
        try {
          const joined = await fake.ready(proxy.socketPath);
          expect(joined).toEqual({
            error: "the sandbox network could not be made: the sandbox network is Garuda's own network namespace",
          });
          expect(servedHere).toBe(0);
          expect(below().some((p) => p.argv.includes(MAKE_NETWORK))).toBe(false);
        } finally {
          await fake.close();
        }
        const real = createSessionNetworks(options(bwrapPath()));
        try {
          const joined = await real.ready(proxy.socketPath);
          expect("prefix" in joined).toBe(true);
          expect(servedHere).toBe(1);
        } finally {
          await real.close();
        }
      },
    );

    test("a failed network child: the command does not run and says why; the next command tries again", async () => {
      const failing = join(scratch.path, "failing-bwrap");
      const marker = join(scratch.path, "failed-once");
      // fails the first network child only, then is the real bwrap
      writeFileSync(
        failing,
        `#!/bin/sh\ncase " $* " in *" ${MAKE_NETWORK} "*) if [ ! -e '${marker}' ]; then ` +
          `: > '${marker}'; echo "no namespaces today" >&2; exit 1; fi;; esac\nexec ` +
          `'${bwrapPath()}' "$@"\n`,
      );
      chmodSync(failing, 0o755);
      const launcher = machineSandbox.launcher;
      if (launcher?.kind !== "bwrap") throw new Error("bwrap expected");
      const { executor, root } = await session("failing", {
        probe: { ...machineSandbox, launcher: { ...launcher, path: failing } },
      });
      const first = await executor.run({ command: "echo ran", cwd: root, sandbox: withProxy(executor) });
      expect(first.exitCode).toBe(125);
      expect(first.output).not.toContain("ran\n");
      expect(first.output).toContain("no namespaces today");
      const second = await executor.run({
        command: httpGet(`http://svc.test:${hostServer.port}/again`),
        cwd: root,
        sandbox: withProxy(executor),
      });
      expect(second.output).toContain("hello /again");
    });
  },
  "bwrap",
);
