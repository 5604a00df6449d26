// Shared bench helper: the medians of many interleaved runs.
//
// Each round runs every task once, starting from a different task each round, so drift on a
// noisy machine (CPU frequency, page cache, neighbours) hits every task alike. A task returns
// named metrics (ms, bytes, …); `interleave` returns their median, p10 and p90 per task.
// `processTask` is the common task: start a program, wait for it, report wall time, CPU time
// and peak RSS.
import { existsSync } from "node:fs";

export interface Task {
  name: string;
  /** One measurement: metric name → value. */
  run: () => Promise<Record<string, number>>;
}

export interface Summary {
  median: number;
  p10: number;
  p90: number;
  min: number;
  max: number;
  n: number;
}

export interface TaskResult {
  name: string;
  samples: Record<string, number[]>;
  stats: Record<string, Summary>;
}

/** The q-quantile (0..1) of ascending `sorted`, linearly interpolated. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (at - lo);
}

export function summarize(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    p10: quantile(sorted, 0.1),
    p90: quantile(sorted, 0.9),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    n: sorted.length,
  };
}

export interface InterleaveOptions {
  rounds?: number;
  /** Rounds run first and thrown away (page cache, lazy linking). */
  warmup?: number;
  onRound?: (round: number, rounds: number) => void;
}

export async function interleave(tasks: Task[], options: InterleaveOptions = {}): Promise<TaskResult[]> {
  const rounds = options.rounds ?? 40;
  const warmup = options.warmup ?? 3;
  const samples = tasks.map(() => ({}) as Record<string, number[]>);
  for (let round = -warmup; round < rounds; round++) {
    const start = ((round % tasks.length) + tasks.length) % tasks.length;
    for (let k = 0; k < tasks.length; k++) {
      const i = (start + k) % tasks.length;
      const metrics = await (tasks[i] as Task).run();
      if (round < 0) continue;
      const into = samples[i] as Record<string, number[]>;
      for (const [metric, value] of Object.entries(metrics)) (into[metric] ??= []).push(value);
    }
    if (round >= 0) options.onRound?.(round + 1, rounds);
  }
  return tasks.map((task, i) => {
    const own = samples[i] as Record<string, number[]>;
    const stats: Record<string, Summary> = {};
    for (const [metric, values] of Object.entries(own)) stats[metric] = summarize(values);
    return { name: task.name, samples: own, stats };
  });
}

// ---------------------------------------------------------------------------------------------
// Whole-process measurements

/**
 * How peak RSS is read. Bun.spawn's `resourceUsage().maxRSS` is in bytes, but on Linux it is
 * never below the *spawning* process's own peak RSS: Bun starts children with vfork, and the
 * kernel folds the parent's high-water mark into the child's at exec. A bench process of ~25 MiB
 * would hide any program smaller than that. So RSS is read through `/usr/bin/time` (a small C
 * program that uses fork) when it is there: GNU `-f %M` (KiB) or BSD/macOS `-l` (bytes).
 */
export type RssProbe =
  | { kind: "gnu-time"; path: string }
  | { kind: "bsd-time"; path: string }
  | { kind: "bun"; note: string };

let probeCache: RssProbe | undefined;

export function rssProbe(): RssProbe {
  if (probeCache) return probeCache;
  const path = "/usr/bin/time";
  if (existsSync(path)) {
    const gnu = Bun.spawnSync([path, "-f", "%M", "true"], { stderr: "pipe", stdout: "ignore" });
    if (gnu.exitCode === 0 && /^\d+\s*$/.test(gnu.stderr.toString())) return (probeCache = { kind: "gnu-time", path });
    const bsd = Bun.spawnSync([path, "-l", "true"], { stderr: "pipe", stdout: "ignore" });
    if (bsd.exitCode === 0 && /maximum resident set size/.test(bsd.stderr.toString())) {
      return (probeCache = { kind: "bsd-time", path });
    }
  }
  return (probeCache = {
    kind: "bun",
    note: "no /usr/bin/time: RSS is Bun's maxRSS, floored at this bench process's own peak",
  });
}

export interface ProcessSpec {
  cmd: string[];
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Exit code every run must have (default 0); a different one throws. */
  exitCode?: number;
}

async function spawnOnce(cmd: string[], spec: ProcessSpec, stderr: "pipe" | "ignore") {
  const started = performance.now();
  const proc = Bun.spawn(cmd, { cwd: spec.cwd, env: spec.env, stdin: "ignore", stdout: "ignore", stderr });
  const [code, err] = await Promise.all([
    proc.exited,
    stderr === "pipe" ? new Response(proc.stderr as ReadableStream).text() : Promise.resolve(""),
  ]);
  const wallMs = performance.now() - started;
  const expected = spec.exitCode ?? 0;
  if (code !== expected) throw new Error(`${cmd.join(" ")}: exit ${code}, expected ${expected}\n${err}`);
  return { proc, wallMs, err };
}

/** Peak RSS of one run of `spec`, in bytes (see `rssProbe`). */
export async function peakRss(spec: ProcessSpec): Promise<number> {
  const probe = rssProbe();
  if (probe.kind === "gnu-time") {
    const { err } = await spawnOnce([probe.path, "-f", "GARUDA_RSS_KIB=%M", ...spec.cmd], spec, "pipe");
    const kib = /GARUDA_RSS_KIB=(\d+)/.exec(err)?.[1];
    if (!kib) throw new Error(`no RSS in /usr/bin/time output: ${err}`);
    return Number(kib) * 1024;
  }
  if (probe.kind === "bsd-time") {
    const { err } = await spawnOnce([probe.path, "-l", ...spec.cmd], spec, "pipe");
    const bytes = /(\d+)\s+maximum resident set size/.exec(err)?.[1];
    if (!bytes) throw new Error(`no RSS in /usr/bin/time -l output: ${err}`);
    return Number(bytes);
  }
  const { proc } = await spawnOnce(spec.cmd, spec, "ignore");
  return proc.resourceUsage()?.maxRSS ?? Number.NaN;
}

/**
 * A task that runs `spec` directly for `wallMs` (spawn to exit) and `cpuMs` (user + system),
 * then once more under the RSS probe for `rssMiB`, unless `rss` is false.
 */
export function processTask(name: string, spec: ProcessSpec, options: { rss?: boolean } = {}): Task {
  return {
    name,
    run: async () => {
      const { proc, wallMs } = await spawnOnce(spec.cmd, spec, "ignore");
      const cpu = proc.resourceUsage()?.cpuTime;
      const metrics: Record<string, number> = { wallMs, cpuMs: cpu ? Number(cpu.total) / 1000 : Number.NaN };
      if (options.rss !== false) metrics.rssMiB = (await peakRss(spec)) / 2 ** 20;
      return metrics;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Printing

export function formatStat(s: Summary | undefined, digits = 1): string {
  if (!s) return "–";
  return `${s.median.toFixed(digits)} [${s.p10.toFixed(digits)}–${s.p90.toFixed(digits)}]`;
}

export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** median(a) / median(b) for one metric. */
export function ratio(a: TaskResult | undefined, b: TaskResult | undefined, metric: string): number {
  const top = a?.stats[metric]?.median;
  const bottom = b?.stats[metric]?.median;
  return top !== undefined && bottom ? top / bottom : Number.NaN;
}
