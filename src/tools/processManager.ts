// process_manager: long-running processes (dev servers, watchers) through executor.start().
//
// Permissions per action. `start` asks like bash: its target is the command, sandboxed unless
// outside_sandbox is set (or no OS sandbox works here), so a sandboxed start runs without a
// question in build mode and in plan mode, and anything else asks. `list`, `output` and `stop`
// only touch processes this session already started (an approved start), so their requests
// are read-only with an "input" target: the engine allows them without a question in every
// mode. They are never "input" targets that are *not* read-only, because "Allow for this
// session" on such a question would add the bare rule `process_manager`, which would then allow
// every later start too. The tool's own `readOnly` stays false, so its calls run in order.
import { z } from "zod";
import { CommandTooLongError } from "../sandbox/commandTooLong.ts";
import { SandboxUnavailableError } from "../sandbox/executor.ts";
import { oneLine } from "../text/visible.ts";
import { untilAborted } from "../untilAborted.ts";
import { commandCallPlan, type CommandPlan } from "./bash.ts";
import { cleanOutput } from "./commandOutput.ts";
import description from "./processManager.txt" with { type: "text" };
import { MAX_RUNNING, type ManagedProcess, ProcessTable, statusOf } from "./processTable.ts";
import type { Tool, ToolPlan, ToolResult } from "./types.ts";

const input = z
  .object({
    action: z.enum(["start", "list", "output", "stop"]).describe("What to do."),
    command: z
      .string()
      .min(1)
      .optional()
      .describe("For start: the command line to run with bash in the project folder."),
    id: z.string().min(1).optional().describe("For output and stop: the process id from start or list (p1, p2 …)."),
    outside_sandbox: z
      .boolean()
      .optional()
      .describe("For start: run outside the OS sandbox (the user is asked first)."),
  })
  .superRefine((value, ctx) => {
    if (value.action === "start" && value.command === undefined)
      ctx.addIssue({ code: "custom", path: ["command"], message: "start needs the command to run" });
    if ((value.action === "output" || value.action === "stop") && value.id === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["id"],
        message: `${value.action} needs the id of a process (see action "list")`,
      });
    }
  });
export type ProcessManagerInput = z.infer<typeof input>;

export interface ProcessManagerOptions {
  /** The session's processes (create one per session). */
  processes?: ProcessTable;
  /** How long start waits for first output or an early exit (default 1,500 ms). */
  startWaitMs?: number;
  /** How much recent output `output` returns (default 20,000 characters). */
  outputChars?: number;
}

function tail(text: string, chars: number): string {
  const clean = cleanOutput(text).replace(/\n+$/, "");
  return clean.length <= chars ? clean : `[… earlier output not shown …]\n${clean.slice(-chars)}`;
}

function unknownId(id: string, table: ProcessTable): ToolResult {
  const ids = table.list().map((entry) => entry.process.id);
  const known =
    ids.length > 0
      ? `The processes of this session are: ${ids.join(", ")}.`
      : "No process has been started in this session.";
  return { output: `There is no process ${id}. ${known}`, isError: true };
}

function describeEntry(entry: ManagedProcess): string {
  return (
    `${entry.process.id} (pid ${entry.process.pid}, ` +
    `${entry.sandboxed ? "in the sandbox" : "outside the sandbox"}): $ ` +
    `${entry.command}`
  );
}

export function processManagerTool(
  options: ProcessManagerOptions = {},
): Tool<ProcessManagerInput, ToolPlan<ProcessManagerInput> & { state?: CommandPlan }> {
  const table = options.processes ?? new ProcessTable();
  const waitMs = options.startWaitMs ?? 1_500;
  const outputChars = options.outputChars ?? 20_000;
  const commandOf = (id: string | undefined) => (id === undefined ? undefined : table.get(id)?.command);

  return {
    name: "process_manager",
    description,
    input,
    readOnly: false,
    plan(args, ctx) {
      if (args.action === "start")
        return commandCallPlan("process_manager", args, args.command ?? "", args.outside_sandbox, ctx);
      const known = commandOf(args.id);
      const about = known !== undefined ? `: $ ${oneLine(known)}` : "";
      const title =
        args.action === "list"
          ? "List background processes"
          : `${args.action === "output" ? "Output of" : "Stop"} ${oneLine(args.id ?? "")}${about}`;
      const id = args.id !== undefined ? ` ${args.id}` : "";
      return {
        input: args,
        info: { title, kind: "execute", locations: [] },
        permission: {
          tool: "process_manager",
          readOnly: true,
          target: { kind: "input" },
          preview: `process_manager ${args.action}${id}`,
        },
      };
    },
    async run({ input: args, state }, ctx): Promise<ToolResult> {
      switch (args.action) {
        case "list": {
          const entries = table.list();
          if (entries.length === 0)
            return { output: "No process has been started in this session.", summary: "No processes" };
          const lines = entries.map((entry) => `${describeEntry(entry)} — ${statusOf(entry)}`);
          const running = table.running().length;
          return { output: lines.join("\n"), summary: `${running} running, ${entries.length} in all` };
        }
        case "output": {
          const entry = table.get(args.id as string);
          if (!entry) return unknownId(args.id as string, table);
          const text = tail(entry.process.output(), outputChars);
          const limit = entry.end?.limit ? `\n${entry.end.limit.message}` : "";
          return {
            output:
              `${describeEntry(entry)} — ` +
              `${statusOf(entry)}\n${text.length > 0 ? text : "(no output yet)"}${limit}`,
            summary: statusOf(entry),
          };
        }
        case "stop": {
          const entry = table.get(args.id as string);
          if (!entry) return unknownId(args.id as string, table);
          if (entry.end)
            return {
              output: `${describeEntry(entry)} had already ${statusOf(entry).replace(/^stopped$/, "been stopped")}.`,
              summary: statusOf(entry),
            };
          entry.stopped = true;
          const end = await entry.process.stop();
          entry.end ??= end;
          const last = tail(end.output, 2_000);
          return {
            output:
              `Stopped ${describeEntry(entry)}, with every process it ` +
              `started.${last ? `\nLast output:\n${last}` : ""}`,
            summary: "Stopped",
          };
        }
        case "start": {
          if (table.running().length >= MAX_RUNNING) {
            return {
              output:
                `${MAX_RUNNING} processes are running already. Stop one you no longer need ` +
                `(action "stop"), then start this one.`,
              isError: true,
            };
          }
          // plan() decided both for a start: what the engine allowed is what starts.
          const { command, sandbox } = state as CommandPlan;
          let entry: ManagedProcess;
          // What it prints while this call waits goes to the front end as it comes; later output
          // belongs to the process, read with "output".
          let streaming = true;
          const onOutput = (data: string) => (streaming ? ctx.output?.(data) : undefined);
          try {
            entry = table.add(await ctx.executor.start({ command, cwd: ctx.root, sandbox, onOutput }), {
              sandboxed: sandbox !== null,
              writesProject: sandbox === null || !sandbox.projectReadOnly,
            });
          } catch (error) {
            if (error instanceof SandboxUnavailableError) {
              return {
                output:
                  `The process did not start: ${error.message}. Start it with outside_sandbox: ` +
                  `true (the user is asked first), or ask the user to fix the sandbox.`,
                isError: true,
              };
            }
            if (error instanceof CommandTooLongError)
              return { output: `The process did not start: ${error.message}.`, isError: true };
            throw error;
          }
          const outcome = await waitForStart(entry, waitMs, ctx.signal).finally(() => {
            streaming = false;
          });
          if (outcome === "exit") entry.end ??= await entry.process.exited;
          if (outcome === "cancel") {
            entry.stopped = true;
            const end = await entry.process.stop();
            return {
              output: `Cancelled: ${describeEntry(entry)} was stopped again.`,
              isError: true,
              summary: "Cancelled",
              exit: { code: end.exitCode, signal: end.signal },
            };
          }
          const text = tail(entry.process.output(), 4_000);
          const shown = text.length > 0 ? `\nOutput so far:\n${text}` : "\n(no output yet)";
          if (entry.end) {
            const failed = entry.end.exitCode !== 0;
            const limit = entry.end.limit ? `\n${entry.end.limit.message}` : "";
            const exit = { code: entry.end.exitCode, signal: entry.end.signal };
            return {
              output: `${describeEntry(entry)} ${statusOf(entry)} right after it started.${shown}${limit}`,
              isError: failed,
              summary: statusOf(entry),
              exit,
            };
          }
          const note = entry.sandboxed
            ? "\n[Garuda: it runs in the OS sandbox, with its own network: ports it opens " +
              "cannot be reached from outside it.]"
            : "";
          return {
            output:
              `Started ${describeEntry(entry)}. It keeps running; use action "output" with id ` +
              `${entry.process.id} to read it, "stop" to end it.${shown}${note}`,
            summary: `Started ${entry.process.id}`,
          };
        }
      }
    },
  };
}

/** Waits for an early exit, the wait time, or cancel, whichever comes first. */
async function waitForStart(
  entry: ManagedProcess,
  waitMs: number,
  signal: AbortSignal,
): Promise<"exit" | "wait" | "cancel"> {
  if (signal.aborted) return "cancel";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<"wait">((resolve) => {
    timer = setTimeout(() => resolve("wait"), waitMs);
  });
  try {
    const exited = entry.process.exited.then(
      () => "exit" as const,
      () => "exit" as const,
    );
    return await untilAborted<"exit" | "wait" | "cancel">(Promise.race([exited, waited]), signal, () => "cancel");
  } finally {
    if (timer) clearTimeout(timer);
  }
}
