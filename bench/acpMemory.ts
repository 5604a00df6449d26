// Where the ACP agent's memory goes, and what would lower it (issue 19.2).
//
//   bun bench/acpMemory.ts [--rounds N] [--only binary|source|floor] [--baseline <binary>]
//
// 1. The binary (dist/garuda, rebuilt when stale): initialize, session/new and a turn whose model
//    runs `ls` in the sandbox, then /proc/<pid>/smaps split by what the pages are: the binary's
//    own (code and the embedded modules it touched), other files (libc…), executable anonymous
//    mappings (JSC's JIT code), the brk heap (malloc), the other anonymous mappings (JSC's heap,
//    mimalloc, Bun's buffers), stacks. The same turn with smaller JIT settings (BUN_JSC_* options,
//    which the compiled binary reads at start), interleaved: the agent's VmHWM, its RSS after the
//    turn, initialize and the turn's time.
// 2. The same session from source with bench/acpMemoryProbe.ts preloaded: the modules it loaded
//    (an ACP session must not load tree-sitter, the MCP SDK, marked or highlight.js), bun:jsc's
//    heapStats after the turn, and what a full Bun.gc(true) then gives back.
// 3. Against the library floor (bench/acpLibraryFloor.ts, built with the same flags: the ACP SDK,
//    the Anthropic SDK and bubblewrap, none of Garuda's code), interleaved: the agent at each stage
//    (initialize answered, 500 ms after it, session/new answered, 500 ms after that, after the
//    turn, 1 s after session/close, when the memory trim has run) and the tree's peak in the
//    `ls` turn; with --baseline, another build of Garuda (e.g. main's) in the same rounds, so
//    before and after come from one run. And how the binary's pages are mapped: the kernel maps
//    page-cache pages around each fault (a whole large folio, or fault-around's 64 KiB), so the
//    resident binary pages count the 64 KiB windows a process touched, not the pages it used.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { closeSync, openSync, readSync } from "node:fs";
import { DIST, ENTRY, ROOT, binaryName, buildBinary, buildHost, hostOs, staleReason } from "../scripts/buildTargets.ts";
import {
  INITIALIZE,
  MiB,
  Peer,
  alikeCopy,
  prompt,
  pssBytes,
  smapsBreakdown,
  start,
  startMock,
  statusBytes,
} from "./acpPeer.ts";
import { type Task, formatStat, formatTable, interleave } from "./interleave.ts";

const MODEL = "claude-sonnet-5";
const KEY = "sk-ant-bench-not-a-real-key";
/** Modules a plain ACP session has no use for: loading one costs heap and binary pages for nothing. */
const UNWANTED = [
  "web-tree-sitter",
  "tree-sitter",
  "@modelcontextprotocol/sdk",
  "marked",
  "highlight.js",
  "shiki",
  "turndown",
  "src/cli/chat",
];
const JIT_VARIANTS: Record<string, Record<string, string>> = {
  "default JIT": {},
  "no FTL (BUN_JSC_useFTLJIT=0)": { BUN_JSC_useFTLJIT: "0" },
  "no DFG/FTL (BUN_JSC_useDFGJIT=0)": { BUN_JSC_useDFGJIT: "0" },
  "interpreter only (BUN_JSC_useJIT=0)": { BUN_JSC_useJIT: "0" },
};

type Part = "binary" | "source" | "floor";
const PARTS: readonly Part[] = ["binary", "source", "floor"];

function parse(argv: string[]): { rounds: number; only?: Part; baseline?: string } {
  let rounds = 8;
  let only: Part | undefined;
  let baseline: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--rounds") rounds = Number(argv[++i]);
    else if (argv[i] === "--only" && PARTS.includes(argv[i + 1] as Part)) only = argv[++i] as Part;
    else if (argv[i] === "--baseline" && argv[i + 1]) baseline = argv[++i];
    else
      throw new Error(
        `unknown argument ${argv[i]}; usage: bun bench/acpMemory.ts [--rounds N] ` +
          `[--only ${PARTS.join("|")}] [--baseline <binary>]`,
      );
  }
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds needs a positive integer");
  if (baseline !== undefined && !existsSync(baseline)) throw new Error(`--baseline: no file ${baseline}`);
  return { rounds, ...(only && { only }), ...(baseline && { baseline: realpathSync(baseline) }) };
}

interface Turned {
  peer: Peer;
  initMs: number;
  turnMs: number;
}

async function oneTurn(cmd: string[], cwd: string, env: Record<string, string | undefined>): Promise<Turned> {
  const peer = new Peer(cmd, cwd, env);
  try {
    const { sessionId, initMs } = await start(peer, cwd);
    const { turnMs } = await prompt(peer, sessionId, "What is in this project?");
    await Bun.sleep(300); // the turn's git snapshot and output settle
    return { peer, initMs, turnMs };
  } catch (error) {
    throw await peer.failure(cmd.join(" "), error);
  }
}

async function main(): Promise<void> {
  const { rounds, only, baseline } = parse(process.argv.slice(2));
  const os = hostOs();
  if (!os) throw new Error(`no Garuda build for ${process.platform}`);
  const garuda = join(DIST, binaryName(os));
  if (staleReason(garuda)) {
    console.log(`building ${relative(ROOT, garuda)} …`);
    await buildHost(garuda);
  }
  const binary = realpathSync(garuda);
  const work = mkdtempSync(join(tmpdir(), "garuda-bench-memory-"));
  const project = join(work, "project");
  mkdirSync(project);
  writeFileSync(join(project, "notes.txt"), "a small project\n");
  const script = join(work, "command.json");
  writeFileSync(
    script,
    JSON.stringify({
      responses: [
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_bench_ls", input: { command: "ls" } }] },
        { steps: [{ type: "text", text: "The project holds notes.txt.", fragments: 4 }] },
      ],
    }),
  );
  const mock = await startMock(script);
  const agentEnv = (extra: Record<string, string> = {}) => {
    const home = mkdtempSync(join(work, "home-"));
    return {
      home,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        ANTHROPIC_BASE_URL: mock.url,
        ANTHROPIC_API_KEY: KEY,
        GARUDA_MODEL: MODEL,
        ...extra,
      },
    };
  };
  try {
    console.log(
      `bun ${Bun.version}; ${rounds} interleaved rounds; load average ` +
        `${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
    );

    if (only === undefined || only === "binary") await binaryPart(rounds, binary, project, agentEnv);
    if (only === undefined || only === "source") await sourcePart(work, project, agentEnv);
    if (only === undefined || only === "floor") await floorPart(rounds, binary, baseline, work, project, agentEnv);
  } finally {
    mock.proc.kill();
    rmSync(work, { recursive: true, force: true });
  }
}

type AgentEnv = (extra?: Record<string, string>) => { home: string; env: Record<string, string | undefined> };

/** 1. The binary: where the pages are after one sandboxed turn, and the JIT variants. */
async function binaryPart(rounds: number, binary: string, project: string, agentEnv: AgentEnv): Promise<void> {
  let breakdown: Record<string, number>[] = [];
  const tasks: Task[] = Object.entries(JIT_VARIANTS).map(([name, extra]) => ({
    name,
    run: async () => {
      const { home, env } = agentEnv(extra);
      const { peer, initMs, turnMs } = await oneTurn([binary, "acp"], project, env);
      try {
        const pid = peer.proc.pid;
        if (name === "default JIT") breakdown.push(smapsBreakdown(pid, binary));
        return {
          hwmMiB: MiB(statusBytes(pid, "VmHWM")),
          rssMiB: MiB(statusBytes(pid, "VmRSS")),
          anonMiB: MiB(statusBytes(pid, "RssAnon")),
          initMs,
          turnMs,
        };
      } finally {
        await peer.close();
        rmSync(home, { recursive: true, force: true });
      }
    },
  }));
  const results = await interleave(tasks, { rounds, warmup: 1 });
  console.log("\n1. dist/garuda acp after an `ls` turn in the sandbox (medians [p10–p90])");
  console.log(
    formatTable(
      ["JIT", "VmHWM MiB", "RSS after MiB", "anon MiB", "initialize ms", "turn ms"],
      results.map((r) => [
        r.name,
        formatStat(r.stats.hwmMiB),
        formatStat(r.stats.rssMiB),
        formatStat(r.stats.anonMiB),
        formatStat(r.stats.initMs),
        formatStat(r.stats.turnMs),
      ]),
    ),
  );
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  breakdown = breakdown.slice(1); // the warm-up round's
  console.log("\n   where the RSS is (default JIT, medians over rounds):");
  console.log(
    formatTable(
      ["pages", "MiB"],
      Object.keys(breakdown[0] ?? {}).map((kind) => [
        kind,
        MiB(median(breakdown.map((b) => b[kind] as number))).toFixed(1),
      ]),
    ),
  );
}

/** 2. From source with the probe: modules, heap, Bun.gc. */
async function sourcePart(work: string, project: string, agentEnv: AgentEnv): Promise<void> {
  const report = join(work, "report.json");
  const opened = join(work, "opened.txt");
  const { home, env } = agentEnv({ GARUDA_BENCH_MEMORY_REPORT: report });
  const strace = Bun.which("strace");
  const traced = strace ? [strace, "-f", "-qq", "-e", "trace=openat", "-e", "signal=none", "-o", opened] : [];
  const { peer } = await oneTurn(
    [...traced, process.execPath, "--preload", join(import.meta.dir, "acpMemoryProbe.ts"), ENTRY, "acp"],
    project,
    env,
  );
  // Under strace the agent is strace's child.
  const agentPid = (): number => {
    if (!strace) return peer.proc.pid;
    const children = readFileSync(`/proc/${peer.proc.pid}/task/${peer.proc.pid}/children`, "utf8").trim().split(" ");
    return Number(children[0]);
  };
  try {
    const pid = agentPid();
    const rssBefore = statusBytes(pid, "VmRSS");
    process.kill(pid, "SIGUSR2");
    for (let i = 0; i < 100 && !Bun.file(report).size; i++) await Bun.sleep(50);
    await Bun.sleep(200);
    const rssAfter = statusBytes(pid, "VmRSS");
    const modules = strace
      ? [
          ...new Set(
            [...readFileSync(opened, "utf8").matchAll(/openat\([^"]*"([^"]+\.(?:[cm]?[jt]sx?|json))"/g)].map(
              (m) => m[1] as string,
            ),
          ),
        ].filter((file) => !file.includes("/.bun/") && !file.endsWith("package.json"))
      : [];
    const data = JSON.parse(readFileSync(report, "utf8")) as {
      gcMs: number;
      before: {
        memory: NodeJS.MemoryUsage;
        heapSize: number;
        heapCapacity: number;
        extraMemorySize: number;
        objectCount: number;
        top: [string, number][];
      };
      after: {
        memory: NodeJS.MemoryUsage;
        heapSize: number;
        heapCapacity: number;
        extraMemorySize: number;
        objectCount: number;
        top: [string, number][];
      };
    };
    const packages = new Map<string, number>();
    for (const file of modules) {
      const at = file.lastIndexOf("node_modules/");
      const name =
        at < 0
          ? relative(ROOT, file).split("/").slice(0, 2).join("/") || file
          : file
              .slice(at + 13)
              .split("/")
              .slice(0, file.slice(at + 13).startsWith("@") ? 2 : 1)
              .join("/");
      packages.set(name, (packages.get(name) ?? 0) + 1);
    }
    console.log(
      `\n2. from source (bun ${ENTRY.replace(`${ROOT}/`, "")} acp, probe preloaded; ` +
        `files opened, from strace): ${modules.length} module files loaded in the ` +
        `session`,
    );
    console.log(
      formatTable(
        ["package or src folder", "files"],
        [...packages].sort((a, b) => b[1] - a[1]).map(([name, count]) => [name, String(count)]),
      ),
    );
    const unwanted = modules.filter((file) =>
      UNWANTED.some((name) => file.includes(`/${name}/`) || file.includes(`/${name}.`) || file.includes(`/${name}`)),
    );
    console.log(
      `   of ${UNWANTED.join(", ")}: ` +
        `${unwanted.length === 0 ? "none loaded" : unwanted.map((file) => relative(ROOT, file)).join(", ")}`,
    );
    const row = (label: string, s: typeof data.before) => [
      label,
      MiB(s.heapSize).toFixed(1),
      MiB(s.heapCapacity).toFixed(1),
      MiB(s.extraMemorySize).toFixed(1),
      String(s.objectCount),
      MiB(s.memory.rss).toFixed(1),
    ];
    console.log(
      formatTable(
        ["after the turn", "JS heap MiB", "heap capacity MiB", "extra (buffers) MiB", "objects", "RSS MiB"],
        [row("as it is", data.before), row(`after Bun.gc(true) (${data.gcMs.toFixed(0)} ms)`, data.after)],
      ),
    );
    console.log(`   RSS seen from outside: ${MiB(rssBefore).toFixed(1)} → ${MiB(rssAfter).toFixed(1)} MiB`);
    console.log(`   most objects: ${data.before.top.map(([type, count]) => `${type} ${count}`).join(", ")}`);
  } finally {
    await peer.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** Resident pages of `pid`'s mappings of `file` (from /proc/<pid>/pagemap), and the 64 KiB windows they fall in. */
function residentWindows(pid: number, file: string): { pages: number; windows: number; fullWindows: number } {
  const perWindow = new Map<number, number>();
  let pages = 0;
  const pagemap = openSync(`/proc/${pid}/pagemap`, "r");
  const entry = Buffer.alloc(8);
  try {
    for (const line of readFileSync(`/proc/${pid}/maps`, "utf8").split("\n")) {
      const match = /^([0-9a-f]+)-([0-9a-f]+) \S+ ([0-9a-f]+) \S+ \d+\s+(.*)$/.exec(line);
      if (!match || match[4] !== file) continue;
      const start = Number.parseInt(match[1] as string, 16);
      const end = Number.parseInt(match[2] as string, 16);
      const offset = Number.parseInt(match[3] as string, 16);
      for (let address = start; address < end; address += 4096) {
        readSync(pagemap, entry, 0, 8, (address / 4096) * 8);
        if ((entry.readBigUInt64LE(0) & (1n << 63n)) === 0n) continue;
        pages++;
        const window = Math.floor((offset + address - start) / 65536);
        perWindow.set(window, (perWindow.get(window) ?? 0) + 1);
      }
    }
  } finally {
    closeSync(pagemap);
  }
  return {
    pages,
    windows: perWindow.size,
    fullWindows: [...perWindow.values()].filter((count) => count === 16).length,
  };
}

/** 3. Garuda against the library floor, stage by stage, and how the binary's pages are mapped. */
async function floorPart(
  rounds: number,
  binary: string,
  baseline: string | undefined,
  work: string,
  project: string,
  agentEnv: AgentEnv,
): Promise<void> {
  const built = (
    await buildBinary({
      entry: join(import.meta.dir, "acpLibraryFloor.ts"),
      outfile: join(work, "acp-library-floor.built"),
    })
  ).outfile;
  // Each agent copied the same way, so their binaries lie alike in the page cache (alikeCopy).
  const floor = alikeCopy(built, work, "acp-library-floor");
  const garuda = alikeCopy(binary, work, "garuda");
  const before = baseline && alikeCopy(baseline, work, "garuda-baseline");
  const windows: Record<string, { pages: number; windows: number; fullWindows: number }[]> = {};
  const stageTask = (name: string, program: string): Task => ({
    name,
    run: async () => {
      const { home, env } = agentEnv();
      const peer = new Peer([program, "acp"], project, env);
      const pid = peer.proc.pid;
      const rss = () => MiB(statusBytes(pid, "VmRSS"));
      try {
        const init = await peer.request("initialize", INITIALIZE);
        const initialized = rss();
        await Bun.sleep(500);
        const warm = rss();
        const created = await peer.request("session/new", { cwd: project, mcpServers: [] });
        const answered = rss();
        await Bun.sleep(500);
        const built = rss();
        peer.startSampling();
        await prompt(peer, created.result.sessionId as string, "What is in this project?");
        peer.stopSampling();
        await Bun.sleep(300);
        (windows[name] ??= []).push(residentWindows(pid, realpathSync(program)));
        const turned = rss();
        const turnedPss = MiB(pssBytes(pid));
        // An agent that closes sessions (the floor does not): its memory trim runs soon after a close.
        let closed: number | undefined;
        if (
          (init.result.agentCapabilities as { sessionCapabilities?: { close?: object } } | undefined)
            ?.sessionCapabilities?.close
        ) {
          await peer.request("session/close", { sessionId: created.result.sessionId });
          await Bun.sleep(1000);
          closed = rss();
        }
        return {
          initialized,
          warm,
          answered,
          built,
          turned,
          turnedPss,
          ...(closed !== undefined && { closed }),
          treeRss: MiB(peer.peakTreeBytes),
          treePss: MiB(peer.peakTreePss),
        };
      } catch (error) {
        throw await peer.failure(`${program} acp`, error);
      } finally {
        await peer.close();
        rmSync(home, { recursive: true, force: true });
      }
    },
  });
  const agents = [
    stageTask("garuda", garuda),
    ...(before ? [stageTask("baseline", before)] : []),
    stageTask("library floor", floor),
  ];
  const results = await interleave(agents, { rounds, warmup: 1 });
  console.log(
    "\n3. against the library floor (bench/acpLibraryFloor.ts: the ACP SDK, the " +
      "Anthropic SDK, bwrap; no Garuda code), the same `ls` turn (agent RSS in MiB, " +
      "medians [p10–p90])",
  );
  const columns: [string, string][] = [
    ["initialized", "initialize answered"],
    ["warm", "+500 ms"],
    ["answered", "session/new answered"],
    ["built", "+500 ms"],
    ["turned", "after the turn"],
    ["turnedPss", "agent PSS after"],
    ["closed", "closed +1 s"],
    ["treeRss", "tree RSS peak"],
    ["treePss", "tree PSS peak"],
  ];
  console.log(
    formatTable(
      ["agent", ...columns.map(([, title]) => title)],
      results.map((r) => [r.name, ...columns.map(([key]) => formatStat(r.stats[key]))]),
    ),
  );
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  console.log(
    "\n   the binary's resident pages after the turn (medians): the kernel maps the " +
      "page cache around each fault, so they fill whole 64 KiB windows",
  );
  console.log(
    formatTable(
      ["agent", "resident MiB", "64 KiB windows touched", "of them full"],
      Object.entries(windows).map(([name, list]) => {
        const rest = list.slice(1); // the warm-up round's
        return [
          name,
          MiB(median(rest.map((w) => w.pages)) * 4096).toFixed(1),
          String(median(rest.map((w) => w.windows))),
          String(median(rest.map((w) => w.fullWindows))),
        ];
      }),
    ),
  );
}

await main();
