// What the OS sandbox costs: the median extra wall time of one sandboxed `true` over a bare spawn
// of the same shell command (Bun.spawn of `bash -c true`, no Executor) and over the same command
// on the host through the Executor (its keeper included), 50 interleaved runs, what the git guard adds
// to it (the same sandboxed `true` through an executor without the guard, same rounds), and the throughput of a
// 100 MB download from a loopback HTTP server through the egress proxy from inside the sandbox,
// against the same download made directly on the host. The sandboxed download runs both ways a
// command reaches the proxy (sessionNetwork.ts), in the same rounds: the session network, whose
// listening socket the proxy serves itself (what a session does), and the fallback without
// nsenter, a bridge process per command relaying to the proxy's Unix socket. Every byte goes
// through the JS relay (relay.ts) after the proxy's checks.
//
//   bun bench/sandbox.ts [--rounds N] [--downloads N] [--client curl|bun] [--commands-only] [--before <src dir>]
//
// --before: the same sandboxed `true` through an executor of another checkout's src/ (e.g.
// `git archive <commit> src | tar -x -C dir`), in the same rounds: before and after from one run.
//
// Targets: ≤ 20 ms extra per sandboxed command over a bare spawn (issue 35.5); ≥ 500 MB/s through
// the session network (four times a gigabit link: issue 30.8).
//
// Every path uses the same client (curl when installed, else Bun's fetch; --client picks) and the
// same server process, so the differences are what the relays and the proxy cost. Read it with the
// cores in mind: each relay reads and writes every byte (two kernel copies, plus Bun's copy of each
// read into a fresh buffer) on the same cores as the client and the server.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startEgressProxy } from "../src/sandbox/egressProxy.ts";
import { createExecutor } from "../src/sandbox/executor.ts";
import { statFields } from "../src/sandbox/procStat.ts";
import type { ProcessExecutor, SandboxSpec } from "../src/sandbox/types.ts";
import { type Task, formatStat, formatTable, interleave } from "./interleave.ts";

const EXTRA_MS_TARGET = 20;
const BARE = "bare spawn (bash -c true, no Executor)";
const HOST = "host, through the Executor";
const SANDBOX = "sandbox (no network)";
const PROXIED = "sandbox + proxy (session network)";
const UNGUARDED = "sandbox (no network), git guard off";
const THROUGHPUT_TARGET_MB_S = 500;
const DOWNLOAD_BYTES = 100 * 1024 * 1024;
/** USER_HZ: Linux reports process CPU in /proc in hundredths of a second. */
const TICKS_PER_SECOND = 100;

type Client = "curl" | "bun";

interface Options {
  rounds: number;
  downloads: number;
  client: Client;
  commandsOnly: boolean;
  before?: string;
}

function parse(argv: string[]): Options {
  let rounds = 50;
  let commandsOnly = false;
  let before: string | undefined;
  let downloads = 15;
  let client: Client = Bun.which("curl") ? "curl" : "bun";
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--rounds") rounds = Number(argv[++i]);
    else if (arg === "--downloads") downloads = Number(argv[++i]);
    else if (arg === "--client" && (argv[i + 1] === "curl" || argv[i + 1] === "bun")) client = argv[++i] as Client;
    else if (arg === "--commands-only") commandsOnly = true;
    else if (arg === "--before" && argv[i + 1]) before = resolve(argv[++i] as string);
    else
      throw new Error(
        `unknown argument ${arg}; usage: bun bench/sandbox.ts [--rounds N] [--downloads ` +
          `N] [--client curl|bun] [--commands-only] [--before <src dir>]`,
      );
  }
  if (!(rounds > 0 && downloads > 0)) throw new Error("--rounds and --downloads need positive numbers");
  if (client === "curl" && !Bun.which("curl")) throw new Error("--client curl: curl is not installed");
  return { rounds, downloads, client, commandsOnly, ...(before && { before }) };
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

/**
 * Before each timed command: what the previous one left (a keeper's Bun exiting, a namespace the
 * kernel tears down after bwrap is gone) would otherwise land in the next one's time, and with a
 * fixed order of tasks always in the same task's.
 */
const SETTLE_MS = 30;

const timed = async (
  run: () => Promise<{ exitCode: number | null; output: string }>,
): Promise<Record<string, number>> => {
  await Bun.sleep(SETTLE_MS);
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
  const fields = statFields(readFileSync(`/proc/${pid}/stat`, "utf8"));
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
      command:
        `curl -sS ${direct ? "--noproxy '*' " : ""}-o /dev/null -w '%{size_download} ` + `%{speed_download}' '${url}'`,
      parse: (output) => {
        const [size, speed] = output.trim().split(" ").map(Number);
        if (size !== DOWNLOAD_BYTES) throw new Error(`downloaded ${size} bytes, expected ${DOWNLOAD_BYTES}: ${output}`);
        return (speed ?? 0) / 1e6;
      },
    };
  }
  const script =
    `const t = performance.now(); const r = await fetch(${JSON.stringify(url)}); ` +
    `let n = 0; for await (const c of r.body) n += c.byteLength; console.log(n, n / ` +
    `((performance.now() - t) / 1000));`;
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
  let earlier: ProcessExecutor | undefined;
  const server = await startServer();
  const proxy = await startEgressProxy({
    allow: [`bench.test:${server.port}`],
    resolve: async () => ["127.0.0.1"],
    tcp: true,
  });
  try {
    const serveProxy = (socketPath: string, fd: number) =>
      socketPath === proxy.socketPath ? proxy.serve(fd) : undefined;
    executor = await createExecutor({ root: work, home, selfCommand, serveProxy });
    unguarded = await createExecutor({ root: work, home, selfCommand, gitGuard: false, serveProxy });
    bridged = await createExecutor({ root: work, home, selfCommand, gitGuard: false, serveProxy, nsenter: null });
    if (options.before) {
      const { createExecutor: createBefore } = (await import(
        join(options.before, "sandbox/executor.ts")
      )) as typeof import("../src/sandbox/executor.ts");
      const beforeSelf = [process.execPath, join(options.before, "sandbox/bridgeMain.ts")];
      earlier = await createBefore({ root: work, home, selfCommand: beforeSelf, serveProxy });
    }
    const bare = unguarded;
    const sandbox = executor.sandbox;
    if (!sandbox.available) throw new Error(`no OS sandbox: ${sandbox.reason}. Fix: ${sandbox.fix}`);
    const e = executor;
    const offline: SandboxSpec = e.spec();
    const proxied: SandboxSpec = e.spec({ network: proxy.network });
    console.log(
      `bun ${Bun.version}, ${process.platform}-${process.arch}, ` +
        `${availableParallelism()} cores, sandbox ${sandbox.kind}`,
    );

    console.log(`\n1. one \`true\`: ${options.rounds} interleaved rounds (+3 warm-up)`);
    const shell = ["/bin/bash", "/usr/bin/bash"].find((path) => Bun.file(path).size > 0) ?? "/bin/sh";
    const tasks: Task[] = [
      {
        name: BARE,
        run: () =>
          timed(async () => {
            const child = Bun.spawn([shell, "-c", "true"], { cwd: work, stdout: "pipe", stderr: "pipe" });
            const output = await new Response(child.stdout).text();
            return { exitCode: await child.exited, output };
          }),
      },
      { name: HOST, run: () => timed(() => e.run({ command: "true", cwd: work, sandbox: null })) },
      { name: SANDBOX, run: () => timed(() => e.run({ command: "true", cwd: work, sandbox: offline })) },
      { name: PROXIED, run: () => timed(() => e.run({ command: "true", cwd: work, sandbox: proxied })) },
      { name: UNGUARDED, run: () => timed(() => bare.run({ command: "true", cwd: work, sandbox: bare.spec() })) },
    ];
    const before = earlier;
    if (before)
      tasks.push({
        name: `${SANDBOX}, ${options.before}`,
        run: () => timed(() => before.run({ command: "true", cwd: work, sandbox: before.spec() })),
      });
    const results = await interleave(tasks, { rounds: options.rounds });
    const median = (name: string) => results.find((r) => r.name === name)?.stats.wallMs?.median ?? Number.NaN;
    const spawn = median(BARE);
    console.log(
      formatTable(
        ["command", "wall ms median [p10–p90]", "extra ms over a bare spawn (median)"],
        results.map((r) => [
          r.name,
          formatStat(r.stats.wallMs),
          r.name === BARE ? "–" : ((r.stats.wallMs?.median ?? Number.NaN) - spawn).toFixed(1),
        ]),
      ),
    );
    const verdict = (ok: boolean) => (ok ? "ok" : "OVER TARGET");
    const sandboxExtra = median(SANDBOX) - spawn;
    const bridgeExtra = median(PROXIED) - spawn;
    console.log("\ntargets:");
    console.log(
      `  sandboxed \`true\` ≤ ${EXTRA_MS_TARGET} ms over a bare spawn: ` +
        `${sandboxExtra.toFixed(1)} ms ${verdict(sandboxExtra <= EXTRA_MS_TARGET)}`,
    );
    console.log(
      `  (behind the proxy, joining the session's network with nsenter: ` +
        `${bridgeExtra.toFixed(1)} ms ${verdict(bridgeExtra <= EXTRA_MS_TARGET)})`,
    );
    console.log(
      `  (the git guard's part, on vs off in the same rounds: ` +
        `${(median(SANDBOX) - median(UNGUARDED)).toFixed(1)} ms; over the host command ` +
        `through the Executor: ${(median(SANDBOX) - median(HOST)).toFixed(1)} ms)`,
    );
    if (options.before)
      console.log(
        `  (before: ${options.before}'s sandboxed \`true\` ` +
          `${(median(`${SANDBOX}, ${options.before}`) - spawn).toFixed(1)} ms over a bare ` +
          `spawn)`,
      );
    if (options.commandsOnly) return;

    console.log(
      `\n2. ${DOWNLOAD_BYTES / 2 ** 20} MiB download with ${options.client} from a ` +
        `loopback server (separate process): ${options.downloads} interleaved rounds ` +
        `(+1 warm-up)`,
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
    const downloads = await interleave(
      [
        speedTask("host, direct", null, directUrl, true),
        speedTask("host, through the proxy", null, url, false, { HTTP_PROXY: tcpProxy, http_proxy: tcpProxy }),
        speedTask("sandbox, session network (the proxy serves its socket)", proxied, url, false),
        speedTask("sandbox, fallback without nsenter (a bridge per command)", proxied, url, false, {}, bridged),
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

    const direct = downloads[0]?.stats.mbPerS?.median ?? Number.NaN;
    const speedOf = (at: number) => downloads[at]?.stats.mbPerS?.median ?? Number.NaN;
    const sessionSpeed = speedOf(2);
    console.log(
      `  download through the session network ≥ ${THROUGHPUT_TARGET_MB_S} MB/s: ` +
        `${sessionSpeed.toFixed(0)} MB/s ` +
        `${verdict(sessionSpeed >= THROUGHPUT_TARGET_MB_S)}`,
    );
    const pct = (at: number) => `${((speedOf(at) / direct) * 100).toFixed(0)}% of direct`;
    console.log(
      `  (session network ${pct(2)}; the proxy on the host ${pct(1)}; the fallback ` +
        `bridge ${speedOf(3).toFixed(0)} MB/s, ${pct(3)})`,
    );
  } finally {
    await executor?.shutdown();
    await unguarded?.shutdown();
    await bridged?.shutdown();
    await earlier?.shutdown();
    await proxy.close();
    server.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
