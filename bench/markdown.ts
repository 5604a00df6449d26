// The work a streamed chunk costs with Markdown rendering on, early in a long answer and late in
// it: a 10,000-line answer (prose, lists, tables, code, and one paragraph, one list and one code
// block of thousands of lines) in 10,000 chunks, fed to the chat's MarkdownStream on a live
// 100×40 screen whose bytes go nowhere, every chunk drawn (frameMs 0: the chat draws at most once
// a frame, so this is the most a chunk can cost). Reports the median and the p99 of the chunks
// around chunk 100 and of the last 100 chunks (chunk 10,000), over several runs. A chunk's time
// is the CPU time the process spent on it (process.cpuUsage), not the wall time: on a shared
// machine the wall time of one chunk is mostly other processes' turns.
//
//   npx bun bench/markdown.ts [--runs N] [--chunks N] [--before COMMIT] [--budget SECONDS]
//
// --before COMMIT runs the same answer through the MarkdownStream of that commit first (its
// stream.ts beside today's, with today's blocks and code), for a before-and-after in one run; a
// run of it that would take longer than --budget (default 60 s, wall time) stops there and says
// how far it got.
// Target (issue 34.1): ≤ 2 ms per chunk at chunk 10,000 as at chunk 100.
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Screen } from "../src/cli/chat/screen.ts";
import { COLOUR_STYLE } from "../src/cli/chat/style.ts";
import { MarkdownLoader } from "../src/cli/chat/markdown/loader.ts";
import { MarkdownStream, type MarkdownStreamOptions } from "../src/cli/chat/markdown/stream.ts";

const TARGET_MS = 2;
/** Chunks measured at each place: 100 around chunk 100, and the last 100. */
const WINDOW = 100;

interface Args {
  runs: number;
  chunks: number;
  before?: string;
  budgetMs: number;
}

function parse(argv: string[]): Args {
  const args: Args = { runs: 5, chunks: 10_000, budgetMs: 60_000 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--runs") args.runs = Number(argv[++i]);
    else if (argv[i] === "--chunks") args.chunks = Number(argv[++i]);
    else if (argv[i] === "--before") args.before = argv[++i];
    else if (argv[i] === "--budget") args.budgetMs = Number(argv[++i]) * 1000;
    else
      throw new Error(
        `unknown argument ${argv[i]}; usage: npx bun bench/markdown.ts [--runs N] ` +
          `[--chunks N] [--before COMMIT] [--budget SECONDS]`,
      );
  }
  return args;
}

/** A model's long answer of about `lines` lines: sections of every kind, and three very long blocks. */
function answer(lines: number): string {
  const out: string[] = [];
  const section = (k: number) => {
    out.push(`## Step ${k}`, "");
    for (let i = 0; i < 12; i++)
      out.push(`The **change** in \`src/file${k}.ts\` keeps *every* caller working, line ${i} of the reasoning.`);
    out.push("");
    for (let i = 0; i < 20; i++)
      out.push(`- point ${i} about ${k}, with \`code\` and [a link](https://example.com/${i})`);
    out.push("", "| file | lines |", "|---|--:|");
    for (let i = 0; i < 8; i++) out.push(`| f${k}_${i}.ts | ${k * i} |`);
    out.push("", "```ts", `function step${k}() {`);
    for (let i = 0; i < 60; i++) out.push(`  const value${i}: number = compute(${i}, "text ${k}"); // line ${i}`);
    out.push("}", "```", "");
  };
  const long = (kind: "paragraph" | "list" | "code", count: number) => {
    if (kind === "code") out.push("```python");
    for (let i = 0; i < count; i++)
      out.push(
        kind === "paragraph"
          ? `Sentence ${i} of one long paragraph goes on, with *emphasis* and \`code\` now and then.`
          : kind === "list"
            ? `${i + 1}. item ${i} of a long numbered list`
            : `    total_${i} = sum(values[${i}:]) + ${i}  # running ${i}`,
      );
    if (kind === "code") out.push("```");
    out.push("");
  };
  for (let k = 0; out.length < lines; k++) {
    section(k);
    if (k === 3) long("paragraph", 400);
    if (k === 6) long("list", 1_000);
    if (k === 9) long("code", 2_000);
  }
  return out.join("\n");
}

/** `text` in `count` chunks of about equal size. */
function chunksOf(text: string, count: number): string[] {
  const size = text.length / count;
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(text.slice(Math.round(i * size), Math.round((i + 1) * size)));
  return out;
}

type StreamClass = new (options: MarkdownStreamOptions) => { append(text: string): void; finish(): void };

interface Run {
  times: Float64Array;
  /** Chunks fed before the budget ran out (all of them, usually). */
  reached: number;
  finishMs: number;
}

function run(Stream: StreamClass, chunks: readonly string[], loader: MarkdownLoader, budgetMs: number): Run {
  const screen = new Screen({ write: () => true, columns: 100, rows: 40 }, true, true);
  const stream = new Stream({ screen, style: COLOUR_STYLE, loader, frameMs: 0 });
  const times = new Float64Array(chunks.length);
  const start = Bun.nanoseconds();
  let reached = 0;
  for (; reached < chunks.length; reached++) {
    const t0 = process.cpuUsage();
    stream.append(chunks[reached] as string);
    const used = process.cpuUsage(t0);
    times[reached] = (used.user + used.system) / 1000;
    if ((Bun.nanoseconds() - start) / 1e6 > budgetMs) {
      reached++;
      break;
    }
  }
  const t0 = process.cpuUsage();
  stream.finish();
  const used = process.cpuUsage(t0);
  return { times, reached, finishMs: (used.user + used.system) / 1000 };
}

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))] as number;

/** Median and p99 of the chunks [from, to) over the runs that got that far. */
function window(runs: readonly Run[], from: number, to: number): string {
  const times = runs.filter((r) => r.reached >= to).flatMap((r) => [...r.times.subarray(from, to)]);
  if (times.length === 0) return "not reached";
  return `median ${quantile(times, 0.5).toFixed(3)} ms, p99 ${quantile(times, 0.99).toFixed(3)} ms`;
}

function report(label: string, runs: readonly Run[], count: number): boolean {
  const reached = Math.min(...runs.map((r) => r.reached));
  console.log(`${label}:`);
  console.log(`  chunk 100:    ${window(runs, 50, 150)}`);
  if (reached < count) {
    console.log(`  chunk ${count.toLocaleString("en-US")}: not reached — the budget ran out at chunk ${reached}`);
    console.log(`  chunk ${reached} (the last reached): ${window(runs, Math.max(0, reached - WINDOW), reached)}`);
    return false;
  }
  const late = window(runs, count - WINDOW, count);
  console.log(`  chunk ${count.toLocaleString("en-US")}: ${late}`);
  console.log(
    `  the end (finish): median ${quantile(
      runs.map((r) => r.finishMs),
      0.5,
    ).toFixed(3)} ms`,
  );
  const times = runs.flatMap((r) => [...r.times.subarray(count - WINDOW, count), ...r.times.subarray(50, 150)]);
  return quantile(times, 0.5) <= TARGET_MS;
}

/** The MarkdownStream of `commit`, beside today's stream.ts (its imports are today's files). */
async function streamAt(commit: string): Promise<StreamClass> {
  const dir = join(import.meta.dir, "../src/cli/chat/markdown");
  const source = execFileSync("git", ["show", `${commit}:src/cli/chat/markdown/stream.ts`], {
    cwd: dir,
    encoding: "utf8",
  });
  const file = join(dir, `.stream-${commit.replace(/\W/g, "")}.bench.ts`);
  writeFileSync(file, source);
  try {
    return ((await import(file)) as { MarkdownStream: StreamClass }).MarkdownStream;
  } finally {
    rmSync(file, { force: true });
  }
}

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  const loader = new MarkdownLoader();
  await loader.load();
  const text = answer(args.chunks);
  const chunks = chunksOf(text, args.chunks);
  console.log(
    `markdown stream: ${text.split("\n").length.toLocaleString("en-US")} lines ` +
      `(${text.length.toLocaleString("en-US")} chars) in ` +
      `${args.chunks.toLocaleString("en-US")} chunks, every chunk drawn`,
  );
  if (args.before) {
    const Before = await streamAt(args.before);
    report(`before (${args.before}), 1 run`, [run(Before, chunks, loader, args.budgetMs)], args.chunks);
  }
  // Today's runs have no budget: they always reach the end.
  run(MarkdownStream, chunks.slice(0, 1000), loader, Number.POSITIVE_INFINITY);
  const runs = Array.from({ length: args.runs }, () => run(MarkdownStream, chunks, loader, Number.POSITIVE_INFINITY));
  const ok = report(`now, ${args.runs} runs`, runs, args.chunks);
  console.log(ok ? `ok (target ≤ ${TARGET_MS} ms a chunk)` : `OVER TARGET (≤ ${TARGET_MS} ms a chunk)`);
  if (!ok) process.exitCode = 1;
}

await main();
