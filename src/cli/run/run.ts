// `garuda run "task"`: one turn, headless. No one can answer a question, so there is no
// approver: a call that would ask is denied (the model reads that no one can approve it), and
// --allow rules, added as session rules, let chosen calls through. The exit code says how it
// ended (exitCodes.ts). Ctrl-C, SIGTERM, SIGHUP or a closed stdout stop the turn as in the chat
// (stop.ts): the command's process group is killed and the calls it ended are named.
import { ConfigError, SetupRequiredError } from "../../errors/configError.ts";
import { ModelError } from "../../model/types.ts";
import { PLAN_NOTE } from "../../permission/decide.ts";
import { ruleProblem } from "../../permission/ruleSyntax.ts";
import type { Mode } from "../../core-types/mode.ts";
import type { AgentEvent } from "../../core-types/events.ts";
import type { Runtime } from "../../runtime/runtime.ts";
import { oneLine, visible } from "../../text/visible.ts";
import { VERSION } from "../../version.ts";
import { OpenCalls } from "../chat/calls.ts";
import { Screen } from "../chat/screen.ts";
import { runtimeStarter, type Started } from "../chat/startRuntime.ts";
import { styleFor } from "../chat/style.ts";
import { firstLine } from "../chat/text.ts";
import type { DeniedCall, Transcript } from "../chat/transcript.ts";
import { runTurn, type TurnOutcome } from "../chat/turn.ts";
import { type CliContext, createCliContext } from "../context.ts";
import { describeFailure } from "../errors.ts";
import { RunTranscript } from "./activity.ts";
import { Answer } from "./answer.ts";
import { stopFact } from "../../display/stopNotes.ts";
import { EXIT } from "./exitCodes.ts";
import { type JsonLine, jsonEvent, jsonLine } from "./jsonEvents.ts";
import { RunStop } from "./stop.ts";

/** Every message of `garuda run` starts so. */
const PREFIX = "garuda run";

export interface RunOptions {
  /** The task; undefined or "-": read it from stdin. */
  prompt: string | undefined;
  format: "text" | "json";
  allow: string[];
  model?: string | undefined;
  mode: Mode;
  hideThinking: boolean;
}

/** `stopCode`: what stopped the run from outside (a signal, a closed stdout), if anything did. */
export function exitCode(outcome: TurnOutcome, denied: number, stopCode?: number, commandRefused = false): number {
  if (stopCode !== undefined) return stopCode;
  switch (outcome.reason) {
    case "done":
      // The task was a /command that did not run, or a prompt too large to send: nothing happened, which a script must
      // see.
      if (commandRefused) return EXIT.error;
      return denied > 0 ? EXIT.denied : EXIT.done;
    case "cancelled":
      return EXIT.interrupted;
    case "error":
      return EXIT.error;
    default:
      return EXIT.limit;
  }
}

async function readPrompt(prompt: string | undefined): Promise<string | undefined> {
  if (prompt !== undefined && prompt !== "-") return prompt;
  if (process.stdin.isTTY) return undefined;
  return (await Bun.stdin.text()).trim();
}

/** Writes JSON lines to stdout, or nothing in text mode; nothing once stdout's reader went away. */
class Output {
  constructor(
    private readonly json: boolean,
    private readonly stop: RunStop,
  ) {}

  line(line: JsonLine): void {
    if (this.json && !this.stop.stdoutClosed) process.stdout.write(jsonLine(line));
  }

  /** Resolves when stdout has taken everything written so far (at once when it is closed). */
  flush(): Promise<void> {
    if (this.stop.stdoutClosed) return Promise.resolve();
    return new Promise((resolve) => process.stdout.write("", () => resolve()));
  }
}

/** Where the run reports: stderr, quiet once stdout's reader went away (as `yes | head -1` is). */
class Report {
  constructor(
    private readonly out: Output,
    private readonly stop: RunStop,
  ) {}

  /** A line of Garuda's own: "garuda run: …". */
  say(message: string): void {
    this.write(`${PREFIX}: ${message}\n`);
  }

  write(text: string): boolean {
    if (!this.stop.stdoutClosed) process.stderr.write(text);
    return true;
  }

  /** The run ends before the turn: the message, and in JSON mode the error and result lines. */
  async fail(message: string, code: number = EXIT.error): Promise<number> {
    this.out.line({ type: "error", message });
    this.out.line({ type: "result", stopReason: "error", exitCode: code, text: "", denied: [] });
    await this.out.flush();
    this.say(message);
    return code;
  }
}

/** The text to send: the task, or a custom command's text; a chat-only or unknown /command is a problem. */
function taskText(runtime: Runtime, prompt: string): { text: string } | { problem: string } {
  if (!prompt.trimStart().startsWith("/")) return { text: prompt };
  const command = runtime.resolveCommand(prompt);
  if (command.kind === "builtin")
    return {
      problem: `/${command.name} is a chat command; \`garuda run\` runs one task. Start \`garuda\` for the chat.`,
    };
  if (command.kind === "unknown") {
    const names = runtime.availableCommands().map((c) => `/${c.name}`);
    return {
      problem:
        `/${command.name} is not a command of this ` +
        `project.${names.length > 0 ? ` The commands are: ${names.join(", ")}.` : ""}`,
    };
  }
  return { text: command.text };
}

/**
 * The activity on stderr in text mode (in JSON mode the JSON lines say it all). The answer is
 * Answer's to write, held per response, so the transcript's own answer goes nowhere.
 */
function transcriptFor(
  json: boolean,
  hideThinking: boolean,
  report: Report,
  env: CliContext["env"],
): { transcript: Transcript; calls: OpenCalls } {
  const style = styleFor(Boolean(process.stderr.isTTY), env);
  const sink = new Screen({ write: () => true }, false);
  const calls = new OpenCalls();
  const activity = json ? sink : new Screen({ write: (text) => report.write(text) }, false);
  return {
    transcript: new RunTranscript({ answer: sink, activity, style, showThinking: !json && !hideThinking, calls }),
    calls,
  };
}

interface Ending {
  runtime: Runtime;
  outcome: TurnOutcome;
  code: number;
  answer: Answer;
  denied: readonly DeniedCall[];
  out: Output;
  report: Report;
}

/** The result line (JSON mode), and on stderr why the run did not simply succeed. */
function finish({ runtime, outcome, code, answer, denied, out, report }: Ending): void {
  const error = outcome.reason === "error" ? describeFailure(outcome.error, PREFIX) : undefined;
  if (error) out.line({ type: "error", message: error.message });
  const session = runtime.session?.id ?? null;
  out.line({
    type: "result",
    stopReason: outcome.reason,
    exitCode: code,
    text: answer.text,
    denied: [...denied],
    session,
    tokens: runtime.tokensUsed,
  });
  if (error) report.write(`${error.text}\n`);
  else if (code === EXIT.limit)
    report.say(`${(outcome.reason !== "error" && stopFact(outcome.reason)) || outcome.reason} (${outcome.reason}).`);
  else if (code === EXIT.denied) report.write(deniedReport(denied));
}

const SUGGESTED_RULE = /An allow rule such as (.+) would let it run\.\)$/;

function deniedReport(denied: readonly DeniedCall[]): string {
  // A change refused by --plan: no approval or --allow could let it through, only build mode.
  const planned = denied.filter((call) => call.reason.includes(PLAN_NOTE));
  const others = denied.filter((call) => !call.reason.includes(PLAN_NOTE));
  const plan =
    planned.length > 0
      ? `${PREFIX}: refused by plan mode (--plan), where nothing in the project ` +
        `changes:\n${planned.map((call) => `  ${call.title}`).join("\n")}\nRun the task ` +
        `without --plan to let it make these changes.\n`
      : "";
  return others.length > 0 ? `${plan}${approvalReport(others)}` : plan;
}

function approvalReport(denied: readonly DeniedCall[]): string {
  const list = denied
    .map((call) => {
      const needsYes = call.reason.startsWith("This needs the user's approval");
      return `  ${call.title}: ${needsYes ? "needs an approval" : oneLine(firstLine(call.reason))}`;
    })
    .join("\n");
  // The engine names the narrowest rule for each call that only needed a yes.
  const rules = [...new Set(denied.flatMap((call) => SUGGESTED_RULE.exec(call.reason)?.[1] ?? []))];
  const hint =
    rules.length > 0
      ? `Rules that would allow them: ` +
        `${rules.map((rule) => `--allow '${visible(rule).replace(/'/g, "'\\''")}'`).join(" ")}`
      : "Allow what the task needs with --allow RULE, e.g. --allow 'bash(npm test *)' or --allow 'edit(src/**)'";
  return `${PREFIX}: denied (no one can approve during \`garuda run\`):\n${list}\n${hint}.\n`;
}

export async function runHeadless(options: RunOptions): Promise<number> {
  const json = options.format === "json";
  let runtime: Runtime | undefined;
  // A second signal does not wait for the turn to settle.
  const stop = new RunStop({
    exitNow: (code) => void (runtime?.close() ?? Promise.resolve()).finally(() => process.exit(code)),
  });
  stop.watchOutput(process.stdout, process.stderr);
  const out = new Output(json, stop);
  const report = new Report(out, stop);

  for (const rule of options.allow) {
    const problem = ruleProblem(rule);
    if (problem)
      return report.fail(
        `--allow "${rule}": ${problem}. Rules look like bash(npm test *), edit(src/**), web_fetch(docs.rs).`,
        EXIT.usage,
      );
  }
  const prompt = await readPrompt(options.prompt);
  if (!prompt) return report.fail('no task. Give it as an argument (garuda run "fix the failing test") or on stdin.');

  const ctx = createCliContext(process.env);
  const unlisten = stop.listen();
  try {
    let started: Started;
    try {
      started = await runtimeStarter(ctx)({
        root: process.cwd(),
        modelFlag: options.model,
        mode: options.mode,
        allow: options.allow,
      });
    } catch (error) {
      if (error instanceof SetupRequiredError || error instanceof ConfigError || error instanceof ModelError)
        return report.fail(error.message);
      throw error;
    }
    runtime = started.runtime;
    out.line({ type: "start", version: VERSION, model: started.model.spec, root: runtime.root, mode: runtime.mode });
    const task = taskText(runtime, prompt);
    if ("problem" in task) return report.fail(task.problem);

    const answer = new Answer(
      json ? undefined : new Screen({ write: (text) => stop.stdoutClosed || process.stdout.write(text) }, false),
    );
    const { transcript, calls } = transcriptFor(json, options.hideThinking, report, ctx.env);
    let commandRefused = false;
    const tap = (event: AgentEvent) => {
      // Nothing reached the model (a /command that did not run, a prompt too large for its window).
      if (event.type === "notice" && (event.refusedCommand !== undefined || event.refusedPrompt)) commandRefused = true;
      const line = jsonEvent(event);
      if (line) out.line(line);
      answer.event(event);
    };
    const outcome = await runTurn({ runtime, prompt: task.text, transcript, calls, signal: stop.signal, tap });
    answer.end();
    const code = exitCode(outcome, transcript.denied.length, stop.code, commandRefused);
    finish({ runtime, outcome, code, answer, denied: transcript.denied, out, report });
    await out.flush();
    return code;
  } finally {
    unlisten();
    await runtime?.close();
    await out.flush();
  }
}
