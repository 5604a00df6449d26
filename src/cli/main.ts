import { type CommandDef, defineCommand, renderUsage, runCommand } from "citty";
import { VERSION } from "../version.ts";
import { splitArgv } from "./argv.ts";
import { describeFailure } from "./errors.ts";

// citty's own SubCommandsDef holds CommandDef<any>: each command's args type differs.
// biome-ignore lint/suspicious/noExplicitAny: matches citty's declaration
type AnyCommand = CommandDef<any>;

/**
 * The commands. Each is a lazy import, so a command loads only what it uses. Later front ends
 * register here (acp, setup, run, and the chat as the bare command) once they work.
 */
const SUBCOMMANDS: Record<string, () => Promise<AnyCommand>> = {
  acp: () => import("./acpCommand.ts").then((module) => module.acpCommand),
  models: () => import("./modelsCommand.ts").then((module) => module.modelsCommand),
  setup: () => import("./setupCommand.ts").then((module) => module.setupCommand),
};

export const rootCommand: AnyCommand = defineCommand({
  meta: {
    name: "garuda",
    version: VERSION,
    description: "A coding agent for your editor (over ACP) and your terminal.",
  },
  args: {
    model: { type: "string", alias: "m", description: "The model to use (beats GARUDA_MODEL and the models.json default)", valueHint: "model" },
  },
  subCommands: () => SUBCOMMANDS,
});

/** Help on stdout, coloured only for a terminal. */
async function printUsage(command: AnyCommand, parent?: AnyCommand): Promise<void> {
  const text = await renderUsage(command, parent);
  console.log(process.stdout.isTTY ? text : text.replace(/\x1b\[[0-9;]*m/g, ""));
}

/** Runs the command line; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  try {
    const { command, commandArgs, wantsHelp } = splitArgv(argv);
    const load = command === undefined ? undefined : SUBCOMMANDS[command];
    if (command !== undefined && !load) {
      await printUsage(rootCommand);
      process.stderr.write(`garuda: unknown command "${command}". The commands are: ${Object.keys(SUBCOMMANDS).join(", ")}.\n`);
      return 2;
    }
    // Until the chat lands, a bare `garuda` shows help.
    if (!load || wantsHelp) {
      if (load) await printUsage(await load(), rootCommand);
      else await printUsage(rootCommand);
      return 0;
    }
    // A command that returns a number (setup) decides the exit code; the others succeed.
    const { result } = await runCommand(await load(), { rawArgs: commandArgs });
    return typeof result === "number" ? result : 0;
  } catch (error) {
    const failure = describeFailure(error);
    process.stderr.write(`${failure.text}\n`);
    return failure.exitCode;
  }
}
