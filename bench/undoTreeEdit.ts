// editTree (src/store/undoTreeEdit.ts) against the store's two snapshots of today, on the
// Linux-shaped tree (78,600 files) and on it three times side by side (235,800), the store's index
// warm (its first snapshot taken): after N files changed (appended to, spread over the tree),
//   edit    editTree(base, the N paths): no session index read
//   paths   the store's snapshot of named paths (update-index + write-tree on the session index)
//   full    the store's full snapshot (add -A + the excluded taken out + write-tree)
//   empty   an empty script through the executor: the floor of any git call
// all of the same state, their order rotated per round, and their trees compared (they must
// be the same). Also a folder of about a thousand files named as a whole (a rescan of it).
//
//   bun bench/undoTreeEdit.ts [--copies 1,3] [--rounds 5] [--source <tree>]
//
// The copies are made once in the temp folder (garuda-bench-treeedit-x<copies>) and reused.
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createExecutor } from "../src/sandbox/executor.ts";
import { GitRunner } from "../src/store/undoGit.ts";
import { setUpStore } from "../src/store/undoSetup.ts";
import { snapshotTaker } from "../src/store/undoSnapshot.ts";
import { editTree } from "../src/store/undoTreeEdit.ts";
import { machineSandbox, SELF_COMMAND } from "../test/support/sandboxSupport.ts";

const EXCLUDED = [".garuda/sessions"];

function parse(argv: string[]): { copies: number[]; rounds: number; source: string } {
  const options = { copies: [1, 3], rounds: 5, source: "/tmp/garuda-bench-linux-78600-5100-61-1" };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = () => argv[++i] as string;
    if (arg === "--copies") options.copies = next().split(",").map(Number);
    else if (arg === "--rounds") options.rounds = Number(next());
    else if (arg === "--source") options.source = next();
    else throw new Error(`unknown argument ${arg}; usage: bun bench/undoTreeEdit.ts [--copies 1,3] [--rounds N]`);
  }
  return options;
}

/** `copies` copies of the source tree (without its .git), side by side when more than one; made when missing. */
function tree(source: string, copies: number): string {
  const path = join(tmpdir(), `garuda-bench-treeedit-x${copies}`);
  if (existsSync(join(path, ".made"))) return path;
  rmSync(path, { recursive: true, force: true });
  mkdirSync(path);
  const at = performance.now();
  for (let i = 1; i <= copies; i++) {
    const copy = copies === 1 ? path : join(path, `linux-${i}`);
    if (copies === 1) for (const name of readdirSync(source)) execFileSync("cp", ["-R", join(source, name), path]);
    else execFileSync("cp", ["-R", source, copy]);
    rmSync(join(copy, ".git"), { recursive: true, force: true });
    rmSync(join(copy, ".ready"), { force: true });
  }
  writeFileSync(join(path, ".made"), "");
  console.log(`copied ${copies} x ${source} to ${path} in ${((performance.now() - at) / 1000).toFixed(0)} s`);
  return path;
}

/** Every file under `folder` (relative), hidden ones left out (the kernel's .gitignore has `.*`). */
function filesUnder(root: string, folder = ""): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
    if (entry.isDirectory()) found.push(...filesUnder(root, path));
    else if (entry.isFile()) found.push(path);
  }
  return found;
}

/** A seeded generator (mulberry32): the same files each run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function benchTree(root: string, rounds: number): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), "garuda-bench-treeedit-home-"));
  // With the machine's sandbox, as in use: the store's git then runs in a PID namespace, not under a keeper.
  const executor = await createExecutor({ root, home, selfCommand: SELF_COMMAND, probe: machineSandbox });
  const gitDir = join(home, "store");
  const git = new GitRunner(executor, {
    root,
    gitDir,
    indexFile: join(gitDir, "index-bench"),
    tmpDir: join(gitDir, "tmp"),
  });
  try {
    const setUp = await setUpStore(git, { home, excluded: EXCLUDED, maxFiles: 100_000_000 });
    if ("refused" in setUp) throw new Error(setUp.refused);
    const take = snapshotTaker({
      git,
      excluded: EXCLUDED,
      timeoutMs: 3_600_000,
      disable: (reason) => {
        throw new Error(reason);
      },
    });
    let at = performance.now();
    let base = (await take()) as string;
    const files = filesUnder(root);
    console.log(
      `${root}: ${files.length} files; first snapshot (empty index) ${(performance.now() - at).toFixed(0)} ms`,
    );
    at = performance.now();
    await take();
    console.log(`  a full snapshot, nothing changed: ${(performance.now() - at).toFixed(0)} ms`);
    const next = random(35);
    // A folder of about a thousand files (below it), named whole: editTree reads all of them again.
    const counts = new Map<string, number>();
    for (const file of files)
      for (let at = file.indexOf("/"); at > 0; at = file.indexOf("/", at + 1))
        counts.set(file.slice(0, at), (counts.get(file.slice(0, at)) ?? 0) + 1);
    const bigFolder = [...counts].filter(([, n]) => n >= 1000).sort((a, b) => a[1] - b[1])[0];
    const cases: Array<{ name: string; change(): string[] }> = [1, 10, 100].map((n) => ({
      name: `${n} file${n > 1 ? "s" : ""}`,
      change: () => {
        const picked = new Set<string>();
        while (picked.size < n) picked.add(files[Math.floor(next() * files.length)] as string);
        return [...picked];
      },
    }));
    if (bigFolder)
      cases.push({
        name: `folder of ${bigFolder[1]}`,
        change: () => [files.find((file) => file.startsWith(`${bigFolder[0]}/`)) as string],
      });
    for (const { name, change } of cases) {
      const times: Record<string, number[]> = { edit: [], paths: [], full: [], empty: [] };
      for (let round = 0; round < rounds; round++) {
        const paths = change();
        for (const path of paths) appendFileSync(join(root, path), `// bench ${round}\n`);
        const named = name.startsWith("folder") ? [bigFolder?.[0] as string] : paths;
        const trees: Record<string, string | undefined> = {};
        const runs: Record<string, () => Promise<string | undefined>> = {
          edit: async () => (await editTree(git, base, named, { excluded: EXCLUDED, timeoutMs: 3_600_000 }))?.tree,
          paths: () => take({ written: paths }),
          full: () => take(),
          // The floor of any git call: an empty script through the executor.
          empty: async () => (await git.run({ script: ":" }), trees.full),
        };
        const order = ["edit", "paths", "full", "empty"];
        for (let i = 0; i < round % order.length; i++) order.push(order.shift() as string);
        for (const kind of order) {
          const started = performance.now();
          trees[kind] = await (runs[kind] as () => Promise<string | undefined>)();
          times[kind]?.push(performance.now() - started);
        }
        if (trees.edit !== trees.full || trees.paths !== trees.full)
          throw new Error(`${name}: trees differ: ${JSON.stringify(trees)}`);
        base = trees.full as string;
      }
      const line = Object.entries(times)
        .map(
          ([kind, values]) => `${kind} ${median(values).toFixed(0)} ms (${values.map((v) => v.toFixed(0)).join(" ")})`,
        )
        .join("  |  ");
      console.log(`  ${name.padEnd(16)} ${line}`);
    }
  } finally {
    await executor.shutdown();
    rmSync(home, { recursive: true, force: true });
  }
}

const options = parse(process.argv.slice(2));
for (const copies of options.copies) await benchTree(tree(options.source, copies), options.rounds);
