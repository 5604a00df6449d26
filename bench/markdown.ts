// Time from a streamed chunk to the screen with Markdown rendering on: an answer of 10,000
// chunks (paragraphs, lists, a table, long fenced code blocks) fed to the chat's MarkdownStream
// on a live 100×40 screen whose bytes go nowhere; each chunk's time is from append() until its
// rows were written. Reports the mean and the p99 per chunk, median of several runs.
//
//   npx bun bench/markdown.ts [--runs N] [--chunks N]
//
// Target (issue 20.9): ≤ 2 ms per chunk at 10,000 chunks.
import { Screen } from "../src/cli/chat/screen.ts";
import { COLOUR_STYLE } from "../src/cli/chat/style.ts";
import { MarkdownLoader } from "../src/cli/chat/markdown/loader.ts";
import { MarkdownStream } from "../src/cli/chat/markdown/stream.ts";

const TARGET_MS = 2;

function parse(argv: string[]): { runs: number; chunks: number } {
  let runs = 9;
  let chunks = 10_000;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--runs") runs = Number(argv[++i]);
    else if (argv[i] === "--chunks") chunks = Number(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}; usage: npx bun bench/markdown.ts [--runs N] [--chunks N]`);
  }
  return { runs, chunks };
}

/** An answer like a model's: prose with emphasis, a list, a table, and long code blocks. */
function answer(minLength: number): string {
  const parts: string[] = [];
  for (let k = 0; parts.join("").length < minLength; k++) {
    parts.push(
      `## Step ${k}\n\nThe **change** in \`src/file${k}.ts\` keeps *every* caller working; see [the docs](https://example.com/${k}) for why it matters here.\n\n`,
    );
    parts.push(`- first point about ${k}\n- second point, with \`code\`\n  - a nested detail\n- third\n\n`);
    parts.push(`| file | lines |\n|---|--:|\n| a${k}.ts | ${k * 3} |\n| b${k}.ts | ${k * 7} |\n\n`);
    const code = Array.from(
      { length: 40 },
      (_, i) => `  const value${i}: number = compute(${i}, "text ${k}"); // line ${i}`,
    ).join("\n");
    parts.push(`\`\`\`ts\nfunction step${k}() {\n${code}\n}\n\`\`\`\n\n`);
  }
  return parts.join("");
}

/** Splits `text` into `count` chunks of model-like, uneven sizes. */
function chunksOf(text: string, count: number): string[] {
  const size = text.length / count;
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(text.slice(Math.round(i * size), Math.round((i + 1) * size)));
  return out;
}

async function run(
  chunks: readonly string[],
  loader: MarkdownLoader,
): Promise<{ meanMs: number; p99Ms: number; bytes: number }> {
  let bytes = 0;
  const screen = new Screen({ write: (text: string) => (bytes += text.length), columns: 100, rows: 40 }, true, true);
  const stream = new MarkdownStream({ screen, style: COLOUR_STYLE, loader });
  const times = new Float64Array(chunks.length);
  const start = Bun.nanoseconds();
  for (let i = 0; i < chunks.length; i++) {
    const t0 = Bun.nanoseconds();
    stream.append(chunks[i] as string);
    times[i] = (Bun.nanoseconds() - t0) / 1e6;
  }
  stream.finish();
  const total = (Bun.nanoseconds() - start) / 1e6;
  const sorted = [...times].sort((a, b) => a - b);
  return { meanMs: total / chunks.length, p99Ms: sorted[Math.floor(sorted.length * 0.99)] as number, bytes };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  const { runs, chunks: count } = parse(process.argv.slice(2));
  const loader = new MarkdownLoader();
  const loadStart = Bun.nanoseconds();
  await loader.load();
  const loadMs = (Bun.nanoseconds() - loadStart) / 1e6;
  // About 4 characters a chunk, as models stream.
  const chunks = chunksOf(answer(count * 4), count);
  const results = [];
  await run(chunks.slice(0, 1000), loader);
  for (let r = 0; r < runs; r++) results.push(await run(chunks, loader));
  const mean = median(results.map((result) => result.meanMs));
  const p99 = median(results.map((result) => result.p99Ms));
  console.log(
    `markdown stream: ${count} chunks (${chunks.join("").length} chars), ${runs} runs, libraries loaded in ${loadMs.toFixed(1)} ms`,
  );
  console.log(
    `per chunk: mean ${mean.toFixed(3)} ms (median of runs), p99 ${p99.toFixed(3)} ms; ${(results[0]?.bytes ?? 0).toLocaleString("en-US")} bytes to the screen a run`,
  );
  console.log(mean <= TARGET_MS ? `ok (target ≤ ${TARGET_MS} ms)` : `OVER TARGET (≤ ${TARGET_MS} ms)`);
  if (mean > TARGET_MS) process.exitCode = 1;
}

await main();
