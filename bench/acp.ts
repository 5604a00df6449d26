// What `garuda acp` costs an editor, against the floor of a Bun-compiled ACP agent.
//
//   bun bench/acp.ts [--rounds N] [--rebuild] [--baseline <binary>] [--start-only]
//
// --rebuild   rebuild dist/garuda first (it is rebuilt anyway when missing or older than src/)
// --baseline  also run start and the `ls` turn with another build (e.g. main's), interleaved in
//             the same rounds, so before and after come from one run (both copied the same way
//             first, so they lie alike in the page cache: bench/acpPeer.ts alikeCopy)
// --start-only  only the floors, start, the `ls` turn and 3 sessions (the guard rails and memory),
//             not the throughput tasks (10k chunks, terminal output, usage_update)
//
// These tasks, interleaved (bench/interleave.ts), each run many times:
//   floor            bench/acpFloor.ts, built here with the shipped flags (buildBinary): no
//                    dependencies, answers initialize and session/new by hand over stdio NDJSON
//   SDK floor        bench/acpSdkFloor.ts, built the same way: the ACP SDK answers both, nothing
//                    else loads (what the SDK alone costs above the floor)
//   garuda start     dist/garuda acp: initialize, session/new, stdin closed
//   garuda turn      initialize, session/new, a prompt whose model runs `ls` in the sandbox and
//                    answers; the RSS and PSS of the agent and all its children sampled from
//                    /proc, at their peak and once more 1 s after the turn (its steady state)
//   garuda 3 sessions  the same with three sessions open at once, an `ls` turn in each
//   garuda 10k       a prompt answered with 10,000 streamed text chunks
//   mock alone       the same 10,000-chunk response read straight from the mock (its own pacing)
//   terminal 10 MB,  the editor controls' costs: Zed's terminal output and the usage meter
//   usage on / off   (bench/acpControls.ts says how they are measured)
// Times are from spawn (initialize, session/new) or from sending the request (turns) to the
// answer's line arriving. The client is a plain NDJSON reader that parses every line, so its
// own cost is small and the same for every agent. The mock models run in their own processes
// (test/support/mockAnthropic.ts --loop), so their work does not share the client's thread.
//
// Guard rails of start-up (issue 30): initialize ≤ 2.5 × floor; session/new ≤ 100 ms after
// initialize; exit ≤ 100 ms after stdin closes, with nothing left running. The turn's memory is
// reported (peak and steady state), not held to a target: issue 19.2's tree RSS ≤ 80 / PSS ≤ 60 MiB
// are withdrawn. Throughput: ≥ 20,000 chunks/s; terminal output ≥ 50 MB/s with ≤ 10 MiB of RSS
// growth; usage_update per step: no measurable change in chunks/s.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import {
  DIST,
  ROOT,
  binaryName,
  buildBinary,
  buildHost,
  checkVersions,
  hostOs,
  staleReason,
} from "../scripts/buildTargets.ts";
import {
  CONTROL_TARGETS,
  TERMINAL_BYTES,
  USAGE_CHUNKS_PER_STEP,
  USAGE_STEPS,
  terminalTask,
  usageTask,
  writeTerminalScript,
} from "./acpControls.ts";
import { HAS_PROC, MiB, type MockProcess, Peer, alikeCopy, prompt, start, startMock, treeSample } from "./acpPeer.ts";
import { type Summary, type Task, type TaskResult, formatStat, formatTable, interleave } from "./interleave.ts";

const CHUNKS = 10_000;
const CHUNK_TEXT = "word ";
const MODEL = "claude-sonnet-5";
const KEY = "sk-ant-bench-not-a-real-key";

const TARGET = {
  initializeVsFloor: 2.5,
  sessionNewAfterInitializeMs: 100,
  exitMs: 100,
  chunksPerSecond: 20_000,
};

/** After the turn, how long before the steady-state sample of the tree. */
const STEADY_AFTER_MS = 1_000;

function parse(argv: string[]): { rounds: number; rebuild: boolean; startOnly: boolean; baseline?: string } {
  let rounds = 30;
  let rebuild = false;
  let startOnly = false;
  let baseline: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--rounds") rounds = Number(argv[++i]);
    else if (arg?.startsWith("--rounds=")) rounds = Number(arg.slice(9));
    else if (arg === "--rebuild") rebuild = true;
    else if (arg === "--start-only") startOnly = true;
    else if (arg === "--baseline" && argv[i + 1]) baseline = argv[++i];
    else
      throw new Error(
        `unknown argument ${arg}; usage: bun bench/acp.ts [--rounds N] [--rebuild] ` +
          `[--baseline <binary>] [--start-only]`,
      );
  }
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds needs a positive integer");
  if (baseline !== undefined && !existsSync(baseline)) throw new Error(`--baseline: no file ${baseline}`);
  return baseline === undefined ? { rounds, rebuild, startOnly } : { rounds, rebuild, startOnly, baseline };
}

// ---------------------------------------------------------------------------------------------
// Mock models, each in its own process

/** The mock's own time to serve the 10,000-chunk response to a plain reader. */
async function readMock(url: string): Promise<{ mockMs: number; deltas: number }> {
  const started = performance.now();
  const response = await fetch(`${url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": KEY, "anthropic-version": "2023-06-01" },
    body: JSON.stringify({
      model: MODEL,
      max_tokens: 64_000,
      stream: true,
      messages: [{ role: "user", content: "Stream." }],
    }),
  });
  const body = await response.text();
  const mockMs = performance.now() - started;
  return { mockMs, deltas: body.split("event: content_block_delta").length - 1 };
}

// ---------------------------------------------------------------------------------------------

const verdict = (ok: boolean) => (ok ? "ok" : "OVER TARGET");
const med = (r: TaskResult | undefined, metric: string): number => r?.stats[metric]?.median ?? Number.NaN;
const total = (r: TaskResult | undefined, metric: string): number =>
  (r?.samples[metric] ?? []).reduce((a, b) => a + b, 0);
const fmt = (s: Summary | undefined, digits = 1) => formatStat(s, digits);

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const version = checkVersions();
  const os = hostOs();
  if (!os) throw new Error(`no Garuda build for ${process.platform}`);
  const dist = join(DIST, binaryName(os));
  if (options.rebuild || staleReason(dist)) {
    console.log(`building ${relative(ROOT, dist)} …`);
    await buildHost(dist);
  }

  const work = mkdtempSync(join(tmpdir(), "garuda-bench-acp-"));
  // Against a baseline, both builds are copied the same way, so they lie alike in the page cache (alikeCopy).
  const garuda = options.baseline ? alikeCopy(dist, work, "garuda") : dist;
  const baseline = options.baseline && alikeCopy(options.baseline, work, "garuda-baseline");
  const mocks: MockProcess[] = [];
  try {
    const floor = await buildBinary({ entry: join(import.meta.dir, "acpFloor.ts"), outfile: join(work, "acp-floor") });
    const sdkFloor = await buildBinary({
      entry: join(import.meta.dir, "acpSdkFloor.ts"),
      outfile: join(work, "acp-sdk-floor"),
    });
    const project = join(work, "project");
    mkdirSync(project);
    writeFileSync(join(project, "notes.txt"), "a small project\n");

    const commandScript = join(work, "command.json");
    writeFileSync(
      commandScript,
      JSON.stringify({
        responses: [
          { steps: [{ type: "tool_use", name: "bash", id: "toolu_bench_ls", input: { command: "ls" } }] },
          { steps: [{ type: "text", text: "The project holds notes.txt.", fragments: 4 }] },
        ],
      }),
    );
    const streamScript = join(work, "stream.json");
    writeFileSync(
      streamScript,
      JSON.stringify({
        responses: [{ steps: [{ type: "text", text: CHUNK_TEXT.repeat(CHUNKS), fragments: CHUNKS }] }],
      }),
    );
    const commandMock = await startMock(commandScript);
    mocks.push(commandMock);
    const terminalScript = join(work, "terminal.json");
    writeTerminalScript(terminalScript);
    const terminalMock = await startMock(terminalScript);
    mocks.push(terminalMock);
    const streamMock = await startMock(streamScript);
    mocks.push(streamMock);

    const check = await readMock(streamMock.url);
    if (check.deltas !== CHUNKS) throw new Error(`the mock streamed ${check.deltas} text deltas, expected ${CHUNKS}`);

    /** A fresh HOME per run, as after an install: no ~/.garuda, the model and key from the environment. */
    const agentEnv = (mockUrl: string) => {
      const home = mkdtempSync(join(work, "home-"));
      return {
        home,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          ANTHROPIC_BASE_URL: mockUrl,
          ANTHROPIC_API_KEY: KEY,
          GARUDA_MODEL: MODEL,
        },
      };
    };

    const startupTask = (name: string, cmd: string[]): Task => ({
      name,
      run: async () => {
        const { home, env } = agentEnv(commandMock.url);
        const peer = new Peer(cmd, project, env);
        try {
          const { initMs, newMs } = await start(peer, project);
          const hwmMiB = MiB(peer.hwmBytes());
          const anonMiB = MiB(peer.anonBytes());
          const { exitMs, code, left } = await peer.close();
          if (code !== 0) throw new Error(`exit ${code}`);
          return { initMs, newMs, newAfterInitMs: newMs - initMs, hwmMiB, anonMiB, exitMs, left };
        } catch (error) {
          throw await peer.failure(name, error);
        } finally {
          rmSync(home, { recursive: true, force: true });
        }
      },
    });

    /** The tree at its RSS peak in the latest `ls` turn, for the breakdown. */
    let peakParts: { name: string; rss: number }[] = [];
    /**
     * `sessions` > 1: that many sessions open at once, an `ls` turn in each (each keeps its sandbox network); turnMs is
     * the first one's.
     */
    const turnTask = (name: string, binary: string, sessions = 1): Task => ({
      name,
      run: async () => {
        const { home, env } = agentEnv(commandMock.url);
        const peer = new Peer([binary, "acp"], project, env);
        try {
          peer.startSampling();
          const { sessionId } = await start(peer, project);
          const { turnMs } = await prompt(peer, sessionId, "What is in this project?");
          for (let more = 1; more < sessions; more++) {
            const created = await peer.request("session/new", { cwd: project, mcpServers: [] });
            await prompt(peer, created.result.sessionId as string, "What is in this project?");
          }
          peer.stopSampling();
          await Bun.sleep(STEADY_AFTER_MS);
          const steady = HAS_PROC ? treeSample(peer.proc.pid) : undefined;
          if (peer.agentRequests.length > 0)
            throw new Error(`unexpected requests from the agent: ${peer.agentRequests.join(", ")}`);
          const hwmMiB = MiB(peer.hwmBytes());
          const anonMiB = MiB(peer.anonBytes());
          const { exitMs, code, left } = await peer.close();
          if (code !== 0) throw new Error(`exit ${code}`);
          if (binary === garuda && sessions === 1) peakParts = peer.peakParts;
          return {
            turnMs,
            treePeakMiB: HAS_PROC ? MiB(peer.peakTreeBytes) : Number.NaN,
            treePssMiB: HAS_PROC ? MiB(peer.peakTreePss) : Number.NaN,
            steadyPssMiB: steady ? MiB(steady.pss) : Number.NaN,
            hwmMiB,
            anonMiB,
            exitMs,
            left,
          };
        } catch (error) {
          throw await peer.failure(name, error);
        } finally {
          peer.stopSampling();
          rmSync(home, { recursive: true, force: true });
        }
      },
    });
    /** The throughput tasks (left out with --start-only). */
    const throughputTasks = (): Task[] => [
      {
        name: "garuda 10k chunks",
        run: async () => {
          const { home, env } = agentEnv(streamMock.url);
          const peer = new Peer([garuda, "acp"], project, env);
          try {
            const { sessionId } = await start(peer, project);
            const { turnMs } = await prompt(peer, sessionId, "Stream.");
            if (peer.chars !== CHUNK_TEXT.length * CHUNKS)
              throw new Error(
                `the client got ${peer.chars} characters of text, expected ${CHUNK_TEXT.length * CHUNKS}`,
              );
            const hwmMiB = MiB(peer.hwmBytes());
            const anonMiB = MiB(peer.anonBytes());
            const { exitMs, code, left } = await peer.close();
            if (code !== 0) throw new Error(`exit ${code}`);
            return { turnMs, notifications: peer.chunks, hwmMiB, anonMiB, exitMs, left };
          } catch (error) {
            throw await peer.failure("garuda 10k chunks", error);
          } finally {
            rmSync(home, { recursive: true, force: true });
          }
        },
      },
      { name: "mock alone", run: async () => ({ mockMs: (await readMock(streamMock.url)).mockMs }) },
      ...[true, false].map((terminal) =>
        terminalTask(
          garuda,
          project,
          () => {
            const { home, env } = agentEnv(terminalMock.url);
            return { home, env, cleanup: () => rmSync(home, { recursive: true, force: true }) };
          },
          terminal,
        ),
      ),
      usageTask(true),
      usageTask(false),
    ];
    const tasks: Task[] = [
      startupTask("floor", [floor.outfile]),
      startupTask("SDK floor", [sdkFloor.outfile]),
      startupTask("garuda start", [garuda, "acp"]),
      turnTask("garuda turn", garuda),
      turnTask("garuda 3 sessions", garuda, 3),
      ...(options.startOnly ? [] : throughputTasks()),
      ...(baseline
        ? [
            startupTask("baseline start", [baseline, "acp"]),
            turnTask("baseline turn", baseline),
            turnTask("baseline 3 sessions", baseline, 3),
          ]
        : []),
    ];

    const rssFrom = HAS_PROC
      ? "/proc (VmRSS of the tree sampled every 5 ms; VmHWM of the agent)"
      : "nowhere: no /proc on this system";
    console.log(
      `garuda ${version} acp, bun ${Bun.version}, ` +
        `${process.platform}-${process.arch}; ${options.rounds} interleaved rounds (+3 ` +
        `warm-up); ` +
        `RSS from ${rssFrom}`,
    );
    const results = await interleave(tasks, {
      rounds: options.rounds,
      onRound: (round, rounds) => {
        if (round % 5 === 0 || round === rounds) process.stderr.write(`  round ${round}/${rounds}\n`);
      },
    });
    const by = (name: string) => results.find((r) => r.name === name);
    const floorR = by("floor");
    const startR = by("garuda start");
    const turnR = by("garuda turn");
    const streamR = by("garuda 10k chunks");
    const mockR = by("mock alone");
    const terminalR = by("garuda terminal 10 MB");
    const plainR = by("same command, no extension");
    const usageOnR = by("usage_update on");
    const usageOffR = by("usage_update off");

    console.log("\nmedian [p10–p90], ms from spawn (initialize, session/new) or from the request (turns)");
    console.log(
      formatTable(
        [
          "program",
          "initialize",
          "session/new",
          "new − init",
          "agent VmHWM MiB",
          "of it anon MiB",
          "exit after EOF",
          "left running",
        ],
        [floorR, by("SDK floor"), startR, by("baseline start")]
          .filter((r) => r !== undefined)
          .map((r) => [
            r?.name ?? "?",
            fmt(r?.stats.initMs),
            fmt(r?.stats.newMs),
            fmt(r?.stats.newAfterInitMs),
            fmt(r?.stats.hwmMiB),
            fmt(r?.stats.anonMiB),
            fmt(r?.stats.exitMs),
            String(total(r, "left")),
          ]),
      ),
    );
    console.log();
    console.log(
      formatTable(
        [
          "turn",
          "turn ms",
          "tree RSS peak MiB",
          "tree PSS peak MiB",
          `tree PSS ${STEADY_AFTER_MS / 1000} s after MiB`,
          "agent VmHWM MiB",
          "anon at end MiB",
          "exit after EOF",
          "left running",
          "chunks to the client",
        ],
        [
          [
            "`ls` in the sandbox + answer",
            fmt(turnR?.stats.turnMs),
            fmt(turnR?.stats.treePeakMiB),
            fmt(turnR?.stats.treePssMiB),
            fmt(turnR?.stats.steadyPssMiB),
            fmt(turnR?.stats.hwmMiB),
            fmt(turnR?.stats.anonMiB),
            fmt(turnR?.stats.exitMs),
            String(total(turnR, "left")),
            "–",
          ],
          ...(streamR
            ? [
                [
                  `${CHUNKS.toLocaleString("en")} text chunks`,
                  fmt(streamR.stats.turnMs),
                  "–",
                  "–",
                  "–",
                  fmt(streamR.stats.hwmMiB),
                  fmt(streamR.stats.anonMiB),
                  fmt(streamR.stats.exitMs),
                  String(total(streamR, "left")),
                  fmt(streamR.stats.notifications, 0),
                ],
              ]
            : []),
          ...(
            [
              ["three sessions, an `ls` turn in each", by("garuda 3 sessions")],
              ["baseline: `ls` in the sandbox + answer", by("baseline turn")],
              ["baseline: three sessions, an `ls` turn in each", by("baseline 3 sessions")],
            ] as const
          )
            .filter(([, r]) => r !== undefined)
            .map(([label, r]) => [
              label,
              fmt(r?.stats.turnMs),
              fmt(r?.stats.treePeakMiB),
              fmt(r?.stats.treePssMiB),
              fmt(r?.stats.steadyPssMiB),
              fmt(r?.stats.hwmMiB),
              fmt(r?.stats.anonMiB),
              fmt(r?.stats.exitMs),
              String(total(r, "left")),
              "–",
            ]),
          ...(mockR
            ? [[`mock alone (${CHUNKS.toLocaleString("en")} chunks)`, fmt(mockR.stats.mockMs), ...Array(8).fill("–")]]
            : []),
        ],
      ),
    );

    const initRatio = med(startR, "initMs") / med(floorR, "initMs");
    const newAfter = med(startR, "newAfterInitMs");
    const threeR = by("garuda 3 sessions");
    const exiting = [startR, turnR, streamR, threeR].filter((r) => r !== undefined);
    const exitWorst = Math.max(...exiting.map((r) => med(r, "exitMs")));
    const leftAll = exiting.reduce((sum, r) => sum + total(r, "left"), 0);
    const runs = exiting.reduce((sum, r) => sum + (r.stats.exitMs?.n ?? 0), 0);
    const overheadMs = med(streamR, "turnMs") - med(mockR, "mockMs");
    const chunksPerSecond = overheadMs > 0 ? CHUNKS / (overheadMs / 1000) : Number.POSITIVE_INFINITY;
    const endToEnd = CHUNKS / (med(streamR, "turnMs") / 1000);

    if (peakParts.length > 0) {
      console.log(
        `\nthe tree at its RSS peak (last \`ls\` turn): ` +
          `${peakParts.map((p) => `${p.name} ${MiB(p.rss).toFixed(1)}`).join(", ")} MiB`,
      );
    }
    console.log("\nfigures:");
    console.log(
      `  floor: initialize ${med(floorR, "initMs").toFixed(1)} ms, session/new ` +
        `${med(floorR, "newMs").toFixed(1)} ms, VmHWM ` +
        `${med(floorR, "hwmMiB").toFixed(1)} MiB, exit ` +
        `${med(floorR, "exitMs").toFixed(1)} ms (${(floor.bytes / 1e6).toFixed(1)} MB ` +
        `binary)`,
    );
    const sdkR = by("SDK floor");
    console.log(
      `  SDK floor: initialize ${med(sdkR, "initMs").toFixed(1)} ms ` +
        `(${(med(sdkR, "initMs") / med(floorR, "initMs")).toFixed(2)} × floor), ` +
        `session/new ${med(sdkR, "newMs").toFixed(1)} ms, VmHWM ` +
        `${med(sdkR, "hwmMiB").toFixed(1)} MiB`,
    );
    console.log(
      `  garuda: initialize ${med(startR, "initMs").toFixed(1)} ms ` +
        `(${initRatio.toFixed(2)} × floor), session/new ` +
        `${med(startR, "newMs").toFixed(1)} ms (${newAfter.toFixed(1)} ms after ` +
        `initialize)`,
    );
    if (threeR) {
      const ratio = (key: string) => med(threeR, key) / med(turnR, key);
      console.log(
        `  three sessions against one: tree PSS ${ratio("treePssMiB").toFixed(2)} × at ` +
          `the peak, ${ratio("steadyPssMiB").toFixed(2)} × ${STEADY_AFTER_MS / 1000} s ` +
          `after; tree RSS ${ratio("treePeakMiB").toFixed(2)} × at the peak`,
      );
    }
    if (!options.startOnly)
      console.log(
        `  10k chunks: turn ${med(streamR, "turnMs").toFixed(1)} ms − mock alone ` +
          `${med(mockR, "mockMs").toFixed(1)} ms = ${overheadMs.toFixed(1)} ms of Garuda ` +
          `→ ${Number.isFinite(chunksPerSecond) ? Math.round(chunksPerSecond).toLocaleString("en") : "∞"} ` +
          `chunks/s (end to end with the mock: ` +
          `${Math.round(endToEnd).toLocaleString("en")} chunks/s, ` +
          `${med(streamR, "notifications").toFixed(0)} agent_message_chunk notifications)`,
      );

    const mbPerS = med(terminalR, "streamMbPerS");
    const growth = med(terminalR, "rssGrowthMiB");
    const plainGrowth = med(plainR, "rssGrowthMiB");
    const withUsage = med(usageOnR, "chunksPerS");
    const withoutUsage = med(usageOffR, "chunksPerS");
    const usageChange = (withUsage - withoutUsage) / withoutUsage;
    const noiseOff =
      ((usageOffR?.stats.chunksPerS?.p90 ?? Number.NaN) - (usageOffR?.stats.chunksPerS?.p10 ?? Number.NaN)) /
      withoutUsage;
    if (!options.startOnly) {
      console.log(
        `  terminal output: ${(TERMINAL_BYTES / 1e6).toFixed(0)} MB streamed in ` +
          `${med(terminalR, "streamMs").toFixed(1)} ms from the first terminal_output to ` +
          `terminal_exit = ${mbPerS.toFixed(1)} MB/s ` +
          `[${fmt(terminalR?.stats.streamMbPerS)}]; ` +
          `${med(terminalR, "terminalMs").toFixed(1)} ms = ` +
          `${med(terminalR, "mbPerS").toFixed(1)} MB/s from the tool_call (the sandbox's ` +
          `start: first output ${med(terminalR, "firstMs").toFixed(1)} ms after it); ` +
          `${med(terminalR, "updates").toFixed(0)} terminal_output updates`,
      );
      console.log(
        `  agent VmRSS while it streams: ${med(terminalR, "rssBeforeMiB").toFixed(1)} ` +
          `MiB before, growth ${growth.toFixed(1)} MiB ` +
          `[${fmt(terminalR?.stats.rssGrowthMiB)}]; the same command for a client without ` +
          `the extension: growth ${plainGrowth.toFixed(1)} MiB ` +
          `[${fmt(plainR?.stats.rssGrowthMiB)}], ${med(plainR, "terminalMs").toFixed(1)} ` +
          `ms`,
      );
      console.log(
        `  usage_update per step (${USAGE_STEPS} responses × ${USAGE_CHUNKS_PER_STEP} ` +
          `chunks, in process): ${Math.round(withUsage).toLocaleString("en")} chunks/s ` +
          `with, ${Math.round(withoutUsage).toLocaleString("en")} without ` +
          `(${(usageChange * 100).toFixed(1)} %; the p10–p90 spread without is ` +
          `${(noiseOff * 100).toFixed(1)} %), ${med(usageOnR, "usageUpdates").toFixed(0)} ` +
          `usage_updates`,
      );
    }

    console.log("\ntargets:");
    console.log(
      `  initialize ≤ ${TARGET.initializeVsFloor} × floor: ${initRatio.toFixed(2)} × ` +
        `(${med(startR, "initMs").toFixed(1)} vs ${med(floorR, "initMs").toFixed(1)} ` +
        `ms) ${verdict(initRatio <= TARGET.initializeVsFloor)}`,
    );
    console.log(
      `  session/new ≤ ${TARGET.sessionNewAfterInitializeMs} ms after initialize: ` +
        `${newAfter.toFixed(1)} ms ` +
        `${verdict(newAfter <= TARGET.sessionNewAfterInitializeMs)}`,
    );
    console.log(
      `  exit ≤ ${TARGET.exitMs} ms with nothing left: ${exitWorst.toFixed(1)} ms ` +
        `(the slowest median), ${leftAll} process(es) left in ${runs} runs ` +
        `${verdict(exitWorst <= TARGET.exitMs && leftAll === 0)}`,
    );
    if (!options.startOnly) {
      console.log(
        `  ≥ ${TARGET.chunksPerSecond.toLocaleString("en")} chunks/s: ` +
          `${Number.isFinite(chunksPerSecond) ? Math.round(chunksPerSecond).toLocaleString("en") : "∞"} ` +
          `${verdict(chunksPerSecond >= TARGET.chunksPerSecond)}`,
      );
      console.log(
        `  terminal output ≥ ${CONTROL_TARGETS.terminalMBps} MB/s: ${mbPerS.toFixed(1)} ` +
          `MB/s ${verdict(mbPerS >= CONTROL_TARGETS.terminalMBps)}`,
      );
      console.log(
        `  agent RSS growth ≤ ${CONTROL_TARGETS.terminalRssGrowthMiB} MiB while it ` +
          `streams: ${growth.toFixed(1)} MiB (${(growth - plainGrowth).toFixed(1)} MiB ` +
          `more than without the extension) ` +
          `${verdict(growth <= CONTROL_TARGETS.terminalRssGrowthMiB)}`,
      );
      console.log(
        `  usage_update: no measurable change in chunks/s: ` +
          `${(usageChange * 100).toFixed(1)} % against a p10–p90 spread of ` +
          `${(noiseOff * 100).toFixed(1)} % ` +
          `${verdict(Math.abs(usageChange) <= Math.max(noiseOff, 0.02))}`,
      );
    }
  } finally {
    for (const mock of mocks) {
      mock.proc.kill();
      await mock.proc.exited;
    }
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
