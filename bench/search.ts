// grep, glob and find_definition on a tree shaped like Linux 6.1 (bench/linuxTree.ts: 78,600
// files in 5,100 folders, ~1.3 GB), each against what a user would reach for, interleaved round
// by round in the same run, both ways Garuda searches: its own search ("own", what a binary without
// the embedded ripgrep does) and through the embedded rg in its sandbox ("garuda+rg", the build
// cache's rg: scripts/ripgrepBuild.ts). Against: `rg -c` for grep (every match counted, as grep's totals need),
// `rg --files -g` (and `fd -t f -g`, Debian's fdfind) for glob, `rg -t c -t cpp -w` for find_definition. Prints the
// medians, the
// ratios (Garuda ÷ ripgrep) and both sides' counts, so a difference in what was found shows
// next to the time. Garuda's tools run in this process as a session runs them (the worker thread
// included); ripgrep is a process (its start-up, ~2 ms, is in its time). The `rg` on PATH may be another
// build than the embedded one (Debian 12's is ripgrep 13, glibc; the embedded x64 one 15.2, static musl, took
// 1.1–1.35× Debian's time for a content search here, in the same sandbox), so garuda+rg ÷ rg holds that
// difference too. What is not installed is skipped with a line saying so.
//
// The tree is made once in the temp folder and reused (--fresh remakes it); `--copies 3` puts the
// tree three times side by side (235,800 files), as issue 35's largest case.
//
// `--baseline DIR` times another checkout's tools as well ("before": its own runner, its own
// file tools, through the same rg), interleaved in the same rounds, so a change is measured
// against what it replaces on the same machine at the same moment (e.g. `git archive <commit> |
// tar -x -C DIR` and a node_modules link). `--no-own` leaves out the tools' own search.
//
//   bun bench/search.ts [--files N] [--folders N] [--bytes-scale X] [--copies N] [--rounds N] [--fresh]
//                       [--only TEXT]   (only the cases whose label holds TEXT, e.g. find_definition)
//                       [--baseline DIR] [--no-own]
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { hostTarget } from "../scripts/buildTargets.ts";
import { ripgrepFor } from "../scripts/ripgrepBuild.ts";
import { ripgrepFromFile } from "../src/sandbox/ripgrep/program.ts";
import { createRipgrepRunner, type RipgrepRunner } from "../src/sandbox/ripgrep/runner.ts";
import { probeSandbox } from "../src/sandbox/probe.ts";
import { session } from "../test/support/toolFixtures.ts";
import { formatTable, interleave, ratio, type Task } from "./interleave.ts";
import { LINUX_SHAPE, makeLinuxTree, type TreeShape } from "./linuxTree.ts";

interface Options {
  shape: TreeShape;
  copies: number;
  rounds: number;
  fresh: boolean;
  /** Only the cases whose label holds this text. */
  only?: string;
  /** Another checkout whose tools are timed too ("before"). */
  baseline?: string;
  /** Leave out the tools' own search. */
  noOwn: boolean;
}

function parse(argv: string[]): Options {
  const options: Options = { shape: { ...LINUX_SHAPE }, copies: 1, rounds: 5, fresh: false, noOwn: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => Number(argv[++i]);
    if (arg === "--files") options.shape.files = value();
    else if (arg === "--folders") options.shape.folders = value();
    else if (arg === "--bytes-scale") options.shape.bytesScale = value();
    else if (arg === "--seed") options.shape.seed = value();
    else if (arg === "--copies") options.copies = value();
    else if (arg === "--rounds") options.rounds = value();
    else if (arg === "--fresh") options.fresh = true;
    else if (arg === "--only") options.only = argv[++i];
    else if (arg === "--baseline") options.baseline = argv[++i];
    else if (arg === "--no-own") options.noOwn = true;
    else
      throw new Error(
        `unknown argument ${arg}; usage: bun bench/search.ts [--files N] [--folders N] ` +
          `[--bytes-scale X] [--seed N] [--copies N] [--rounds N] [--fresh] [--only TEXT] [--baseline DIR] [--no-own]`,
      );
  }
  return options;
}

/** The tree (made if missing), as a git work tree so ripgrep applies its .gitignore as Garuda does. */
function tree(options: Options): string {
  const { files, folders, seed, bytesScale } = options.shape;
  const one = join(tmpdir(), `garuda-bench-linux-${files}-${folders}-${seed}-${bytesScale}`);
  if (options.fresh) rmSync(one, { recursive: true, force: true });
  if (!existsSync(join(one, ".ready"))) {
    rmSync(one, { recursive: true, force: true });
    mkdirSync(one, { recursive: true });
    const started = performance.now();
    const counts = makeLinuxTree(one, options.shape);
    execFileSync("git", ["init", "-q", one]);
    writeFileSync(join(one, ".ready"), "");
    console.log(`made ${one} in ${((performance.now() - started) / 1000).toFixed(0)} s:`, JSON.stringify(counts));
  }
  if (options.copies <= 1) return realpathSync(one);
  const many = `${one}-x${options.copies}`;
  if (options.fresh) rmSync(many, { recursive: true, force: true });
  if (!existsSync(join(many, ".ready"))) {
    rmSync(many, { recursive: true, force: true });
    mkdirSync(many, { recursive: true });
    // Real copies: a hard link would be a file with two names, which grep does not read.
    for (let i = 0; i < options.copies; i++)
      execFileSync("cp", ["-R", one, join(many, `linux-${i + 1}`)], { stdio: "inherit" });
    execFileSync("git", ["init", "-q", many]);
    writeFileSync(join(many, ".ready"), "");
  }
  return realpathSync(many);
}

function which(program: string): string | undefined {
  const found = spawnSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

interface Case {
  label: string;
  tool: string;
  input: Record<string, unknown>;
  /** ripgrep's arguments for the same search. */
  rg: string[];
  /** fd's arguments for the same search (file listings only). */
  fd?: string[];
  /** What the counts are: the tool's summary, and how ripgrep's output is counted. */
  count: (stdout: string) => string;
}

const lines = (stdout: string) => stdout.split("\n").filter(Boolean);
const perFile = (stdout: string) => {
  const rows = lines(stdout);
  const total = rows.reduce((sum, row) => sum + Number(row.slice(row.lastIndexOf(":") + 1)), 0);
  return `${total.toLocaleString("en-US")} lines in ${rows.length.toLocaleString("en-US")} files`;
};
const fileCount = (stdout: string) => `${lines(stdout).length.toLocaleString("en-US")} files`;

const CASES: Case[] = [
  {
    label: "grep literal EXPORT_SYMBOL_GPL",
    tool: "grep",
    input: { pattern: "EXPORT_SYMBOL_GPL", mode: "count" },
    rg: ["-c", "EXPORT_SYMBOL_GPL"],
    count: perFile,
  },
  {
    label: "grep regex static int __init \\w+\\(",
    tool: "grep",
    input: { pattern: "static int __init \\w+\\(", mode: "count" },
    rg: ["-c", "static int __init \\w+\\("],
    count: perFile,
  },
  {
    label: "grep -i MUTEX_LOCK",
    tool: "grep",
    input: { pattern: "MUTEX_LOCK", ignoreCase: true, mode: "count" },
    rg: ["-c", "-i", "MUTEX_LOCK"],
    count: perFile,
  },
  {
    label: "glob **/*.c",
    tool: "glob",
    input: { pattern: "**/*.c" },
    rg: ["--files", "-g", "*.c"],
    fd: ["-t", "f", "-g", "*.c"],
    count: fileCount,
  },
  {
    label: "glob **/*.S",
    tool: "glob",
    input: { pattern: "**/*.S" },
    rg: ["--files", "-g", "*.S"],
    fd: ["-t", "f", "-g", "*.S"],
    count: fileCount,
  },
  {
    label: "find_definition kmalloc",
    tool: "find_definition",
    input: { name: "kmalloc" },
    rg: ["-t", "c", "-t", "cpp", "-w", "-l", "kmalloc"],
    count: fileCount,
  },
  {
    label: "find_definition kmem_cache",
    tool: "find_definition",
    input: { name: "kmem_cache" },
    rg: ["-t", "c", "-t", "cpp", "-w", "-l", "kmem_cache"],
    count: fileCount,
  },
];

type Session = ReturnType<typeof session>;

/** The runner the binary would have: the build's embedded rg (scripts/ripgrepBuild.ts) in its sandbox. */
async function benchRipgrep(
  root: string,
  make: typeof createRipgrepRunner = createRipgrepRunner,
): Promise<RipgrepRunner | undefined> {
  const host = hostTarget();
  const gz = host && (await ripgrepFor(host));
  const probe = await probeSandbox({ env: process.env, tmpDir: tmpdir(), root });
  if (!gz || probe.launcher?.kind !== "bwrap") return undefined;
  return make({
    program: ripgrepFromFile(gz),
    bwrap: probe.launcher.path,
    disableUserns: probe.launcher.disableUserns,
    root,
    denyRead: () => [],
  });
}

/** A task that times `argv` (ripgrep, fd) in `root` and records what it found under `name`. */
function programTask(
  name: string,
  argv: string[],
  root: string,
  count: (stdout: string) => string,
  counts: Map<string, string>,
): Task {
  return {
    name,
    async run() {
      const started = performance.now();
      const child = Bun.spawn(argv, { cwd: root, stdout: "pipe", stderr: "ignore" });
      const stdout = await new Response(child.stdout).text();
      await child.exited;
      const ms = performance.now() - started;
      counts.set(name, count(stdout));
      return { ms };
    },
  };
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const root = tree(options);
  const rg = which("rg");
  if (!rg) console.log("ripgrep (rg) is not installed: Garuda's times only, no ratios.");
  // fd is `fdfind` in Debian's fd-find package.
  const fd = which("fd") ?? which("fdfind");
  if (!fd) console.log("fd is not installed (Debian: apt install fd-find): glob is compared with ripgrep only.");
  // Two sessions: the tools' own search ("own", the fallback), and the same tools with the
  // embedded ripgrep as the binary runs it (its sandbox included).
  const sessions: Record<string, Session> = { own: session(root), rg: session(root) };
  const runner = await benchRipgrep(root);
  if (runner) sessions.rg = withRunner(sessions.rg as Session, runner);
  else console.log("no embedded ripgrep for this machine (scripts/ripgrepBuild.ts) or no bwrap: own search only.");
  const before = runner && options.baseline ? await baselineSession(options.baseline, root) : undefined;
  if (before) sessions.before = before;
  const sides = [...(options.noOwn ? [] : ["own"]), ...(runner ? ["rg"] : []), ...(before ? ["before"] : [])];
  const tasks: Task[] = [];
  const counts = new Map<string, string>();
  const cases = CASES.filter((c) => options.only === undefined || c.label.includes(options.only));
  for (const c of cases) {
    for (const side of sides)
      tasks.push({
        name: `${side} ${c.label}`,
        async run() {
          const started = performance.now();
          const result = await (sessions[side] as Session).run(c.tool, c.input);
          const ms = performance.now() - started;
          counts.set(`${side} ${c.label}`, result.summary ?? result.output.split("\n")[0] ?? "");
          if (c.tool !== "find_definition" && /stopped after/.test(result.output))
            counts.set(`${side} ${c.label}`, `${result.summary} (CUT by the budget)`);
          return { ms };
        },
      });
    if (rg) tasks.push(programTask(`ripgrep ${c.label}`, [rg, ...c.rg], root, c.count, counts));
    if (fd && c.fd) tasks.push(programTask(`fd ${c.label}`, [fd, ...c.fd], root, c.count, counts));
  }
  console.log(`\n${root}: ${options.rounds} rounds after one warm-up, interleaved; load ${loadAverage()}`);
  const results = await interleave(tasks, {
    rounds: options.rounds,
    warmup: 1,
    onRound: (round, rounds) => process.stderr.write(`round ${round}/${rounds}\r`),
  });
  const byName = new Map(results.map((r) => [r.name, r]));
  const ms = (name: string) => {
    const stat = byName.get(name)?.stats.ms;
    return stat ? `${stat.median.toFixed(0)} [${stat.p10.toFixed(0)}–${stat.p90.toFixed(0)}]` : "–";
  };
  const times = (side: string, c: Case, against = "ripgrep") => {
    const x = ratio(byName.get(`${side} ${c.label}`), byName.get(`${against} ${c.label}`), "ms");
    return Number.isNaN(x) ? "–" : `${x.toFixed(2)}×`;
  };
  const rows = cases.map((c) => [
    c.label,
    ms(`own ${c.label}`),
    ms(`rg ${c.label}`),
    ...(before ? [ms(`before ${c.label}`)] : []),
    ms(`ripgrep ${c.label}`),
    times("own", c),
    runner ? times("rg", c) : "–",
    ...(before ? [times("before", c)] : []),
    counts.get(`own ${c.label}`) ?? "",
    counts.get(`rg ${c.label}`) ?? "",
    ...(before ? [counts.get(`before ${c.label}`) ?? ""] : []),
    counts.get(`ripgrep ${c.label}`) ?? "",
    ms(`fd ${c.label}`),
    times(runner ? "rg" : "own", c, "fd"),
    counts.get(`fd ${c.label}`) ?? "",
  ]);
  const header = ["case", "own ms", "garuda+rg ms", ...(before ? ["before ms"] : []), "ripgrep ms", "own ×"];
  header.push("garuda+rg ×", ...(before ? ["before ×"] : []), "own found", "garuda+rg found");
  if (before) header.push("before found");
  header.push("ripgrep found (rg -t: files mentioning)", "fd ms", "garuda × fd", "fd found");
  console.log(`\n${formatTable(header, rows)}`);
  console.log(`load at the end ${loadAverage()}`);
}

function withRunner(s: Session, runner: RipgrepRunner): Session {
  s.ctx.executor = { ...s.ctx.executor, ripgrep: runner };
  return s;
}

/** A session of another checkout's tools with that checkout's rg runner (--baseline). */
async function baselineSession(dir: string, root: string): Promise<Session> {
  const fixtures = await import(join(resolve(dir), "test/support/toolFixtures.ts"));
  const runners = await import(join(resolve(dir), "src/sandbox/ripgrep/runner.ts"));
  const runner = await benchRipgrep(root, runners.createRipgrepRunner);
  if (!runner) throw new Error("no rg runner for the baseline");
  return withRunner(fixtures.session(root) as Session, runner);
}

function loadAverage(): string {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "unknown";
  }
}

await main();
