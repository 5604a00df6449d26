// No secret on a command line: every local user can read any process's arguments (ps,
// /proc/<pid>/cmdline), so the egress proxy's token and the variables a request passes (an MCP
// server's keys, a hook's data) must reach a sandboxed command only through its environment,
// which only the same user can read. Checked on the real processes of a running command that
// uses the proxy: bwrap's two processes, the shell and the command itself; the session network's
// child (sessionNetwork.ts) takes only a port, and has ended.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { type EgressProxy, startEgressProxy } from "../../src/sandbox/egressProxy.ts";
import { createExecutor } from "../../src/sandbox/executor.ts";
import { descendants, processTable } from "../../src/sandbox/processTree.ts";
import { MAKE_NETWORK } from "../../src/sandbox/networkChild.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import {
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
let executor: ProcessExecutor;
let proxy: EgressProxy;
let server: ReturnType<typeof httpServer>;

/** Every process on the machine whose /proc/<pid>/<file> holds `secret`. */
function holders(file: "cmdline" | "environ", secret: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/${file}`, "latin1").includes(secret)) found.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

describeSandbox(
  "secrets stay off command lines",
  () => {
    beforeAll(async () => {
      scratch = makeTempDir("garuda-argv-test-", { real: true });
      server = httpServer();
      proxy = await startEgressProxy({
        allow: [`svc.test:${server.port}`],
        resolve: async (host) => (host.endsWith(".test") ? ["127.0.0.1"] : []),
      });
      executor = await createExecutor({
        root: scratch,
        home: scratch,
        selfCommand: SELF_COMMAND,
        probe: machineSandbox,
        serveProxy: (socketPath, fd) => (socketPath === proxy.socketPath ? proxy.serve(fd) : undefined),
      });
    });

    afterAll(async () => {
      await executor.shutdown();
      await proxy.close();
      server.stop();
      await rm(scratch, { recursive: true, force: true });
    });

    test(
      "while a sandboxed command uses the proxy, neither the proxy token nor a " +
        "request's variable is in any process's arguments (negative control: both are " +
        "in the command's environment)",
      async () => {
        const tag = marker();
        const key = `key-${randomBytes(12).toString("hex")}`;
        const running = await executor.start({
          command: `${httpGet(server.url("/through", "svc.test"))} && exec sleep ${tag}`,
          cwd: scratch,
          sandbox: executor.spec({ network: proxy.network }),
          env: { SERVICE_KEY: key },
        });
        try {
          // It really went through the proxy, and is now sleeping.
          await eventually(() => sleepers(tag).length === 1 && running.output().includes("hello /through"), 10_000);
          const sleeper = sleepers(tag)[0] as number;
          // The processes Garuda started for it: bwrap, bwrap's init in the namespace, the command;
          // the session network's child has ended once it sent the namespace's socket.
          const tree = [running.pid, ...descendants(running.pid, processTable())];
          expect(tree).toContain(sleeper);
          expect(tree.length).toBeGreaterThanOrEqual(3);
          // bwrap's own arguments are read
          expect(readFileSync(`/proc/${running.pid}/cmdline`, "utf8")).toContain("--unshare-pid");
          const children = descendants(process.pid).filter((pid) =>
            readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(MAKE_NETWORK),
          );
          expect(children).toEqual([]);

          expect(holders("cmdline", proxy.token)).toEqual([]);
          expect(holders("cmdline", key)).toEqual([]);
          // Negative control: the secrets do reach the command (so the scan above would see them in an argument).
          expect(readFileSync(`/proc/${sleeper}/environ`, "utf8")).toContain(proxy.token);
          expect(holders("environ", key)).toContain(sleeper);
        } finally {
          await running.stop();
        }
      },
    );
  },
  "bwrap",
);
