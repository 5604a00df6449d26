// A long day in one `garuda acp` process (issue 19.4): sessions opened and closed, each with
// prompts that run a sandboxed command and make an edit, and cancel cycles of a running
// sandboxed command. Prints the RSS curve (the agent and its whole tree), the agent's open file
// descriptors (/proc/<pid>/fd) at the start and the end, and every process left after the run.
//
//   bun bench/soak.ts [--binary <garuda>] [--sessions N] [--prompts N] [--cancels N] [--every N]
//
// --binary    another build (or a wrapper that execs one, e.g. with BUN_GARBAGE_COLLECTOR_LEVEL
//             set, to tell garbage not yet collected from memory still referenced)
// --sessions  sessions opened and closed one after another (default 100)
// --prompts   prompts in all, spread evenly over the sessions (default 1,000)
// --cancels   cancel cycles in all: a prompt whose `sleep 60` runs in the sandbox, then
//             session/cancel (default 100), spread over the sessions
// --every     a curve point every N prompts (default 10)
//
// Targets: agent RSS after the run at most 10 % above the first curve point (after the first
// --every prompts); fds back to their count after initialize; no process left. A benchmark that reports, not a timed
// test.
//
// The compiled binary (dist/garuda, rebuilt when older than src/) is driven by the ACP SDK's
// client (test/support/acpAgent.ts) against the mock model in this process
// (test/support/mockAnthropic.ts); edits are approved "once" as an editor would.
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { DIST, ROOT, binaryName, buildHost, hostOs, staleReason } from "../scripts/buildTargets.ts";
import { descendants } from "../src/sandbox/processTree.ts";
import { startAgent } from "../test/support/acpAgent.ts";
import { startMockAnthropic } from "../test/support/mockAnthropic.ts";
import type { MockResponse } from "../test/support/mockAnthropicScript.ts";
import { MiB, alive, commandName, statusBytes, treeSample } from "./acpPeer.ts";

interface Options {
  binary?: string;
  sessions: number;
  prompts: number;
  cancels: number;
  every: number;
}

function parse(argv: string[]): Options {
  const options: Options = { sessions: 100, prompts: 1000, cancels: 100, every: 10 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = (argv[i] ?? "").split("=", 2);
    if (flag === "--binary") {
      options.binary = inline ?? argv[++i];
      if (!options.binary || !existsSync(options.binary)) throw new Error(`--binary: no file ${options.binary ?? ""}`);
      continue;
    }
    const key = flag?.replace(/^--/, "") as Exclude<keyof Options, "binary">;
    if (!flag?.startsWith("--") || !(key in options))
      throw new Error(
        `unknown argument ${argv[i]}; usage: bun bench/soak.ts [--binary <garuda>] ` +
          `[--sessions N] [--prompts N] [--cancels N] [--every N]`,
      );
    const value = Number(inline ?? argv[++i]);
    if (!Number.isInteger(value) || value < (key === "cancels" ? 0 : 1))
      throw new Error(`--${key} needs a ${key === "cancels" ? "non-negative" : "positive"} integer`);
    options[key] = value;
  }
  if (options.prompts < options.sessions)
    throw new Error("--prompts must be at least --sessions (each session has a prompt)");
  return options;
}

/** The state letter of /proc/<pid>/stat (Z: exited, not reaped by its parent). */
const stateOf = (pid: number): string => {
  try {
    return /\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, "utf8"))?.[1] ?? "?";
  } catch {
    return "gone";
  }
};

const parentOf = (pid: number): string => {
  try {
    return /\) \S (\d+)/.exec(readFileSync(`/proc/${pid}/stat`, "utf8"))?.[1] ?? "?";
  } catch {
    return "gone";
  }
};

/**
 * When the process started (clock ticks after boot, /proc/<pid>/stat field 22): tells a pid reused by another process
 * from the one seen.
 */
const startTicks = (pid: number): string => {
  try {
    return (
      readFileSync(`/proc/${pid}/stat`, "utf8")
        .replace(/^.*\) /s, "")
        .split(" ")[19] ?? "?"
    );
  } catch {
    return "gone";
  }
};

/** The CPU seconds (user + system) the process has used, from /proc/<pid>/stat. */
const cpuSeconds = (pid: number): number => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
      .replace(/^.*\) /s, "")
      .split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
};

/** Median and maximum of a list of milliseconds, for a line of figures. */
const spread = (ms: number[]): string => {
  if (ms.length === 0) return "none";
  const sorted = [...ms].sort((a, b) => a - b);
  return (
    `median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(0)} ms, max ` +
    `${sorted.at(-1)?.toFixed(0)} ms (${ms.length})`
  );
};

const fdCount = (pid: number): number => {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return Number.NaN;
  }
};

/** What an fd points at, grouped ("socket", "pipe", "anon_inode:[eventfd]", a path …), to say what grew. */
function fdKinds(pid: number): Map<string, number> {
  const kinds = new Map<string, number>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target = "?";
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {}
    const kind = target
      .replace(/:\[\d+\]$/, "")
      .replace(/^\/.*/, (path) => (path.startsWith("/proc") || path.startsWith("/dev") ? path : "file"));
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return kinds;
}

/** The paths of the regular files the agent holds open. */
function openFiles(pid: number): string[] {
  const paths: string[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.startsWith("/") && !target.startsWith("/dev") && !target.startsWith("/proc"))
        paths.push(`${fd}: ${target}`);
    } catch {}
  }
  return paths;
}

const tool = (name: string, id: string, input: unknown): MockResponse => ({
  steps: [{ type: "tool_use", name, id, input }],
});

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const os = hostOs();
  if (!os) throw new Error(`no Garuda build for ${process.platform}`);
  const garuda = options.binary ?? join(DIST, binaryName(os));
  if (options.binary === undefined && staleReason(garuda)) {
    console.log(`building ${relative(ROOT, garuda)} …`);
    await buildHost(garuda);
  }
  const work = mkdtempSync(join(tmpdir(), "garuda-bench-soak-"));
  const root = mkdtempSync(join(work, "project-"));
  await using mock = startMockAnthropic({ apiKey: "sk-ant-process-test" });
  const agent = startAgent(garuda, mock, root, work);
  const pid = agent.proc.pid;
  // Each pid seen below the agent, with its start time: on a busy machine a long run wraps the pid
  // space, and a pid of ours may belong to someone else's process by the end.
  const seen = new Map<string, number>();
  const noteTree = () => {
    for (const child of descendants(pid)) seen.set(`${child} ${startTicks(child)}`, child);
  };
  const sampler = setInterval(noteTree, 50);
  const curve: {
    prompts: number;
    session: number;
    agentMiB: number;
    anonMiB: number;
    treeMiB: number;
    fds: number;
    children: number;
  }[] = [];
  let prompts = 0;
  let cancels = 0;
  // What each kind of request took: a session's first prompt comes right after session/new (and
  // after the previous session's close), so it shows what a close or a trim costs the next turn.
  const took = {
    firstPrompt: [] as number[],
    laterPrompt: [] as number[],
    sessionNew: [] as number[],
    sessionClose: [] as number[],
  };
  const timed = async <T>(into: number[], call: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const value = await call();
    into.push(performance.now() - t0);
    return value;
  };
  const point = (session: number) => {
    const tree = treeSample(pid);
    curve.push({
      prompts,
      session,
      agentMiB: MiB(statusBytes(pid, "VmRSS")),
      anonMiB: MiB(statusBytes(pid, "RssAnon")),
      treeMiB: MiB(tree.rss),
      fds: fdCount(pid),
      children: tree.children.length,
    });
  };
  const started = performance.now();
  try {
    await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const fdsStart = fdCount(pid);
    const kindsStart = fdKinds(pid);
    const rssStart = MiB(statusBytes(pid, "VmRSS"));
    // What the first session opens once and keeps (a worker, the model's keep-alive connection)
    // is not growth: the fds after it closed are the second reference.
    let fdsFirstClosed = Number.NaN;
    let kindsFirstClosed = new Map<string, number>();
    console.log(
      `garuda acp pid ${pid}: ${options.sessions} sessions, ${options.prompts} ` +
        `prompts, ${options.cancels} cancel cycles; after initialize ` +
        `${rssStart.toFixed(1)} MiB RSS, ${fdsStart} fds`,
    );

    for (let s = 0; s < options.sessions; s++) {
      const file = `notes-${s}.txt`;
      writeFileSync(join(root, file), "count 0\n");
      const { sessionId } = await timed(took.sessionNew, () =>
        agent.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] }),
      );
      const mine =
        Math.floor(((s + 1) * options.prompts) / options.sessions) -
        Math.floor((s * options.prompts) / options.sessions);
      const myCancels =
        Math.floor(((s + 1) * options.cancels) / options.sessions) -
        Math.floor((s * options.cancels) / options.sessions);
      for (let p = 0; p < mine; p++) {
        const tag = `s${s}p${p}`;
        // A sandboxed command, the read an edit needs (first prompt), the edit, an answer.
        mock.enqueue(
          tool("bash", `toolu_cmd_${tag}`, { command: `echo ${tag} && ls -1 | wc -l` }),
          ...(p === 0 ? [tool("read_file", `toolu_read_${tag}`, { path: file })] : []),
          tool("edit_file", `toolu_edit_${tag}`, {
            path: file,
            old_string: `count ${p}`,
            new_string: `count ${p + 1}`,
          }),
          { steps: [{ type: "text", text: `Done ${tag}.`, fragments: 3 }] },
        );
        const answer = await timed(p === 0 ? took.firstPrompt : took.laterPrompt, () =>
          agent.agent.request(acp.methods.agent.session.prompt, {
            sessionId,
            prompt: [{ type: "text", text: `Step ${tag}.` }],
          }),
        );
        if (answer.stopReason !== "end_turn") throw new Error(`prompt ${tag} ended ${answer.stopReason}`);
        if (mock.pending !== 0)
          throw new Error(`prompt ${tag} left ${mock.pending} scripted responses unused (a tool failed?)`);
        prompts++;
        if (prompts % options.every === 0) point(s);
      }
      for (let c = 0; c < myCancels; c++) {
        const seconds = 60 + (cancels % 30);
        mock.enqueue(tool("bash", `toolu_sleep_${s}_${c}`, { command: `sleep ${seconds}` }));
        const turn = agent.agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "Wait." }],
        });
        const sleeping = await waitFor(
          () => descendants(pid).filter((p) => commandName(p) === "sleep"),
          20_000,
          `sleep ${seconds} to start`,
        );
        await agent.agent.notify(acp.methods.agent.session.cancel, { sessionId });
        const answer = await turn;
        if (answer.stopReason !== "cancelled") throw new Error(`cancel cycle ${cancels} ended ${answer.stopReason}`);
        await waitFor(() => (sleeping.some(alive) ? undefined : true), 5_000, "the cancelled sleep to end");
        cancels++;
      }
      await timed(took.sessionClose, () => agent.agent.request(acp.methods.agent.session.close, { sessionId }));
      rmSync(join(root, file), { force: true });
      if (s === 0) {
        fdsFirstClosed = fdCount(pid);
        kindsFirstClosed = fdKinds(pid);
      }
    }
    const sessionsS = (performance.now() - started) / 1000;
    // What a closed session started ends with it. Processes the agent adopted as subreaper
    // (e.g. a killed bwrap's inner half) are reaped by its sweep every 5 s (processGuards.ts),
    // so zombies may show for up to ~10 s: wait that long, and say how long it took.
    const settleStart = performance.now();
    await waitFor(
      () => (descendants(pid).length === 0 ? true : undefined),
      15_000,
      "the agent's children to end",
    ).catch(() => undefined);
    const settleS = (performance.now() - settleStart) / 1000;
    Bun.gc(true);
    noteTree();
    const fdsEnd = fdCount(pid);
    const kindsEnd = fdKinds(pid);
    const filesEnd = openFiles(pid);
    const childrenEnd = descendants(pid).map((p) => `${p} ${commandName(p)} (${stateOf(p)}, parent ${parentOf(p)})`);
    point(options.sessions - 1);
    const elapsed = (performance.now() - started) / 1000;
    const agentCpu = cpuSeconds(pid);

    agent.proc.stdin.end();
    const code = await agent.proc.exited;
    clearInterval(sampler);
    await Bun.sleep(200);
    const left = [...seen]
      .filter(([key, p]) => alive(p) && key === `${p} ${startTicks(p)}`)
      .map(([, p]) => `${p} ${commandName(p)}`);

    console.log(
      `\n${prompts} prompts, ${cancels} cancel cycles in ${sessionsS.toFixed(1)} s ` +
        `(${((sessionsS * 1000) / Math.max(prompts, 1)).toFixed(0)} ms a prompt, ` +
        `cancels included; ${elapsed.toFixed(1)} s with the wait for the last ` +
        `children); the agent used ${agentCpu.toFixed(1)} s of CPU`,
    );
    console.log(`  a session's first prompt: ${spread(took.firstPrompt)}; later prompts: ${spread(took.laterPrompt)}`);
    console.log(`  session/new: ${spread(took.sessionNew)}; session/close: ${spread(took.sessionClose)}`);
    console.log("\nprompts  session  agent RSS MiB  of it anon  tree RSS MiB  agent fds  children (zombies included)");
    for (const c of curve) {
      console.log(
        `${String(c.prompts).padStart(7)}  ${String(c.session + 1).padStart(7)}  ` +
          `${c.agentMiB.toFixed(1).padStart(13)}  ${c.anonMiB.toFixed(1).padStart(10)}  ` +
          `${c.treeMiB.toFixed(1).padStart(12)}  ${String(c.fds).padStart(9)}  ` +
          `${String(c.children).padStart(8)}`,
      );
    }
    const first = curve[0];
    const last = curve.at(-1);
    const growth = first && last ? (last.agentMiB - first.agentMiB) / first.agentMiB : Number.NaN;
    const diff = (from: Map<string, number>) =>
      [...new Set([...from.keys(), ...kindsEnd.keys()])]
        .map((k) => [k, (kindsEnd.get(k) ?? 0) - (from.get(k) ?? 0)] as const)
        .filter(([, d]) => d !== 0)
        .map(([k, d]) => `${k} ${d > 0 ? "+" : ""}${d}`)
        .join(", ") || "no change";
    console.log("\nfigures:");
    console.log(
      `  agent RSS: ${rssStart.toFixed(1)} MiB after initialize, ` +
        `${first?.agentMiB.toFixed(1)} after ${first?.prompts} prompts, ` +
        `${last?.agentMiB.toFixed(1)} at the end ` +
        `(${growth >= 0 ? "+" : ""}${(growth * 100).toFixed(1)} %) ` +
        `${growth <= 0.1 ? "ok" : "OVER TARGET (+10 %)"}`,
    );
    console.log(
      `  fds: ${fdsStart} after initialize, ${fdsFirstClosed} after the first session ` +
        `closed, ${fdsEnd} after the last ` +
        `${fdsEnd <= fdsStart ? "ok" : fdsEnd <= fdsFirstClosed ? "ok after the first session" : "GREW"}`,
    );
    console.log(
      `    end vs initialize: ${diff(kindsStart)}; end vs the first session closed: ${diff(kindsFirstClosed)}`,
    );
    if (fdsEnd > fdsFirstClosed) console.log(`    files open at the end: ${filesEnd.join(", ")}`);
    const children =
      childrenEnd.length === 0
        ? `none (the last went ${settleS.toFixed(1)} s after the close)`
        : `${childrenEnd.join(", ")} after ${settleS.toFixed(1)} s`;
    console.log(`  children after the last session closed: ${children}`);
    console.log(
      `  exit ${code} after stdin closed; of ${seen.size} processes seen below the ` +
        `agent, left running: ${left.length === 0 ? "none ok" : left.join(", ")}`,
    );
  } catch (error) {
    console.error(
      `soak failed after ${prompts} prompts, ${cancels} cancels: ` +
        `${error instanceof Error ? error.message : String(error)}`,
    );
    console.error((await Promise.race([agent.stderr, Bun.sleep(500).then(() => "")])).slice(-2000));
    process.exitCode = 1;
  } finally {
    clearInterval(sampler);
    if (alive(pid)) agent.proc.kill("SIGKILL");
    await agent.proc.exited;
    agent.connection.close();
    rmSync(work, { recursive: true, force: true });
  }
}

async function waitFor<T>(get: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = get();
    if (value !== undefined && !(Array.isArray(value) && value.length === 0)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(20);
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
