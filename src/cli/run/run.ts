// `garuda run "task"`: one turn, headless. No one can answer a question, so there is no
// approver: a call that would ask is denied (the model reads that no one can approve it), and
// --allow rules, added as session rules, let chosen calls through. The exit code says how it
// ended (exitCodes.ts). Ctrl-C stops the turn as in the chat: the command's process group is
// killed and the calls it ended are named.
import { ConfigError, SetupRequiredError } from "../../config/errors.ts";
import { ModelError } from "../../model/types.ts";
import { ruleProblem } from "../../permission/ruleSyntax.ts";
import type { Mode } from "../../permission/types.ts";
import type { Runtime } from "../../runtime/runtime.ts";
import { oneLine } from "../../text/visible.ts";
import { VERSION } from "../../version.ts";
import { OpenCalls } from "../chat/calls.ts";
import { Screen } from "../chat/screen.ts";
import { runtimeStarter, type Started } from "../chat/startRuntime.ts";
import { styleFor } from "../chat/style.ts";
import { firstLine } from "../chat/text.ts";
import { Transcript } from "../chat/transcript.ts";
import { runTurn, type TurnOutcome } from "../chat/turn.ts";
import { createCliContext } from "../context.ts";
import { describeFailure } from "../errors.ts";
import { EXIT } from "./exitCodes.ts";
import { type JsonLine, jsonEvent, jsonLine } from "./jsonEvents.ts";

export interface RunOptions {
  /** The task; undefined or "-": read it from stdin. */
  prompt: string | undefined;
  format: "text" | "json";
  allow: string[];
  model?: string | undefined;
  mode: Mode;
  hideThinking: boolean;
}

const LIMIT_TEXT: Readonly<Record<string, string>> = {
  max_tokens: "the answer reached the model's output limit",
  refusal: "the model refused",
  max_steps: "the turn reached the step limit",
  token_budget: "the session reached its token budget",
  repeated_calls: "the model repeated the same call; the turn was stopped",
};

function exitCode(outcome: TurnOutcome, denied: number): number {
  switch (outcome.reason) {
    case "done":
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

/** Writes JSON lines to stdout, or nothing in text mode. */
class Output {
  constructor(private readonly json: boolean) {}

  line(line: JsonLine): void {
    if (this.json) process.stdout.write(jsonLine(line));
  }

  /** Resolves when stdout has taken everything written so far. */
  flush(): Promise<void> {
    return new Promise((resolve) => process.stdout.write("", () => resolve()));
  }
}

export async function runHeadless(options: RunOptions): Promise<number> {
  const json = options.format === "json";
  const out = new Output(json);
  const fail = async (message: string, code: number = EXIT.error): Promise<number> => {
    if (json) {
      out.line({ type: "error", message });
      out.line({ type: "result", stopReason: "error", exitCode: code, text: "", denied: [] });
      await out.flush();
    }
    process.stderr.write(`garuda run: ${message}\n`);
    return code;
  };

  for (const rule of options.allow) {
    const problem = ruleProblem(rule);
    if (problem) return fail(`--allow "${rule}": ${problem}. Rules look like bash(npm test *), edit_file(src/**), web_fetch(docs.rs).`);
  }
  const prompt = await readPrompt(options.prompt);
  if (!prompt) return fail('no task. Give it as an argument (garuda run "fix the failing test") or on stdin.');

  const ctx = createCliContext(process.env);
  const controller = new AbortController();
  let runtime: Runtime | undefined;
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    controller.abort();
    // A second Ctrl-C does not wait for the stop to settle.
    if (interrupts > 1) void runtime?.close().finally(() => process.exit(EXIT.interrupted));
  };
  const onSigterm = () => {
    controller.abort();
    void (runtime?.close() ?? Promise.resolve()).finally(() => process.exit(EXIT.terminated));
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigterm);
  try {
    let started: Started;
    try {
      started = await runtimeStarter(ctx)({ root: process.cwd(), modelFlag: options.model, mode: options.mode, allow: options.allow });
    } catch (error) {
      if (error instanceof SetupRequiredError || error instanceof ConfigError || error instanceof ModelError) return fail(error.message);
      throw error;
    }
    runtime = started.runtime;
    out.line({ type: "start", version: VERSION, model: started.model.spec, root: runtime.root, mode: runtime.mode });

    let text = prompt;
    if (prompt.trimStart().startsWith("/")) {
      const command = runtime.resolveCommand(prompt);
      if (command.kind === "builtin") return fail(`/${command.name} is a chat command; \`garuda run\` runs one task. Start \`garuda\` for the chat.`);
      if (command.kind === "unknown") {
        const names = runtime.availableCommands().map((c) => `/${c.name}`);
        return fail(`/${command.name} is not a command of this project.${names.length > 0 ? ` The commands are: ${names.join(", ")}.` : ""}`);
      }
      text = command.text;
    }

    const style = styleFor(Boolean(process.stderr.isTTY), ctx.env);
    const answer = new Screen(process.stdout, false);
    const activity = new Screen(process.stderr, false);
    const calls = new OpenCalls();
    const sink = new Screen({ write: () => true }, false);
    const transcript = json
      ? new Transcript({ answer: sink, activity: sink, style, showThinking: false, calls })
      : new Transcript({ answer, activity, style, showThinking: !options.hideThinking, calls });
    const outcome = await runTurn({ runtime, prompt: text, transcript, calls, signal: controller.signal, tap: (event) => out.line(jsonEvent(event)) });
    const denied = transcript.denied;
    const code = exitCode(outcome, denied.length);
    const session = runtime.session?.id ?? null;

    if (json) {
      if (outcome.reason === "error") out.line({ type: "error", message: describeFailure(outcome.error).text.replace(/^garuda: /, "") });
      out.line({ type: "result", stopReason: outcome.reason, exitCode: code, text: transcript.text, denied: [...denied], session, tokens: runtime.tokensUsed });
      await out.flush();
    }
    if (outcome.reason === "error") {
      process.stderr.write(`${describeFailure(outcome.error).text}\n`);
    } else if (code === EXIT.limit) {
      process.stderr.write(`garuda run: ${LIMIT_TEXT[outcome.reason] ?? outcome.reason} (${outcome.reason}).\n`);
    } else if (code === EXIT.denied) {
      const list = denied.map((call) => `  ${call.title}: ${call.reason.startsWith("This needs the user's approval") ? "needs an approval" : oneLine(firstLine(call.reason))}`).join("\n");
      process.stderr.write(
        `garuda run: denied (no one can approve during \`garuda run\`):\n${list}\nAllow what the task needs with --allow RULE, e.g. --allow 'bash(npm test *)' or --allow 'edit_file(src/**)'.\n`,
      );
    }
    return code;
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigterm);
    await runtime?.close();
    await out.flush();
  }
}
