// Speed of the file tools on a large generated tree (default 100,000 .ts files, ~90 MB): glob,
// grep in each mode, and find_definition, each run a few times; prints the median and the
// fastest run. The tree is built once in the temp folder and reused (--fresh rebuilds it).
// With --against DIR (another checkout of Garuda, e.g. `git archive main | tar -x -C DIR` with
// node_modules linked), each case runs there too, interleaved round by round, so the two
// implementations are compared in the same run on the same machine load.
//
//   bun bench/tools.ts [--files N] [--rounds N] [--fresh] [--against DIR]
import { existsSync, mkdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeTree, session } from "../test/support/toolFixtures.ts";

function parse(argv: string[]): { files: number; rounds: number; fresh: boolean; against?: string } {
  let files = 100_000;
  let rounds = 3;
  let fresh = false;
  let against: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--files") files = Number(argv[++i]);
    else if (arg === "--rounds") rounds = Number(argv[++i]);
    else if (arg === "--fresh") fresh = true;
    else if (arg === "--against") against = argv[++i];
    else
      throw new Error(
        `unknown argument ${arg}; usage: bun bench/tools.ts [--files N] [--rounds N] [--fresh] [--against DIR]`,
      );
  }
  if (!Number.isInteger(files) || files < 10 || !Number.isInteger(rounds) || rounds < 1)
    throw new Error("--files and --rounds need positive integers");
  return { files, rounds, fresh, ...(against !== undefined && { against: realpathSync(against) }) };
}

type Runner = (tool: string, input: unknown) => Promise<{ output: string; summary?: string }>;

/** The tools of the other checkout, through its own test fixture (the same one this file uses). */
async function otherSession(dir: string, root: string): Promise<Runner> {
  const fixtures = (await import(join(dir, "test/tools/fixtures.ts"))) as { session(root: string): { run: Runner } };
  return fixtures.session(root).run;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const root = join(tmpdir(), `garuda-bench-tools-${options.files}`);
  if (options.fresh) rmSync(root, { recursive: true, force: true });
  if (!existsSync(join(root, ".ready"))) {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    const started = performance.now();
    makeTree(root, { files: options.files, markerEvery: 1000, marker: "NEEDLE_TOKEN" });
    Bun.write(join(root, ".ready"), "");
    console.log(
      `built ${options.files.toLocaleString("en-US")} files in ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s at ${root}`,
    );
  }
  const s = session(realpathSync(root));
  const other = options.against === undefined ? undefined : await otherSession(options.against, realpathSync(root));
  const cases: Array<[string, string, Record<string, unknown>]> = [
    ["glob **/*.ts (every file, stat + sort)", "glob", { pattern: "**/*.ts" }],
    ["glob file7.ts (name at any depth)", "glob", { pattern: "file7.ts" }],
    ["glob pkg5/**/*.ts (literal prefix)", "glob", { pattern: "pkg5/**/*.ts" }],
    ["grep literal, rare (content)", "grep", { pattern: "NEEDLE_TOKEN" }],
    ["grep regex, every file (files)", "grep", { pattern: "compute\\d+\\(", mode: "files" }],
    ["grep ignoreCase (count)", "grep", { pattern: "needle_token", ignoreCase: true, mode: "count" }],
    ["grep with glob filter", "grep", { pattern: "NEEDLE_TOKEN", glob: "file0.ts" }],
    ["find_definition Service4242", "find_definition", { name: "Service4242" }],
  ];
  const ms = (value: number) => `${value.toFixed(0)} ms`.padStart(9);
  const header = other
    ? `${"other".padStart(9)} ${"fastest".padStart(9)} ${"this".padStart(9)} ` +
      `${"fastest".padStart(9)} ${"this/other".padStart(10)}`
    : `${"median".padStart(9)} ${"fastest".padStart(9)}`;
  console.log(`\n${"case".padEnd(42)} ${header}  result`);
  for (const [label, tool, input] of cases) {
    const times: number[] = [];
    const otherTimes: number[] = [];
    let summary = "";
    for (let round = 0; round < options.rounds; round++) {
      if (other) {
        const started = performance.now();
        await other(tool, input);
        otherTimes.push(performance.now() - started);
      }
      const started = performance.now();
      const result = await s.run(tool, input);
      times.push(performance.now() - started);
      summary = result.summary ?? result.output.split("\n")[0] ?? "";
    }
    const mine = `${ms(median(times))} ${ms(Math.min(...times))}`;
    const row = other
      ? `${ms(median(otherTimes))} ${ms(Math.min(...otherTimes))} ${mine} ` +
        `${(median(times) / median(otherTimes)).toFixed(2).padStart(10)}`
      : mine;
    console.log(`${label.padEnd(42)} ${row}  ${summary}`);
  }
}

await main();
