// What the OS sandbox costs: the median extra wall time of one sandboxed `true` over the same
// command on the host (both through the Executor, many interleaved runs), what the git guard adds
// to it (the same sandboxed `true` through an executor without the guard, same rounds), and the throughput of a
// 100 MB download from a loopback HTTP server through the egress proxy from inside the sandbox,
// against the same download made directly on the host. The sandboxed download runs three ways in
// the same rounds (sessionNetwork.ts): a bridge process relaying to the proxy's socket (before
// issue 19.3), Garuda relaying the namespace's socket to the proxy's, and the proxy accepting on
// the namespace's socket itself (what a session does: compose/prepare.ts wires serveProxy), the
// last with the proxy's JS relay (before) and its native relay (after; nativeRelay.ts).
//
//   bun bench/sandbox.ts [--rounds N] [--downloads N] [--client curl|bun]
//
// Targets: ≤ 25 ms extra per sandboxed command; proxied throughput ≥ 80% of direct.
//
// Every path uses the same client (curl when installed, else Bun's fetch; --client picks) and the
// same server process, so the ratio is what the relays and the proxy cost. Read it with the cores
// in mind: each relay reads and writes every byte (two kernel copies, plus Bun's copy of each read
// into a fresh buffer) on the same cores as the client and the server, so with 2 cores three or
// four busy processes share what two had on the direct path. On such a machine (2-vCPU VM, curl)
// two Bun relays (bridge process + proxy) reached ~32-47% of direct, and two C read()/write()
// relays in their place only ~43%. With the proxy accepting in the namespace there is one relay,
// the same as the proxy alone on the host. Its native relay moved bytes with splice() through a
// pipe (~50% of direct here) until recv()/send() through a buffer passed more (~65%).
// With Bun's fetch as the client, which costs more itself, the shares are higher.
// A reference is measured in the same rounds: a bare relay (bench/bareRelay.ts, a C forwarder
// with no proxy and no checks) on the host. A proxy passes about as much as that at best on the
// machine the bench runs on; the 80% target needs a machine where the bare relay gets there.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { startEgressProxy } from "../src/sandbox/egressProxy.ts";
import { createExecutor } from "../src/sandbox/executor.ts";
import type { ProcessExecutor, SandboxSpec } from "../src/sandbox/types.ts";
import { type Task, formatStat, formatTable, interleave } from "./interleave.ts";
import { type BareRelay, startBareRelay } from "./bareRelay.ts";

const EXTRA_MS_TARGET = 25;
const THROUGHPUT_TARGET = 0.8;
const DOWNLOAD_BYTES = 100 * 1024 * 1024;
/** USER_HZ: Linux reports process CPU in /proc in hundredths of a second. */
const TICKS_PER_SECOND = 100;

type Client = "curl" | "bun";

function parse(argv: string[]): { rounds: number; downloads: number; client: Client } {
  let rounds = 60;
  let downloads = 15;
  let client: Client = Bun.which("curl") ? "curl" : "bun";
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--rounds") rounds = Number(argv[++i]);
    else if (arg === "--downloads") downloads = Number(argv[++i]);
    else if (arg === "--client" && (argv[i + 1] === "curl" || argv[i + 1] === "bun")) client = argv[++i] as Client;
    else
      throw new Error(
        `unknown argument ${arg}; usage: bun bench/sandbox.ts [--rounds N] [--downloads N] [--client curl|bun]`,
      );
  }
  if (!(rounds > 0 && downloads > 0)) throw new Error("--rounds and --downloads need positive numbers");
  if (client === "curl" && !Bun.which("curl")) throw new Error("--client curl: curl is not installed");
  return { rounds, downloads, client };
}

/** The HTTP server runs in its own process, as a remote server would, so it does not share the proxy's thread. */
async function startServer(): Promise<{ port: number; pid: number; stop: () => void }> {
  const script = `const big = new Uint8Array(${DOWNLOAD_BYTES}).fill(97);
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(big) });
console.log(server.port);`;
  const proc = Bun.spawn([process.execPath, "-e", script], {
    env: { PATH: process.env.PATH ?? "" },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the bench server did not start");
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { port: Number(text.trim()), pid: proc.pid, stop: () => proc.kill("SIGKILL") };
}

const timed = async (
  run: () => Promise<{ exitCode: number | null; output: string }>,
): Promise<Record<string, number>> => {
  const started = performance.now();
  const result = await run();
  if (result.exitCode !== 0) throw new Error(`exit ${result.exitCode}: ${result.output}`);
  return { wallMs: performance.now() - started };
};

/** The whole machine's CPU time so far, busy and all, in clock ticks (/proc/stat's first line). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
  const total = fields.reduce((sum, value) => sum + value, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle + iowait
  return { busy: total - idle, total };
}

/** CPU ticks a process has used (utime + stime). */
function processTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** One download's speed in MB/s, as the client (curl or Bun's fetch, the same on every path) measured it. */
function downloadCommand(
  client: Client,
  url: string,
  direct: boolean,
): { command: string; parse: (output: string) => number } {
  if (client === "curl") {
    return {
      command: `curl -sS ${direct ? "--noproxy '*' " : ""}-o /dev/null -w '%{size_download} %{speed_download}' '${url}'`,
      parse: (output) => {
        const [size, speed] = output.trim().split(" ").map(Number);
        if (size !== DOWNLOAD_BYTES) throw new Error(`downloaded ${size} bytes, expected ${DOWNLOAD_BYTES}: ${output}`);
        return (speed ?? 0) / 1e6;
      },
    };
  }
  const script = `const t = performance.now(); const r = await fetch(${JSON.stringify(url)}); let n = 0; for await (const c of r.body) n += c.byteLength; console.log(n, n / ((performance.now() - t) / 1000));`;
  return {
    command: `${direct ? "env -u HTTP_PROXY -u http_proxy " : ""}'${process.execPath}' -e '${script}'`,
    parse: (output) => {
      const [size, speed] = output.trim().split(" ").map(Number);
      if (size !== DOWNLOAD_BYTES) throw new Error(`downloaded ${size} bytes: ${output}`);
      return (speed ?? 0) / 1e6;
    },
  };
}

/** A project like a small real one: a repository with a commit, 200 folders of sources, a nested clone. */
function makeProject(work: string): void {
  for (let i = 0; i < 200; i++) {
    mkdirSync(join(work, "src", `m${i % 20}`, `d${i}`), { recursive: true });
    writeFileSync(join(work, "src", `m${i % 20}`, `d${i}`, "index.ts"), "export {};\n");
  }
  const git = (...args: string[]) =>
    Bun.spawnSync(
      ["git", "-c", "user.name=b", "-c", "user.email=b@example.invalid", "-c", "init.defaultBranch=main", ...args],
      { cwd: work, env: { PATH: process.env.PATH ?? "" } },
    );
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "bench");
  git("clone", "-q", ".", "vendor/lib");
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const work = mkdtempSync(join(tmpdir(), "garuda-bench-sandbox-"));
  const home = mkdtempSync(join(tmpdir(), "garuda-bench-home-"));
  makeProject(work);
  const selfCommand = [process.execPath, join(import.meta.dir, "../src/sandbox/bridgeMain.ts")];
  let executor: ProcessExecutor | undefined;
  let unguarded: ProcessExecutor | undefined;
  let bridged: ProcessExecutor | undefined;
  let relayed: ProcessExecutor | undefined;
  let jsRelayed: ProcessExecutor | undefined;
  const server = await startServer();
  const bareRelay: BareRelay = startBareRelay(server.port);
  const proxy = await startEgressProxy({
    allow: [`bench.test:${server.port}`],
    resolve: async () => ["127.0.0.1"],
    tcp: true,
  });
  // The same proxy without its native relay (nativeRelay.ts): every byte through relay.ts.
  const jsProxy = await startEgressProxy({
    allow: [`bench.test:${server.port}`],
    resolve: async () => ["127.0.0.1"],
    tcp: true,
    nativeRelay: false,
  });
  try {
    const serveProxy = (socketPath: string, fd: number) =>
      socketPath === proxy.socketPath ? proxy.serve(fd) : undefined;
    const serveJsProxy = (socketPath: string, fd: number) =>
      socketPath === jsProxy.socketPath ? jsProxy.serve(fd) : undefined;
    executor = await createExecutor({ root: work, home, selfCommand, serveProxy });
    jsRelayed = await createExecutor({ root: work, home, selfCommand, gitGuard: false, serveProxy: serveJsProxy });
    unguarded = await createExecutor({ root: work, home, selfCommand, gitGuard: false });
    bridged = await createExecutor({ root: work, home, selfCommand, gitGuard: false, networkRelay: "process" });
    relayed = await createExecutor({ root: work, home, selfCommand, gitGuard: false });
    const bare = unguarded;
    const sandbox = executor.sandbox;
    if (!sandbox.available) throw new Error(`no OS sandbox: ${sandbox.reason}. Fix: ${sandbox.fix}`);
    const e = executor;
    const offline: SandboxSpec = e.spec();
    const proxied: SandboxSpec = e.spec({ network: proxy.network });
    console.log(
      `bun ${Bun.version}, ${process.platform}-${process.arch}, ${availableParallelism()} cores, sandbox ${sandbox.kind}`,
    );

    console.log(`\n1. one \`true\` through the Executor: ${options.rounds} interleaved rounds (+3 warm-up)`);
    const tasks: Task[] = [
      { name: "host", run: () => timed(() => e.run({ command: "true", cwd: work, sandbox: null })) },
      { name: "sandbox (no network)", run: () => timed(() => e.run({ command: "true", cwd: work, sandbox: offline })) },
      {
        name: "sandbox + proxy (session network)",
        run: () => timed(() => e.run({ command: "true", cwd: work, sandbox: proxied })),
      },
      {
        name: "sandbox (no network), git guard off",
        run: () => timed(() => bare.run({ command: "true", cwd: work, sandbox: bare.spec() })),
      },
    ];
    const results = await interleave(tasks, { rounds: options.rounds });
    const host = results[0]?.stats.wallMs?.median ?? Number.NaN;
    console.log(
      formatTable(
        ["command", "wall ms median [p10–p90]", "extra ms (median)"],
        results.map((r) => [
          r.name,
          formatStat(r.stats.wallMs),
          r.name === "host" ? "–" : ((r.stats.wallMs?.median ?? Number.NaN) - host).toFixed(1),
        ]),
      ),
    );

    console.log(
      `\n2. ${DOWNLOAD_BYTES / 2 ** 20} MiB download with ${options.client} from a loopback server (separate process): ${options.downloads} interleaved rounds (+1 warm-up)`,
    );
    const url = `http://bench.test:${server.port}/big`;
    const directUrl = `http://127.0.0.1:${server.port}/big`;
    const speedTask = (
      name: string,
      spec: SandboxSpec | null,
      target: string,
      direct: boolean,
      env: Record<string, string> = {},
      through: ProcessExecutor = e,
    ): Task => {
      const { command, parse: read } = downloadCommand(options.client, target, direct);
      return {
        name,
        run: async () => {
          const cpu = process.cpuUsage();
          const machine = machineTicks();
          const serverTicks = processTicks(server.pid);
          const result = await through.run({ command, cwd: work, sandbox: spec, env });
          const used = process.cpuUsage(cpu);
          const after = machineTicks();
          if (result.exitCode !== 0) throw new Error(`${name}: exit ${result.exitCode}: ${result.output}`);
          // this process is the proxy: its CPU time is what relaying the download cost Garuda. The
          // machine's busy share says whether the cores were the limit (100%: every core busy).
          return {
            mbPerS: read(result.output),
            garudaCpuMs: (used.user + used.system) / 1000,
            serverCpuMs: ((processTicks(server.pid) - serverTicks) * 1000) / TICKS_PER_SECOND,
            machineBusyPct: (100 * (after.busy - machine.busy)) / Math.max(1, after.total - machine.total),
          };
        },
      };
    };
    const tcpProxy = `http://garuda:${proxy.token}@127.0.0.1:${proxy.tcpPort}`;
    const tcpJsProxy = `http://garuda:${jsProxy.token}@127.0.0.1:${jsProxy.tcpPort}`;
    const jsProxied: SandboxSpec = e.spec({ network: jsProxy.network });
    const downloads = await interleave(
      [
        speedTask("host, direct", null, directUrl, true),
        speedTask("host, through the proxy, JS relay", null, url, false, {
          HTTP_PROXY: tcpJsProxy,
          http_proxy: tcpJsProxy,
        }),
        speedTask("host, through the proxy, native relay", null, url, false, {
          HTTP_PROXY: tcpProxy,
          http_proxy: tcpProxy,
        }),
        speedTask("sandbox, bridge process + proxy (JS relays)", proxied, url, false, {}, bridged),
        speedTask("sandbox, Garuda relays to the proxy", proxied, url, false, {}, relayed),
        speedTask("sandbox, proxy in the namespace, JS relay (before)", jsProxied, url, false, {}, jsRelayed),
        speedTask("sandbox, proxy in the namespace, native relay (after)", proxied, url, false),
        speedTask(
          "host, a bare relay (C, no proxy, no checks): the reference",
          null,
          `http://127.0.0.1:${bareRelay.port}/big`,
          true,
        ),
      ],
      { rounds: options.downloads, warmup: 1 },
    );
    console.log(
      formatTable(
        ["path", "MB/s median [p10–p90]", "proxy CPU ms per download", "server CPU ms", "machine busy %"],
        downloads.map((r) => [
          r.name,
          formatStat(r.stats.mbPerS, 0),
          r.name === "host, direct" ? "–" : formatStat(r.stats.garudaCpuMs, 0),
          formatStat(r.stats.serverCpuMs, 0),
          formatStat(r.stats.machineBusyPct, 0),
        ]),
      ),
    );

    const sandboxExtra = (results[1]?.stats.wallMs?.median ?? Number.NaN) - host;
    const guardExtra =
      (results[1]?.stats.wallMs?.median ?? Number.NaN) - (results[3]?.stats.wallMs?.median ?? Number.NaN);
    const bridgeExtra = (results[2]?.stats.wallMs?.median ?? Number.NaN) - host;
    const direct = downloads[0]?.stats.mbPerS?.median ?? Number.NaN;
    const shareOf = (at: number) => (downloads[at]?.stats.mbPerS?.median ?? Number.NaN) / direct;
    const share = shareOf(6);
    const verdict = (ok: boolean) => (ok ? "ok" : "OVER TARGET");
    console.log("\ntargets:");
    console.log(
      `  sandboxed \`true\` ≤ ${EXTRA_MS_TARGET} ms extra: ${sandboxExtra.toFixed(1)} ms ${verdict(sandboxExtra <= EXTRA_MS_TARGET)}`,
    );
    console.log(
      `  (behind the proxy, joining the session's network with nsenter: ${bridgeExtra.toFixed(1)} ms extra ${verdict(bridgeExtra <= EXTRA_MS_TARGET)})`,
    );
    console.log(`  (of which the git guard, on vs off in the same rounds: ${guardExtra.toFixed(1)} ms)`);
    console.log(
      `  proxied throughput ≥ ${THROUGHPUT_TARGET * 100}% of direct: ${(share * 100).toFixed(0)}% ${verdict(share >= THROUGHPUT_TARGET)}`,
    );
    const pct = (at: number) => `${(shareOf(at) * 100).toFixed(0)}%`;
    console.log(
      `  (JS relay in the namespace before: ${pct(5)}; bridge process: ${pct(3)}; Garuda relaying: ${pct(4)}; the proxy alone on the host: JS ${pct(1)}, native ${pct(2)})`,
    );
    console.log(
      `  (a bare relay on this machine, no proxy and no checks: ${pct(7)}; the proxy in the namespace passes ${((share / shareOf(7)) * 100).toFixed(0)}% of what it does)`,
    );
  } finally {
    await executor?.shutdown();
    await unguarded?.shutdown();
    await bridged?.shutdown();
    await relayed?.shutdown();
    await jsRelayed?.shutdown();
    await proxy.close();
    await jsProxy.close();
    bareRelay.stop();
    server.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
