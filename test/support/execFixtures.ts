// Fixtures for the command, web and plan tool tests: real executors (host, or the machine's OS
// sandbox), a ToolContext over them that records progress and approvals, and a runner that
// parses input the way the registry does.
import { realpathSync } from "node:fs";
import { join } from "node:path";
import type { Decision, PermissionRequest } from "../../src/permission/types.ts";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor, SandboxSpec } from "../../src/sandbox/types.ts";
import type { Tool, ToolContext, ToolPlan, ToolResult } from "../../src/tools/types.ts";
import { SELF_COMMAND, machineSandbox } from "./sandboxSupport.ts";
import { tempDir } from "./tempDir.ts";
import { runTool } from "./toolFixtures.ts";

export const NO_SANDBOX = {
  availability: { available: false as const, reason: "no sandbox in this test", fix: "none needed" },
};

export interface Workspace {
  root: string;
  home: string;
  executor: ProcessExecutor;
  dispose(): Promise<void>;
}

/** A temp project and home with an executor: on the host only, or with the machine's sandbox. */
export async function workspace(
  kind: "host" | "sandbox" = "host",
  env?: Record<string, string | undefined>,
): Promise<Workspace> {
  const dir = tempDir("garuda-exec-tools-");
  const base = realpathSync(dir.path);
  const root = join(base, "project");
  const home = join(base, "home");
  await Bun.write(join(root, ".keep"), "");
  await Bun.write(join(home, ".keep"), "");
  const executor = await createExecutor({
    root,
    home,
    selfCommand: SELF_COMMAND,
    probe: kind === "sandbox" ? machineSandbox : NO_SANDBOX,
    killGraceMs: 500,
    ...(env && { env }),
  });
  return {
    root,
    home,
    executor,
    async dispose() {
      await executor.shutdown();
      dir[Symbol.dispose]();
    },
  };
}

export interface ContextRecord {
  progress: Array<{ text: string; at: number }>;
  asked: PermissionRequest[];
}

export interface ContextOptions {
  sandbox?: SandboxSpec | null;
  signal?: AbortSignal;
  /** What ctx.authorize answers (default: allow). */
  answer?: (request: PermissionRequest) => Decision;
}

export function execContext(
  ws: Workspace,
  options: ContextOptions = {},
  record: ContextRecord = { progress: [], asked: [] },
): ToolContext {
  const started = performance.now();
  return {
    root: ws.root,
    home: ws.home,
    callId: "call-1",
    mode: "build",
    signal: options.signal ?? new AbortController().signal,
    executor: ws.executor,
    sandbox:
      options.sandbox === undefined ? (ws.executor.sandbox.available ? ws.executor.spec() : null) : options.sandbox,
    authorize: async (request) => {
      record.asked.push(request);
      return options.answer ? options.answer(request) : { outcome: "allow", by: "user" };
    },
    progress: (text) => record.progress.push({ text, at: performance.now() - started }),
    beforeWrite: async () => {},
  };
}

/** Runs a tool with its input parsed by its schema and planned, as the registry does. */
export function call<I, P extends ToolPlan<I>>(
  tool: Tool<I, P>,
  input: unknown,
  ctx: ToolContext,
): Promise<ToolResult> {
  return runTool(tool, input, ctx);
}
