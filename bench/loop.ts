// The agent loop's own cost: a scripted 50-step session (glob, grep, read_file, edit_file in
// turn, then an answer) through a whole Runtime with FakeModelClient, in a fresh temporary
// project each round. Reports Garuda's wall time per step with the model's time taken out
// (tools, registry, permission engine, session file and loop included), and the bytes each
// request sends, split into tools, system prompt and messages.
//
//   bun bench/loop.ts [--rounds N]
//
// Two sessions run interleaved: "file tools" offers the whole default tool set (the file tools,
// bash, process_manager, web_fetch, todo, explore) and the script uses the real read_file,
// edit_file, glob and grep of src/tools/; "stub tools" uses tools of the same names that do
// nothing, so the difference is the tools' own file work.
// Targets: tools + system of the default tool set ≤ 20 KB, byte-identical in every request.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { garudaPaths } from "../src/config/paths.ts";
import { SecretIdentities } from "../src/files/secretIdentities.ts";
import { secretPlaces } from "../src/files/secrets.ts";
import type { ModelInfo } from "../src/model/catalog.ts";
import { toWireRequest } from "../src/model/anthropicRequest.ts";
import { FakeModelClient, fake } from "../src/model/fake.ts";
import type { ModelClient, ModelEvent, ModelRequest } from "../src/model/types.ts";
import { createPermissionEngine } from "../src/permission/engine.ts";
import type { Approver } from "../src/permission/types.ts";
import { Runtime } from "../src/runtime/runtime.ts";
import type { Executor } from "../src/sandbox/types.ts";
import { createSessionStore } from "../src/store/sessionFile.ts";
import { findDefinitionTool } from "../src/tools/codeIndex/findDefinition.ts";
import { symbolsTool } from "../src/tools/codeIndex/symbols.ts";
import { editFileTool } from "../src/tools/editFile.ts";
import type { FileToolDeps } from "../src/tools/fileToolDeps.ts";
import { globTool } from "../src/tools/glob.ts";
import { grepTool } from "../src/tools/grep.ts";
import { withheldPredicate } from "../src/tools/withheldPaths.ts";
import { SearchThreads } from "../src/tools/searchWorker.ts";
import { OutlineThread } from "../src/tools/codeIndex/outlineThread.ts";
import { readFileTool } from "../src/tools/readFile.ts";
import { ReadTracker } from "../src/tools/readTracker.ts";
import { exploreTool } from "../src/tools/explore.ts";
import { createSessionTools } from "../src/tools/sessionTools.ts";
import type { Tool } from "../src/tools/types.ts";
import { writeFileTool } from "../src/tools/writeFile.ts";
import { type TaskResult, formatStat, formatTable, interleave } from "./interleave.ts";

const STEPS = 50;
const FILES = 120;
const TARGET_BYTES = 20_000;

const MODEL: ModelInfo = {
  spec: "claude-bench",
  provider: "anthropic",
  id: "claude-bench",
  contextWindow: 1_000_000,
  maxTokens: 64_000,
  price: null,
  thinking: "none",
};

function parse(argv: string[]): { rounds: number } {
  let rounds = 15;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--rounds") rounds = Number(argv[++i]);
    else if (arg?.startsWith("--rounds=")) rounds = Number(arg.slice(9));
    else throw new Error(`unknown argument ${arg}; usage: bun bench/loop.ts [--rounds N]`);
  }
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds needs a positive integer");
  return { rounds };
}

/** A TypeScript project of FILES modules, ~40 lines each. */
function writeTemplate(dir: string): void {
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "package.json"), '{ "name": "bench-project", "type": "module" }\n');
  for (let i = 0; i < FILES; i++) {
    const lines = [`// Module ${i}: arithmetic helpers.`, `import { helper } from "./mod${(i + 1) % FILES}.ts";`, ""];
    lines.push(`export function fn${i}(a: number): number {`, `  return a + ${i};`, "}", "");
    for (let j = 0; j < 8; j++) lines.push(`export const value${i}_${j} = fn${i}(${j}) * helper(${j});`);
    lines.push(
      "",
      `export class Service${i} {`,
      "  #count = 0;",
      "  next(): number {",
      "    this.#count++;",
      `    return fn${i}(this.#count);`,
      "  }",
      "}",
      "",
    );
    lines.push(`export function helper(x: number): number {`, `  return x * ${i + 1};`, "}");
    writeFileSync(join(dir, "src", `mod${i}.ts`), `${lines.join("\n")}\n`);
  }
}

/** The model's side of the session: a tool call per step (in a cycle of four), then an answer. */
function script(): ModelEvent[][] {
  const turns: ModelEvent[][] = [];
  for (let step = 0; step < STEPS - 1; step++) {
    const k = Math.floor(step / 4) * 7;
    const usage = { inputTokens: 2_000 + step * 400, outputTokens: 60 };
    const calls = [
      () => fake.toolCall("glob", { pattern: "*.ts", path: "src" }, { text: "Looking for the modules.", usage }),
      () =>
        fake.toolCall(
          "grep",
          { pattern: `fn${k}\\(`, path: "src", glob: "*.ts", maxResults: 50 },
          { text: "Finding the callers.", usage },
        ),
      () => fake.toolCall("read_file", { path: `src/mod${k}.ts` }, { text: "Reading the module.", usage }),
      () =>
        fake.toolCall(
          "edit_file",
          { path: `src/mod${k}.ts`, old_string: `  return a + ${k};`, new_string: `  return a + ${k} + 1;` },
          { text: "Changing it.", usage },
        ),
    ];
    turns.push((calls[step % 4] as () => ModelEvent[])());
  }
  turns.push(fake.text("Done: twelve modules now add one more.", { usage: { inputTokens: 22_000, outputTokens: 20 } }));
  return turns;
}

/** The default tool set of a session (as prepareRuntime builds it), so the bytes measured are the real ones. */
function fileTools(): Tool[] {
  const home = process.env.HOME ?? "/nonexistent";
  const deps: FileToolDeps = {
    reads: new ReadTracker(),
    withheld: withheldPredicate({ home }),
    searches: new SearchThreads(),
    outlines: new OutlineThread(),
    identities: new SecretIdentities(secretPlaces(home)),
  };
  const files = [
    readFileTool(deps),
    writeFileTool(deps),
    editFileTool(deps),
    globTool(deps),
    grepTool(deps),
    symbolsTool(deps),
    findDefinitionTool(deps),
  ] as Tool[];
  return [...files, ...createSessionTools({ outsideSandbox: "ask" }).tools, exploreTool() as Tool];
}

/** Tools of the same names that touch nothing: the loop's cost without file work. */
function stubTools(): Tool[] {
  return fileTools().map(
    (tool): Tool => ({
      ...tool,
      input: z.record(z.string(), z.unknown()) as Tool["input"],
      plan: (input) => ({
        input,
        info: { title: tool.name, kind: "other", locations: [] },
        permission: { tool: tool.name, readOnly: tool.readOnly, target: { kind: "input" }, preview: tool.name },
      }),
      run: async () => ({ output: `${tool.name}: ok` }),
    }),
  );
}

const executor: Executor = {
  sandbox: { available: false, reason: "benchmark", fix: "none" },
  run: () => Promise.reject(new Error("no commands in this benchmark")),
  start: () => {
    throw new Error("no commands in this benchmark");
  },
  shutdown: async () => {},
};
const approveAll: Approver = { ask: async () => "once" };

/** Adds up the time spent inside the model client (stream() and every next()). */
class TimedClient implements ModelClient {
  modelMs = 0;
  constructor(readonly inner: ModelClient) {}

  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    const started = performance.now();
    const iterable = this.inner.stream(request, signal);
    this.modelMs += performance.now() - started;
    const timed = async function* (self: TimedClient): AsyncGenerator<ModelEvent> {
      const iterator = iterable[Symbol.asyncIterator]();
      for (;;) {
        const t0 = performance.now();
        const next = await iterator.next();
        self.modelMs += performance.now() - t0;
        if (next.done) return;
        yield next.value;
      }
    };
    return timed(this);
  }
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value ?? null));

/** One session in a fresh copy of the project; `keep` gets the requests the model received. */
async function runSession(
  tools: () => Tool[],
  template: string,
  keep: (requests: ModelRequest[]) => void,
): Promise<Record<string, number>> {
  const work = mkdtempSync(join(tmpdir(), "garuda-bench-loop-"));
  const root = join(work, "project");
  const home = join(work, "home");
  cpSync(template, root, { recursive: true });
  mkdirSync(home);
  try {
    const fakeModel = new FakeModelClient(script());
    const client = new TimedClient(fakeModel);
    const engine = createPermissionEngine({ root, home, sandboxAvailable: false });
    const runtime = Runtime.create({
      root,
      home,
      model: { client, info: MODEL },
      tools: tools(),
      engine,
      executor,
      approver: approveAll,
      mode: "build",
      sessionStore: (onError) => createSessionStore({ sessionsDir: garudaPaths(home).sessions, onError }),
    });
    const started = performance.now();
    const failed: string[] = [];
    const stop = await runtime.runTurn(
      "Make every fnN add one more, module by module.",
      new AbortController().signal,
      (event) => {
        if (event.type === "tool_result" && event.status !== "completed") failed.push(event.output);
      },
    );
    const wallMs = performance.now() - started;
    await runtime.close();
    if (stop !== "done" || fakeModel.requests.length !== STEPS)
      throw new Error(`the session ended ${stop} after ${fakeModel.requests.length} requests`);
    if (failed.length > 0) throw new Error(`${failed.length} tool calls failed, the first: ${failed[0]}`);
    keep(fakeModel.requests);
    return { ownMsPerStep: (wallMs - client.modelMs) / STEPS, wallMs, modelMs: client.modelMs };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function requestBytes(requests: readonly ModelRequest[]) {
  return requests.map((request) => {
    const body = toWireRequest(request);
    return {
      tools: bytes(body.tools),
      system: bytes(body.system),
      messages: bytes(body.messages),
      prefix: JSON.stringify([body.tools, body.system]),
    };
  });
}

async function main(): Promise<void> {
  const { rounds } = parse(process.argv.slice(2));
  const template = mkdtempSync(join(tmpdir(), "garuda-bench-template-"));
  try {
    writeTemplate(template);
    const sessions = new Map<string, ModelRequest[]>();
    const task = (name: string, tools: () => Tool[]) => ({
      name,
      run: () => runSession(tools, template, (requests) => sessions.set(name, requests)),
    });
    const results: TaskResult[] = await interleave([task("file tools", fileTools), task("stub tools", stubTools)], {
      rounds,
      warmup: 2,
    });

    console.log(`Garuda loop benchmark: ${STEPS} steps per session, ${rounds} interleaved rounds, medians [p10–p90]\n`);
    console.log(
      formatTable(
        ["session", "own ms/step", "own+model ms (session)", "model ms (session)"],
        results.map((result) => [
          result.name,
          formatStat(result.stats.ownMsPerStep, 2),
          formatStat(result.stats.wallMs),
          formatStat(result.stats.modelMs),
        ]),
      ),
    );

    const real = sessions.get("file tools");
    if (!real) throw new Error("no session was recorded");
    const sizes = requestBytes(real);
    const first = sizes[0];
    const last = sizes.at(-1);
    if (!first || !last) throw new Error("no requests");
    const identical = sizes.every((size) => size.prefix === first.prefix);
    const total = (key: "tools" | "system" | "messages") => sizes.reduce((sum, size) => sum + size[key], 0);
    const kb = (n: number) => `${(n / 1000).toFixed(1)} KB`;
    console.log("\nBytes sent to the model per request (file tools session, JSON of the wire body):\n");
    console.log(
      formatTable(
        ["request", "tools", "system", "messages", "all"],
        [
          [
            "first",
            kb(first.tools),
            kb(first.system),
            kb(first.messages),
            kb(first.tools + first.system + first.messages),
          ],
          [
            `last (#${sizes.length})`,
            kb(last.tools),
            kb(last.system),
            kb(last.messages),
            kb(last.tools + last.system + last.messages),
          ],
          [
            `session (${sizes.length} requests)`,
            kb(total("tools")),
            kb(total("system")),
            kb(total("messages")),
            kb(total("tools") + total("system") + total("messages")),
          ],
        ],
      ),
    );
    const prefix = first.tools + first.system;
    const tools = real[0]?.tools.map((tool) => tool.name).join(", ");
    console.log(
      `\nDefault tool set (${tools}): tools + system = ${kb(prefix)} (target ≤ ` +
        `${kb(TARGET_BYTES)}): ${prefix <= TARGET_BYTES ? "ok" : "OVER TARGET"}`,
    );
    console.log(`Tools and system byte-identical in all ${sizes.length} requests: ${identical ? "yes" : "NO"}`);
    if (prefix > TARGET_BYTES || !identical) process.exitCode = 1;
  } finally {
    rmSync(template, { recursive: true, force: true });
  }
}

await main();
