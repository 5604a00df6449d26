// Code a local MCP server's program finds through the folder it starts in — the project — with
// no path to it on the command line, which serverLaunch.ts cannot see as a file argument:
// Python's imports from the working folder (`-m`, `-c`), Bun's and Deno's configuration files,
// Node's `-r`/`--import` of a bare name, and commands that run the project's own scripts by
// design (`npm run`, `uv run`, `cargo run`, `make` …). Python's is switched off
// (PYTHONSAFEPATH); the others are the project's code that cannot be pinned by content, so the
// server is asked about in every session, saying why. A list of known programs, not a proof.
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";

/** A file of the project's that a server runs, and its content's hash (undefined: cannot be pinned — too large, or found through the folder). */
export interface ProjectFile {
  /** As the consent shows it: relative to the project root. */
  shown: string;
  hash: string | undefined;
}

export interface ProjectLookups {
  /** The project's code found through the working folder (never pinnable: `hash` undefined). */
  files: ProjectFile[];
  /** Variables that keep a lookup out of the project. */
  env: Record<string, string>;
  notes: string[];
}

const PYTHON = /^python[0-9.]*$/;
const NODE_PRELOAD = new Set(["-r", "--require", "--import", "--loader", "--experimental-loader"]);
/** Subcommands that run what the project's manifest says, and the manifest that makes them the project's. */
const RUNS_PROJECT: Record<string, { subcommands: ReadonlySet<string> | "any"; manifests: readonly string[] }> = {
  npm: {
    subcommands: new Set(["run", "run-script", "rum", "urn", "start", "test", "t", "restart"]),
    manifests: ["package.json"],
  },
  pnpm: { subcommands: new Set(["run", "start", "test", "t"]), manifests: ["package.json"] },
  yarn: { subcommands: new Set(["run", "start", "test"]), manifests: ["package.json"] },
  bun: { subcommands: new Set(["run"]), manifests: ["package.json"] },
  uv: { subcommands: new Set(["run"]), manifests: ["pyproject.toml"] },
  poetry: { subcommands: new Set(["run"]), manifests: ["pyproject.toml"] },
  pipenv: { subcommands: new Set(["run"]), manifests: ["Pipfile"] },
  cargo: { subcommands: new Set(["run"]), manifests: ["Cargo.toml"] },
  go: { subcommands: new Set(["run"]), manifests: ["go.mod"] },
  make: { subcommands: "any", manifests: ["Makefile", "makefile", "GNUmakefile"] },
  just: { subcommands: "any", manifests: ["justfile", "Justfile", ".justfile"] },
  deno: { subcommands: "any", manifests: ["deno.json", "deno.jsonc"] },
};

const unpinned = (shown: string): ProjectFile => ({ shown, hash: undefined });

/** The project's package.json scripts, by name (none when it has none or cannot be read). */
function packageScripts(root: string): Record<string, unknown> {
  try {
    const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts?: unknown }).scripts;
    return typeof scripts === "object" && scripts !== null ? (scripts as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** What `command args` finds through the project folder it starts in. `env`: the server's variables. */
export function projectLookups(
  command: string,
  args: readonly string[],
  root: string,
  env: Readonly<Record<string, string>>,
): ProjectLookups {
  const name = basename(command).replace(/\.exe$/i, "");
  const found: ProjectLookups = { files: [], env: {}, notes: [] };
  // `python -m x` and `-c` put the working folder first on sys.path: the project's x.py would win.
  if (PYTHON.test(name) && args.some((arg) => /^-[^-]*[mc]/.test(arg)) && env.PYTHONSAFEPATH === undefined) {
    found.env.PYTHONSAFEPATH = "1";
    found.notes.push("python: PYTHONSAFEPATH=1 (no imports from the project folder)");
  }
  if (name === "bun" && args[0] !== "x" && existsSync(join(root, "bunfig.toml")))
    found.files.push(unpinned("bunfig.toml (Bun reads it, and runs what it preloads, from the project folder)"));
  if (name === "node" && existsSync(join(root, "node_modules"))) {
    const preloads = args.flatMap((arg, index) => {
      if (!NODE_PRELOAD.has(args[index - 1] ?? "")) return [];
      return /^[./]/.test(arg) ? [] : [arg];
    });
    if (preloads.length > 0)
      found.files.push(unpinned(`node_modules (node loads ${preloads.join(", ")} from the project folder)`));
  }
  const runs = RUNS_PROJECT[name];
  const sub = args[0] ?? "";
  if (runs) {
    const manifest = runs.manifests.find((file) => existsSync(join(root, file)));
    const scripts = manifest === "package.json" ? packageScripts(root) : {};
    // `yarn build` runs the script too; `bun run x` is a script only when x is one (else a file, seen as such).
    const bareScript = (name === "yarn" || name === "pnpm") && sub in scripts;
    const bunScript = name !== "bun" || (args[1] ?? "") in scripts;
    if (manifest && bunScript && (runs.subcommands === "any" || runs.subcommands.has(sub) || bareScript))
      found.files.push(unpinned(`${manifest} (${[name, sub].join(" ").trim()} runs what the project defines)`));
  }
  return found;
}
