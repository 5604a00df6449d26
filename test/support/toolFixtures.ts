// Fixtures for the file tool tests and bench/tools.ts: a session's worth of tool context over a
// temp root, and a generated source tree of any size.
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Decision } from "../../src/permission/types.ts";
import { createFileTools, type FileToolsOptions } from "../../src/tools/fileTools.ts";
import type { PlanContext, Tool, ToolContext, ToolPlan, ToolResult } from "../../src/tools/types.ts";
import { tempDir } from "./tempDir.ts";

export interface ContextLog {
  writes: string[][];
  progress: string[];
}

/** A ToolContext over `root` that records beforeWrite calls; authorize always allows. */
export function toolContext(
  root: string,
  log: ContextLog = { writes: [], progress: [] },
  signal = new AbortController().signal,
): ToolContext {
  return {
    root,
    home: join(root, ".home-not-used"),
    callId: "call-1",
    mode: "build",
    signal,
    executor: {} as ToolContext["executor"],
    sandbox: null,
    authorize: async (): Promise<Decision> => ({ outcome: "allow", by: "rule" }),
    progress: (text) => log.progress.push(text),
    beforeWrite: async (paths) => {
      log.writes.push(paths);
    },
  };
}

/** What a tool's plan() gets, over `root` (no sandbox, no executor). */
export function planContext(root: string, home = "/home/u"): PlanContext {
  return { root, home, sandbox: null, executor: {} as PlanContext["executor"] };
}

/** Runs a tool as the registry does, without the engine and hooks: input parsed, planned, run from that plan. */
export function runTool<I, P extends ToolPlan<I>>(
  tool: Tool<I, P>,
  input: unknown,
  ctx: ToolContext,
): Promise<ToolResult> {
  return tool.run(tool.plan(tool.input.parse(input), ctx), ctx);
}

/** Deterministic source text of roughly `size` characters that mentions `marker` once when given. */
export function sourceText(seed: number, marker?: string): string {
  const lines = [
    `// module ${seed}`,
    `import { helper${seed % 97} } from "../shared/helper${seed % 97}.ts";`,
    "",
    `export interface Shape${seed} {`,
    "  id: number;",
    "  name: string;",
    "}",
    "",
    `export function compute${seed}(input: Shape${seed}): number {`,
    `  const factor = ${seed % 13} + helper${seed % 97}(input.id);`,
    "  let total = 0;",
    "  for (let i = 0; i < input.name.length; i++) total += input.name.charCodeAt(i) * factor;",
    "  return total;",
    "}",
    "",
    `export class Service${seed} {`,
    "  private cache = new Map<number, number>();",
    `  run(shape: Shape${seed}): number {`,
    "    const hit = this.cache.get(shape.id);",
    "    if (hit !== undefined) return hit;",
    `    const value = compute${seed}(shape);`,
    "    this.cache.set(shape.id, value);",
    "    return value;",
    "  }",
    "}",
  ];
  if (marker) lines.splice(12, 0, `  // ${marker}`);
  return `${lines.join("\n")}\n`;
}

export interface TreeSpec {
  /** How many source files (spread over folders of 10). */
  files: number;
  /** Every how many-th file carries the marker (0 = none). */
  markerEvery?: number;
  marker?: string;
}

/**
 * A project tree: `files` .ts files in pkgN/modN/dirN/, a .gitignore ignoring dist/ and *.log, an
 * ignored dist/ and a node_modules/ with files that must not be searched, and a .git folder.
 */
export function makeTree(root: string, spec: TreeSpec): { markers: number } {
  let markers = 0;
  writeFileSync(join(root, ".gitignore"), "dist/\n*.log\n");
  for (let i = 0; i < spec.files; i++) {
    const dir = join(
      root,
      `pkg${Math.floor(i / 1000)}`,
      `mod${Math.floor(i / 100) % 10}`,
      `dir${Math.floor(i / 10) % 10}`,
    );
    if (i % 10 === 0) mkdirSync(dir, { recursive: true });
    const marked = spec.markerEvery !== undefined && spec.markerEvery > 0 && i % spec.markerEvery === 0;
    if (marked) markers++;
    writeFileSync(join(dir, `file${i % 10}.ts`), sourceText(i, marked ? spec.marker : undefined));
  }
  for (const extra of ["dist", "node_modules/pkg", ".git/objects"]) {
    mkdirSync(join(root, extra), { recursive: true });
    for (let i = 0; i < 20; i++) writeFileSync(join(root, extra, `junk${i}.ts`), sourceText(i, spec.marker));
  }
  writeFileSync(join(root, "debug.log"), `${spec.marker ?? "log"}\n`);
  return { markers };
}

/** The file tools of one session over `root`, with helpers to run them by name (input parsed by the schema). */
export function session(root: string, options: Partial<FileToolsOptions> = {}) {
  const log: ContextLog = { writes: [], progress: [] };
  const ctx = toolContext(root, log);
  if (options.home !== undefined) ctx.home = options.home;
  const { tools, deps } = createFileTools({ ...options, home: ctx.home });
  const tool = (name: string): Tool => {
    const found = tools.find((t) => t.name === name);
    if (!found) throw new Error(`no tool ${name}`);
    return found;
  };
  const run = (name: string, input: unknown): Promise<ToolResult> => runTool(tool(name), input, ctx);
  return { tools, deps, ctx, log, tool, run };
}

/** A temp project root (real path) removed at the end of the `using` block. */
export function tempRoot(): { path: string; [Symbol.dispose](): void } {
  const dir = tempDir("garuda-tools-");
  return { path: realpathSync(dir.path), [Symbol.dispose]: () => dir[Symbol.dispose]() };
}

/** Writes files (path → content) under root, creating folders. */
export function writeFiles(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}
