import { type CommandDef, defineCommand, renderUsage, runCommand } from "citty";
import { VERSION } from "../version.ts";
import { splitArgv } from "./argv.ts";
import { CHAT_ARGS, isChatInvocation } from "./chat/argv.ts";
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
  audit: () => import("./auditCommand.ts").then((module) => module.auditCommand),
  models: () => import("./modelsCommand.ts").then((module) => module.modelsCommand),
  run: () => import("./runCommand.ts").then((module) => module.runCommand),
  setup: () => import("./setupCommand.ts").then((module) => module.setupCommand),
};

export const rootCommand: AnyCommand = defineCommand({
  meta: {
    name: "garuda",
    version: VERSION,
    description: "A coding agent for your editor (over ACP) and your terminal. With no command: the chat.",
  },
  args: CHAT_ARGS,
  subCommands: () => SUBCOMMANDS,
});

/** Help on stdout, coloured only for a terminal; a command's `helpFooter` (run's exit codes) last. */
async function printUsage(command: AnyCommand, parent?: AnyCommand): Promise<void> {
  const footer = (command as { helpFooter?: string }).helpFooter;
  const text = `${await renderUsage(command, parent)}${footer ? `\n${footer}\n` : ""}`;
  console.log(process.stdout.isTTY ? text : text.replace(/\x1b\[[0-9;]*m/g, ""));
}

/** Runs the command line; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  try {
    const { command, commandArgs, wantsHelp } = splitArgv(argv);
    // No command word: the chat (a session id after --resume is not a command).
    if (isChatInvocation(argv, Object.keys(SUBCOMMANDS))) {
      if (wantsHelp) {
        await printUsage(rootCommand);
        return 0;
      }
      const { chatCommand } = await import("./chatCommand.ts");
      const { result } = await runCommand(chatCommand, { rawArgs: argv });
      return typeof result === "number" ? result : 0;
    }
    const load = command === undefined ? undefined : SUBCOMMANDS[command];
    if (command !== undefined && !load) {
      await printUsage(rootCommand);
      process.stderr.write(`garuda: unknown command "${command}". The commands are: ${Object.keys(SUBCOMMANDS).join(", ")}.\n`);
      return 2;
    }
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
