// Issue 31 item 5 (the proxy's part), attacked for real: a sandboxed command (bwrap, the session's
// network namespace, the proxy accepting there itself as Garuda's runtime has it) opens thousands
// of connections with half a head each, and opens another for each one the proxy ends. Meanwhile
// another session's request completes within 2 s, Garuda's descriptors stay bounded, and closing
// the attacking session's proxy ends all its connections.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type EgressProxy, startEgressProxy } from "../../src/sandbox/egressProxy.ts";
import { createExecutor } from "../../src/sandbox/executor.ts";
import { CONNECTIONS_PER_PROXY, proxyConnectionBudget } from "../../src/sandbox/proxyAdmission.ts";
import type { ProcessExecutor, RunningProcess } from "../../src/sandbox/types.ts";
import { tempDir } from "../support/tempDir.ts";
import { describeSandbox, eventually, httpServer, testExecutorOptions } from "../support/sandboxSupport.ts";

const scratch = tempDir("garuda-flood-");
const home = join(scratch.path, "home");
mkdirSync(home, { recursive: true });
const server = httpServer();
const resolve = async (host: string) => (host.endsWith(".test") ? ["127.0.0.1"] : []);
const budget = proxyConnectionBudget();
const proxies: EgressProxy[] = [];
const executors: ProcessExecutor[] = [];

/** A session: its proxy (sharing the process's budget) and its executor, the proxy serving its namespace. */
async function session(name: string): Promise<{ proxy: EgressProxy; executor: ProcessExecutor; root: string }> {
  const proxy = await startEgressProxy({
    allow: [`svc.test:${server.port}`],
    ports: [server.port],
    resolve,
    localAddresses: "any",
    connections: budget,
  });
  proxies.push(proxy);
  const root = join(scratch.path, name);
  mkdirSync(root, { recursive: true });
  const executor = await createExecutor({
    ...testExecutorOptions(root, home),
    serveProxy: (socketPath, fd) => (socketPath === proxy.socketPath ? proxy.serve(fd) : undefined),
  });
  executors.push(executor);
  return { proxy, executor, root };
}

/**
 * The attacker: keeps `count` connections to the proxy (from HTTP_PROXY) open, each with half a
 * head that carries the session's token, and opens a new one for each the proxy ends. Prints
 * "open <n> ended <n>" every 200 ms.
 */
const attacker = (count: number) => {
  const script = `
    const url = new URL(process.env.HTTP_PROXY);
    const auth = "Basic " + Buffer.from(url.username + ":" + url.password).toString("base64");
    const half = "GET http://svc.test/ HTTP/1.1\\r\\nProxy-Authorization: " + auth + "\\r\\nX-Pad: ";
    let open = 0, ended = 0;
    const one = () => Bun.connect({ hostname: url.hostname, port: Number(url.port), socket: {
      open(s) { open++; s.write(half); },
      data() {},
      close() { open--; ended++; setTimeout(one, 5); },
      connectError() { setTimeout(one, 50); },
    } }).catch(() => setTimeout(one, 50));
    for (let i = 0; i < ${count}; i++) one();
    setInterval(() => console.log("open " + open + " ended " + ended), 200);
  `;
  return `'${process.execPath}' -e '${script.replaceAll("'", "'\\''")}'`;
};

const descriptors = () => readdirSync("/proc/self/fd").length;
const lastCounts = (running: RunningProcess) => {
  const lines = [...running.output().matchAll(/open (\d+) ended (\d+)/g)];
  const last = lines.at(-1);
  return last ? { open: Number(last[1]), ended: Number(last[2]) } : undefined;
};

describeSandbox(
  "a half-head flood from one session (issue 31 item 5)",
  () => {
    afterAll(async () => {
      await Promise.all(executors.map((executor) => executor.shutdown()));
      await Promise.all(proxies.map((proxy) => proxy.close()));
      server.stop();
      scratch[Symbol.dispose]();
    });

    test("another session's command completes within 2 s, descriptors stay bounded, and " +
      "closing the attacking session ends its connections and its processes", async () => {
      const attacked = await session("attacker");
      const other = await session("other");
      const baseline = descriptors();
      const oneRequest = async () => {
        const started = performance.now();
        const request = await other.executor.run({
          command:
            `curl -sS --max-time 5 -o /dev/null -w '%{http_code} %{time_total}\\n' ` +
            `http://svc.test:${server.port}/other`,
          cwd: other.root,
          sandbox: { ...other.executor.spec(), network: other.proxy.network },
        });
        const [code, seconds] = request.output.trim().split(" ");
        return { took: performance.now() - started, code, seconds: Number(seconds) };
      };
      // What the same command takes on this machine now, before the flood.
      const calm = await oneRequest();
      expect(calm.code).toBe("200");
      const flood = await attacked.executor.start({
        command: attacker(3000),
        cwd: attacked.root,
        sandbox: { ...attacked.executor.spec(), network: attacked.proxy.network },
      });
      // Garuda's descriptors, sampled while the flood runs (the attacker's own count of open
      // connections includes those the kernel holds in the listening socket's backlog).
      let peak = descriptors();
      let peakOpen = 0;
      const sampler = setInterval(() => {
        peak = Math.max(peak, descriptors());
        peakOpen = Math.max(peakOpen, attacked.proxy.openConnections);
      }, 20);
      // The flood is at work: the proxy has ended (refused) well over its cap's worth.
      await eventually(() => (lastCounts(flood)?.ended ?? 0) > 2 * CONNECTIONS_PER_PROXY, 20_000).catch(() => {});

      // The other session's one request, from inside its sandbox, timed there. The fastest of three
      // counts: a machine busy with other work can delay any one, while a proxy the flood starves
      // (the negative control: no bounds) delays every one past the limit.
      const tries: { took: number; code: string | undefined; seconds: number }[] = [];
      for (let attempt = 0; attempt < 3; attempt++) tries.push(await oneRequest());
      // At least one gets through (a starved proxy lets none through in curl's 5 s), within 2 s
      // (issue 31), the sandbox's start included; on a machine so busy that the same command took
      // longer before the flood, within three times that.
      const through = tries.filter((attempt) => attempt.code === "200");
      expect(through.length).toBeGreaterThan(0);
      expect(Math.min(...through.map((attempt) => attempt.took))).toBeLessThan(Math.max(2000, 3 * calm.took));
      // Garuda's descriptors: at most one per admitted connection, plus a few.
      clearInterval(sampler);
      expect(peak - baseline).toBeLessThan(CONNECTIONS_PER_PROXY + 64);
      expect(peakOpen).toBeGreaterThan(0);
      expect(peakOpen).toBeLessThanOrEqual(CONNECTIONS_PER_PROXY);

      // Closing the attacking session's proxy ends every connection it held.
      await attacked.proxy.close();
      // The attacker has thousands of closes to take in; a loaded machine makes it slow to see them
      // (a proxy that kept them would keep them for good).
      await eventually(() => lastCounts(flood)?.open === 0, 30_000);
      expect(budget.open).toBe(0);
      // And closing its executor stops the attacker itself.
      await attacked.executor.shutdown();
      const ended = await Promise.race([flood.exited.then(() => true), Bun.sleep(5000).then(() => false)]);
      expect(ended).toBe(true);
    }, 90_000);
  },
  "bwrap",
);
