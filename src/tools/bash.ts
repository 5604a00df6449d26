// bash: one command, in the OS sandbox unless the model asks to leave it (then the permission
// target says `sandboxed: false` and the engine asks). Output streams to the front end as
// throttled progress lines; the model gets "Exit code: N", the capped output, and `[Garuda: …]`
// hints when the sandbox is the likely cause of a failure.
import { z } from "zod";
import { CommandTooLongError } from "../sandbox/commandTooLong.ts";
import { SandboxUnavailableError } from "../sandbox/executor.ts";
import type { ExecResult, SandboxSpec } from "../sandbox/types.ts";
import { oneLine } from "../text/visible.ts";
import description from "./bash.txt" with { type: "text" };
import { HeadTail, OUTPUT_CHARS, ProgressThrottle, stripCdRoot } from "./commandOutput.ts";
import { type OutsideSandbox, sandboxHints } from "./sandboxHints.ts";
import type { PlanContext, PlanWithState, Tool, ToolContext, ToolResult } from "./types.ts";

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;

const input = z.object({
  command: z.string().min(1).describe("The command line, run with bash in the project folder."),
  timeout_ms: z
    .number()
    .int()
    .min(1_000)
    .max(MAX_TIMEOUT_MS)
    .optional()
    .describe("Stop the command after this many milliseconds (default 120000)."),
  description: z.string().max(200).optional().describe("A few words on what the command does, for the user."),
  outside_sandbox: z
    .boolean()
    .optional()
    .describe("Run outside the OS sandbox. The user is asked first; use only when the sandbox is in the way."),
});
export type BashInput = z.infer<typeof input>;

export interface BashOptions {
  /** "forbidden" when the team policy never lets a command leave the sandbox (hints then do not offer it). */
  outsideSandbox?: OutsideSandbox;
  /** Progress throttle interval (default 100 ms). */
  progressIntervalMs?: number;
  /** Output cap in characters (default 30,000). */
  maxOutputChars?: number;
}

/** The sandbox a call runs in: none when asked to leave it or when no OS sandbox works here. */
function commandSandbox(
  outside: boolean | undefined,
  ctx: Pick<ToolContext, "sandbox" | "executor">,
): SandboxSpec | null {
  if (outside) return null;
  return ctx.executor.sandbox.available ? ctx.sandbox : null;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function headline(result: ExecResult, timeoutMs: number): string {
  if (result.timedOut)
    return (
      `Exit code: none. The command timed out after ${seconds(timeoutMs)} and was ` +
      `stopped, with every process it started.`
    );
  if (result.killed) return "Exit code: none. The command was cancelled and stopped, with every process it started.";
  if (result.exitCode === null) return `Exit code: none (ended by ${result.signal ?? "a signal"})`;
  return `Exit code: ${result.exitCode}`;
}

/** What a command call (bash, process_manager start) runs, decided once for its permission request and its run. */
export interface CommandPlan {
  /** The command without a leading `cd <root> &&` (it runs in the root anyway). */
  command: string;
  sandbox: SandboxSpec | null;
}

/**
 * The plan of a command call: title `$ <command>`, the command as the target, sandboxed when it runs in the sandbox.
 */
export function commandCallPlan<Input>(
  tool: "bash" | "process_manager",
  args: Input,
  given: string,
  outside: boolean | undefined,
  ctx: PlanContext,
): PlanWithState<Input, CommandPlan> {
  const command = stripCdRoot(given, ctx.root);
  const sandbox = commandSandbox(outside, ctx);
  return {
    input: args,
    info: { title: `$ ${oneLine(command)}`, kind: "execute", locations: [] },
    permission: {
      tool,
      readOnly: false,
      target: { kind: "command", command, sandboxed: sandbox !== null },
      preview: command,
    },
    state: { command, sandbox },
  };
}

export function bashTool(options: BashOptions = {}): Tool<BashInput, PlanWithState<BashInput, CommandPlan>> {
  const outsidePolicy = options.outsideSandbox ?? "ask";
  return {
    name: "bash",
    description,
    input,
    readOnly: false,
    plan: (args, ctx) => commandCallPlan("bash", args, args.command, args.outside_sandbox, ctx),
    async run({ input: args, state: { command, sandbox } }, ctx): Promise<ToolResult> {
      const timeoutMs = args.timeout_ms ?? DEFAULT_TIMEOUT_MS;
      const kept = new HeadTail(options.maxOutputChars ?? OUTPUT_CHARS);
      const progress = new ProgressThrottle(ctx.progress, { intervalMs: options.progressIntervalMs ?? 100 });
      let result: ExecResult;
      try {
        result = await ctx.executor.run({
          command,
          cwd: ctx.root,
          sandbox,
          signal: ctx.signal,
          timeoutMs,
          // The tool keeps its own head and tail (in characters); the executor's copy is not used.
          maxOutputBytes: 1_024,
          onOutput: (chunk) => {
            kept.push(chunk);
            progress.push(chunk);
            // A front end that is behind holds the command's output (the command waits, as at a slow terminal).
            return ctx.output?.(chunk);
          },
        });
      } catch (error) {
        if (error instanceof SandboxUnavailableError) {
          return {
            output:
              `The command did not run: ${error.message}. Run it with outside_sandbox: true ` +
              `(the user is asked first), or ask the user to fix the sandbox.`,
            isError: true,
          };
        }
        if (error instanceof CommandTooLongError)
          return { output: `The command did not run: ${error.message}.`, isError: true, summary: "Too long" };
        throw error;
      } finally {
        progress.stop();
      }
      const output = kept.text();
      const lines = [headline(result, timeoutMs)];
      lines.push(output.length > 0 ? output.replace(/\n+$/, "") : "(no output)");
      if (result.limit) lines.push(result.limit.message);
      if (result.timedOut) {
        lines.push(
          `[Garuda: for servers and watchers use process_manager; for a long build or ` +
            `test run, raise timeout_ms (at most ${MAX_TIMEOUT_MS}).]`,
        );
      }
      const failed = result.timedOut || result.killed || result.exitCode !== 0;
      if (failed && !result.killed && sandbox !== null)
        lines.push(...sandboxHints(output, ctx.root, sandbox, outsidePolicy));
      const summary = result.timedOut
        ? "Timed out"
        : result.killed
          ? "Cancelled"
          : result.exitCode === null
            ? `Ended by ${result.signal ?? "a signal"}`
            : `Exit code ${result.exitCode}`;
      return {
        output: lines.join("\n"),
        isError: failed,
        summary,
        exit: { code: result.exitCode, signal: result.signal },
      };
    },
  };
}
