// What session folders and wide-root checks cost, as medians of interleaved runs:
//   - making and removing one session folder (what session/new and close add);
//   - the sweep with nothing to do, and with 50 dead processes' folders (1 MB each) to remove;
//   - sandboxPaths() for a project root against a session at a home folder with 40 entries
//     (aroundHome lists the home at every command).
//
//   bun bench/sessionFolders.ts [--rounds N]
//
// None of this runs for `garuda --version` or the ACP initialize answer: the folder and the sweep
// happen at session/new, the sweep in the background.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { realFs } from "../src/sandbox/fsView.ts";
import { sandboxPaths } from "../src/sandbox/paths.ts";
import { createSessionFolder, sweepSessionFolders } from "../src/sandbox/sessionFolders.ts";
import type { SandboxSpec } from "../src/sandbox/types.ts";
import { type Task, formatStat, formatTable, interleave } from "./interleave.ts";

function parse(argv: string[]): { rounds: number } {
  let rounds = 40;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--rounds") rounds = Number(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}; usage: bun bench/sessionFolders.ts [--rounds N]`);
  }
  if (!(rounds > 0)) throw new Error("--rounds needs a positive number");
  return { rounds };
}

const { rounds } = parse(process.argv.slice(2));
const scratch = mkdtempSync(join(tmpdir(), "garuda-bench-folders-"));
const base = join(scratch, "base");
const deadBase = join(scratch, "dead");
const home = join(scratch, "home");
const project = join(home, "projects", "app");
mkdirSync(project, { recursive: true });
for (let i = 0; i < 20; i++) mkdirSync(join(home, `folder-${i}`));
for (let i = 0; i < 19; i++) mkdirSync(join(home, `.dot-${i}`));

const spec = (root: string): SandboxSpec => ({
  root,
  home,
  tmpDir: join(scratch, "tmp"),
  projectReadOnly: false,
  writePaths: [],
  protectedPaths: [],
  denyReadPaths: [],
  network: { mode: "none" },
  pathFolders: (process.env.PATH ?? "").split(":"),
});

// This process's PID namespace, as its folders carry it (the sweep judges only its own namespace's).
const namespace = (await createSessionFolder(join(scratch, "probe"))).dir.split("-").at(-2);

/** 50 folders of a pid that is not running (pid 1's start time is never "1"), 1 MB each. */
function plantDead(): void {
  mkdirSync(deadBase, { recursive: true, mode: 0o700 });
  for (let i = 0; i < 50; i++) {
    const dir = join(deadBase, `1-1-${namespace}-${i.toString(16).padStart(8, "0")}`, "tmp");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "data"), new Uint8Array(1024 * 1024));
  }
}

const time = async (work: () => unknown): Promise<Record<string, number>> => {
  const started = performance.now();
  await work();
  return { ms: performance.now() - started };
};

const tasks: Task[] = [
  { name: "session folder: make + remove", run: () => time(async () => (await createSessionFolder(base)).remove()) },
  { name: "sweep, nothing to remove", run: () => time(() => sweepSessionFolders(base)) },
  {
    name: "sweep, 50 dead folders of 1 MB",
    run: async () => {
      plantDead();
      return time(() => sweepSessionFolders(deadBase));
    },
  },
  { name: "sandboxPaths, project root", run: () => time(() => sandboxPaths(spec(project), realFs)) },
  { name: "sandboxPaths, home root (40 entries)", run: () => time(() => sandboxPaths(spec(home), realFs)) },
];

try {
  const results = await interleave(tasks, { rounds, warmup: 3 });
  console.log(
    formatTable(
      ["task", "ms median [p10–p90]"],
      results.map((r) => [r.name, formatStat(r.stats.ms, 3)]),
    ),
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
