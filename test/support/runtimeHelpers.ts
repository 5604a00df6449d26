// Fixtures for the runtime tests: small tools, a fake executor, a scripted approver, and a
// Runtime in a temporary project with a FakeModelClient.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { ModelInfo } from "../../src/model/catalog.ts";
import { FakeModelClient, type FakeTurn } from "../../src/model/fake.ts";
import type { ModelClient } from "../../src/model/types.ts";
import { createPermissionEngine, type PermissionAuditEvent } from "../../src/permission/engine.ts";
import type { ApprovalRequest, Approver, Choice } from "../../src/permission/types.ts";
import type { AgentEvent } from "../../src/core-types/events.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { createSessionStore } from "../../src/store/sessionFile.ts";
import { Runtime } from "../../src/runtime/runtime.ts";
import type { RuntimeOptions } from "../../src/runtime/runtimeOptions.ts";
import type { Executor, SandboxAvailability } from "../../src/sandbox/types.ts";
import type { Tool, ToolContext, ToolResult } from "../../src/tools/types.ts";
import { makeTempDir } from "./tempDir.ts";

export const MODEL: ModelInfo = {
  spec: "claude-test",
  provider: "anthropic",
  id: "claude-test",
  contextWindow: 200_000,
  maxTokens: 64_000,
  price: null,
  thinking: "none",
};

export function fakeExecutor(
  sandbox: SandboxAvailability = { available: true, kind: "bwrap" },
): Executor & { shutdowns: number } {
  const executor = {
    sandbox,
    shutdowns: 0,
    run: () => Promise.reject(new Error("no processes in this test")),
    start: () => {
      throw new Error("no processes in this test");
    },
    shutdown: async () => {
      executor.shutdowns++;
    },
  };
  return executor;
}

export function scriptedApprover(...answers: Choice[]): Approver & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    ask: async (request) => {
      asked.push(request);
      return answers.shift() ?? "deny";
    },
  };
}

const pathInput = z.object({ path: z.string().describe("A path relative to the project root.") });
type PathInput = z.infer<typeof pathInput>;

/** A read-only tool that reads a file of the root (or runs `body`). */
export function readTool(
  name = "read",
  body?: (input: PathInput, ctx: ToolContext) => Promise<ToolResult>,
): Tool<PathInput> {
  return {
    name,
    description: `Reads a file (${name}).`,
    input: pathInput,
    readOnly: true,
    plan: (input, ctx) => ({
      input,
      info: { title: `Read ${input.path}`, kind: "read", locations: [{ path: join(ctx.root, input.path) }] },
      permission: {
        tool: name,
        readOnly: true,
        target: { kind: "path", path: input.path, access: "read" },
        preview: input.path,
      },
    }),
    run: ({ input }, ctx) =>
      body
        ? body(input, ctx)
        : Promise.resolve({ output: readFileSync(join(ctx.root, input.path), "utf8"), summary: "read" }),
  };
}

const writeInput = z.object({ path: z.string(), content: z.string() });
type WriteInput = z.infer<typeof writeInput>;

/** A tool that writes a file of the root (asks in build mode, denied in plan mode). */
export function writeTool(
  name = "write",
  body?: (input: WriteInput, ctx: ToolContext) => Promise<ToolResult>,
): Tool<WriteInput> {
  return {
    name,
    description: "Writes a file.",
    input: writeInput,
    readOnly: false,
    plan: (input, ctx) => ({
      input,
      info: {
        title: `Write ${input.path}`,
        kind: "edit",
        locations: [{ path: join(ctx.root, input.path) }],
        change: { path: input.path, oldText: null, newText: input.content },
      },
      permission: {
        tool: name,
        readOnly: false,
        target: { kind: "path", path: input.path, access: "write" },
        preview: "",
      },
    }),
    run: async ({ input }, ctx) => {
      if (body) return body(input, ctx);
      await ctx.beforeWrite([join(ctx.root, input.path)]);
      writeFileSync(join(ctx.root, input.path), input.content);
      return { output: `Wrote ${input.path}.` };
    },
  };
}

export interface TestRuntime {
  runtime: Runtime;
  model: FakeModelClient;
  root: string;
  home: string;
  executor: ReturnType<typeof fakeExecutor>;
  decisions: PermissionAuditEvent[];
  [Symbol.asyncDispose](): Promise<void>;
}

export interface TestRuntimeOptions extends Partial<Omit<RuntimeOptions, "model" | "engine" | "executor">> {
  turns?: FakeTurn[];
  info?: Partial<ModelInfo>;
  executor?: ReturnType<typeof fakeExecutor>;
  files?: Record<string, string>;
  delayMs?: number;
  /** A real client instead of the FakeModelClient (whose script then stays unused). */
  client?: ModelClient;
}

/** A Runtime over a temporary root and home; `await using` removes them. */
export function testRuntime(options: TestRuntimeOptions = {}): TestRuntime {
  const root = options.root ?? makeTempDir("garuda-root-");
  const home = options.home ?? makeTempDir("garuda-home-");
  for (const [path, text] of Object.entries(options.files ?? {})) writeFileSync(join(root, path), text);
  const model = new FakeModelClient(options.turns ?? [], { delayMs: options.delayMs ?? 0 });
  const executor = options.executor ?? fakeExecutor();
  const decisions: PermissionAuditEvent[] = [];
  const engine = createPermissionEngine({
    root,
    home,
    sandboxAvailable: executor.sandbox.available,
    audit: (event) => decisions.push(event),
  });
  const { turns: _turns, info, files: _files, delayMs: _delay, client, ...rest } = options;
  const cleanup = () => {
    if (!options.root) rmSync(root, { recursive: true, force: true });
    if (!options.home) rmSync(home, { recursive: true, force: true });
  };
  let runtime: Runtime;
  try {
    runtime = Runtime.create({
      root,
      home,
      model: { client: client ?? model, info: { ...MODEL, ...info } },
      tools: [readTool(), writeTool()],
      engine,
      executor,
      mode: "build",
      sessionStore: (onWriteError) =>
        createSessionStore({ sessionsDir: garudaPaths(home).sessions, onError: onWriteError }),
      ...rest,
    });
  } catch (error) {
    cleanup();
    throw error;
  }
  return {
    runtime,
    model,
    root,
    home,
    executor,
    decisions,
    [Symbol.asyncDispose]: async () => {
      await runtime.close();
      cleanup();
    },
  };
}

/** Runs a turn and collects its events. */
export async function turn(
  runtime: Runtime,
  prompt: string,
  signal = new AbortController().signal,
): Promise<{ stop: string; events: AgentEvent[] }> {
  const events: AgentEvent[] = [];
  const stop = await runtime.runTurn(prompt, signal, (event) => events.push(event));
  return { stop, events };
}

export const texts = (events: readonly AgentEvent[]) =>
  events.flatMap((event) => (event.type === "text_delta" ? [event.text] : [])).join("");

export function ofType<T extends AgentEvent["type"]>(
  events: readonly AgentEvent[],
  type: T,
): Extract<AgentEvent, { type: T }>[] {
  return events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);
}
