// Runs one hook command through the Executor (never a process of its own): the event goes in as
// JSON on stdin and in a 0600 file named by $GARUDA_HOOK_INPUT, with GARUDA_* variables for the
// common fields. Only the hook's stderr comes back (its stdout is discarded): that is what a
// block reason or feedback is made of.
import { tmpdir } from "node:os";
import { resolve } from "node:path";
import { messageOf } from "../errors/caught.ts";
import type { PermissionTarget } from "../permission/types.ts";
import type { Executor, ExecResult, SandboxSpec } from "../sandbox/types.ts";
import { writeHookInputFile } from "../store/hookInputFile.ts";
import { cleanHookText } from "./hookOutput.ts";
import type { HookDefinition, HookEventName } from "./hooksConfig.ts";

/** Output kept from a hook run, in bytes. */
const HOOK_OUTPUT_BYTES = 8_000;

/** What a hook is told about the call. */
export interface HookEventData {
  event: HookEventName;
  tool: string;
  callId?: string;
  /** The tool's input as the model gave it. */
  input: unknown;
  target: PermissionTarget;
  /** postToolUse only: the tool's result text. */
  result?: string;
}

export interface HookExecContext {
  executor: Executor;
  /** The sandbox the hook runs in; null = on the host (the caller decides, policy permitting). */
  sandbox: SandboxSpec | null;
  /** The project root (absolute): the hook's working folder. */
  root: string;
  signal?: AbortSignal;
  /** Where the input file goes; default the sandbox's tmpDir (visible inside it), else the OS temp folder. */
  inputDir?: string;
}

export interface HookExecution {
  /** ok = exit 0; exit2 = the hook's "no"; failed = any other end (exit code, signal, timeout, cancel, error). */
  status: "ok" | "exit2" | "failed";
  /** The hook's stderr, cleaned and capped. */
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  killed: boolean;
  durationMs: number;
  /** For failed: what went wrong, in a few words. */
  problem?: string;
}

/** The target with a path made absolute. */
function absoluteTarget(target: PermissionTarget, root: string): PermissionTarget {
  return target.kind === "path" ? { ...target, path: resolve(root, target.path) } : target;
}

/** The JSON a hook reads: {event, tool, callId, input, target, result?, root}. */
function hookInputJson(data: HookEventData, root: string): string {
  return JSON.stringify({
    event: data.event,
    tool: data.tool,
    ...(data.callId ? { callId: data.callId } : {}),
    input: data.input ?? null,
    target: absoluteTarget(data.target, root),
    ...(data.result !== undefined ? { result: data.result } : {}),
    root,
  });
}

/** The GARUDA_* variables. Every one is set (empty when it does not apply), so none leaks in from outside. */
function hookEnv(data: HookEventData, root: string, inputPath: string): Record<string, string> {
  const target = data.target;
  return {
    GARUDA_HOOK_EVENT: data.event,
    GARUDA_HOOK_INPUT: inputPath,
    GARUDA_TOOL: data.tool,
    GARUDA_FILE: target.kind === "path" ? resolve(root, target.path) : "",
    GARUDA_COMMAND: target.kind === "command" ? target.command : "",
    GARUDA_URL: target.kind === "url" ? target.url : "",
  };
}

/** The command line run: the hook in a subshell, its stderr kept and its stdout dropped. */
function wrapHookCommand(command: string): string {
  return `(\n${command}\n) 2>&1 1>/dev/null`;
}

function describeEnd(result: ExecResult, timeoutMs: number): string {
  if (result.timedOut) return `timed out after ${timeoutMs / 1000}s`;
  if (result.killed) return "was cancelled";
  if (result.exitCode === null) return `ended by signal ${result.signal ?? "unknown"}`;
  return `exited with ${result.exitCode}`;
}

/** Runs one hook. Never throws: an executor error is a failed run. */
export async function executeHook(
  hook: HookDefinition,
  data: HookEventData,
  ctx: HookExecContext,
): Promise<HookExecution> {
  const started = Date.now();
  const json = hookInputJson(data, ctx.root);
  try {
    using input = writeHookInputFile(ctx.inputDir ?? ctx.sandbox?.tmpDir ?? tmpdir(), json);
    const result = await ctx.executor.run({
      command: wrapHookCommand(hook.command),
      cwd: ctx.root,
      sandbox: ctx.sandbox,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      timeoutMs: hook.timeoutMs,
      env: hookEnv(data, ctx.root, input.path),
      stdin: json,
      maxOutputBytes: HOOK_OUTPUT_BYTES,
    });
    const base = {
      stderr: cleanHookText(result.output),
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      killed: result.killed,
      durationMs: result.durationMs,
    };
    const clean = !result.timedOut && !result.killed;
    if (clean && result.exitCode === 0) return { status: "ok", ...base };
    if (clean && result.exitCode === 2) return { status: "exit2", ...base };
    return { status: "failed", ...base, problem: describeEnd(result, hook.timeoutMs) };
  } catch (error) {
    const message = messageOf(error);
    return {
      status: "failed",
      stderr: "",
      exitCode: null,
      timedOut: false,
      killed: false,
      durationMs: Date.now() - started,
      problem: `could not run (${cleanHookText(message, 300)})`,
    };
  }
}
