// `garuda run "task"`: one task headless, for scripts and CI. This file only declares the
// command (its help lists the exit codes); the run itself loads when it runs.
import { defineCommand } from "citty";
import { RUN_DESCRIPTION, RUN_HELP } from "./run/exitCodes.ts";

/** Every --allow value (citty keeps only the last of a repeated option). */
export function allowRules(rawArgs: readonly string[]): string[] {
  const rules: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i] as string;
    if (arg === "--") break;
    if (arg === "--allow" && i + 1 < rawArgs.length) rules.push(rawArgs[++i] as string);
    else if (arg.startsWith("--allow=")) rules.push(arg.slice("--allow=".length));
  }
  return rules;
}

const command = defineCommand({
  meta: { name: "run", description: RUN_DESCRIPTION },
  args: {
    prompt: {
      type: "positional",
      required: false,
      description: "The task; - or nothing reads it from stdin",
      valueHint: "task",
    },
    format: {
      type: "enum",
      options: ["text", "json"],
      default: "text",
      description: "text: the answer on stdout; json: one JSON event per line",
    },
    allow: {
      type: "string",
      description: "Allow calls that match this rule during the run (repeat for more)",
      valueHint: "rule",
    },
    plan: { type: "boolean", description: "Plan mode: read and plan, change nothing" },
    "hide-thinking": { type: "boolean", description: "Leave the model's thinking out of the output" },
    model: {
      type: "string",
      alias: "m",
      description: "The model to use (beats GARUDA_MODEL and the models.json default)",
      valueHint: "model",
    },
  },
  async run({ args, rawArgs }) {
    const [{ runHeadless }, { exitWhenWritten }] = await Promise.all([
      import("./run/run.ts"),
      import("./chat/exit.ts"),
    ]);
    const words = args._.map(String);
    const code = await runHeadless({
      prompt: words.length > 0 ? words.join(" ") : undefined,
      format: args.format === "json" ? "json" : "text",
      allow: allowRules(rawArgs),
      model: args.model,
      mode: args.plan ? "plan" : "build",
      hideThinking: Boolean(args["hide-thinking"]),
    });
    return exitWhenWritten(code);
  },
});

/** The command, with the exit codes for its --help (main.ts prints `helpFooter` after the usage). */
export const runCommand = Object.assign(command, { helpFooter: RUN_HELP });
