import { type CommandDef, defineCommand, runCommand } from "citty";
import { VERSION } from "../version.ts";
import { nearestOption, type OptionSpecs, scanArgs, splitArgv } from "./argv.ts";
import { CHAT_ARGS, firstWord, isChatInvocation } from "./chat/argv.ts";
import { describeFailure, EXIT_USAGE, isUsageError, UsageError } from "./errors.ts";
import { footerText, usageText } from "./usage.ts";

// citty's own SubCommandsDef holds CommandDef<any>: each command's args type differs.
type AnyCommand = CommandDef<any>;

/** `garuda help [COMMAND]`: people type the word as often as the flag. */
const helpCommand = defineCommand({
  meta: { name: "help", description: "Show how to use garuda, or one of its commands (garuda help run)." },
  args: {
    command: { type: "positional", required: false, description: "The command to explain", valueHint: "command" },
  },
  run: ({ args }) => showHelp(args.command),
});

const versionCommand = defineCommand({
  meta: { name: "version", description: "Print Garuda's version." },
  run() {
    console.log(VERSION);
    return 0;
  },
});

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
  help: async () => helpCommand,
  version: async () => versionCommand,
};

/** `garuda acp setup` is the setup that editors run: it takes setup's options besides acp's. */
const NESTED: Record<string, Record<string, () => Promise<AnyCommand>>> = {
  acp: { setup: () => import("./setupCommand.ts").then((module) => module.setupCommand) },
};

/** The chat's --resume may stand without its id (then the chat offers a list). */
const CHAT_OPTIONAL_VALUES = ["resume"];

const rootCommand: AnyCommand = defineCommand({
  meta: {
    name: "garuda",
    version: VERSION,
    description: "A coding agent for your editor (over ACP) and your terminal. With no command: the chat.",
  },
  args: CHAT_ARGS,
  subCommands: () => SUBCOMMANDS,
});

/** Help on stdout, wrapped to the terminal (80 columns in a pipe); a command's `helpFooter` (run's exit codes) last. */
async function printUsage(command: AnyCommand, parent?: AnyCommand): Promise<void> {
  const footer = (command as { helpFooter?: string }).helpFooter;
  const width = Math.min(100, process.stdout.isTTY && process.stdout.columns ? process.stdout.columns - 1 : 80);
  console.log(`${await usageText(command, parent, width)}${footer ? `\n${footerText(footer, width)}` : ""}`);
}

async function showHelp(name: string | undefined): Promise<number> {
  const load = name === undefined ? undefined : SUBCOMMANDS[name];
  if (name !== undefined && !load) return unknownCommand(name);
  if (load && name !== "help") await printUsage(await load(), rootCommand);
  else await printUsage(rootCommand);
  return 0;
}

/** The command `name` is a typo of (the same nearness as for options: `rn` → run), if any. */
function nearCommand(name: string): string | undefined {
  return nearestOption(
    `--${name}`,
    Object.keys(SUBCOMMANDS).map((command) => `--${command}`),
  )?.slice(2);
}

async function unknownCommand(name: string): Promise<number> {
  const commands = Object.keys(SUBCOMMANDS);
  const near = nearCommand(name);
  process.stderr.write(
    `garuda: unknown command "${name}"${near ? ` (did you mean ${near}?)` : ""}. ` +
      `The commands are: ${commands.join(", ")}; \`garuda --help\` says more.\n`,
  );
  return EXIT_USAGE;
}

async function declaredArgs(command: AnyCommand): Promise<OptionSpecs> {
  const args = command.args;
  return ((typeof args === "function" ? await args() : await args) ?? {}) as OptionSpecs;
}

/**
 * Refuses what citty would silently ignore (an unknown or misspelled option) or report as a crash
 * (a bad value), before the command runs and does something the user did not ask for.
 */
async function checkOptions(
  name: string,
  command: AnyCommand,
  rawArgs: string[],
  optionalValues: string[] = [],
): Promise<void> {
  let specs = await declaredArgs(command);
  let scanned = scanArgs(rawArgs, specs, optionalValues);
  const nested = NESTED[name]?.[scanned.words[0] ?? ""];
  if (nested) {
    specs = { ...specs, ...(await declaredArgs(await nested())) };
    scanned = scanArgs(rawArgs, specs, optionalValues);
  }
  if (scanned.problem) throw new UsageError(scanned.problem);
}

/** The options before a command word that is not a command: a typo there (`--fromat json`) is the problem to report. */
function optionsBefore(argv: string[], word: string): string[] {
  return argv.slice(0, argv.indexOf(word));
}

/**
 * The chat: no command word, or words that name no command (its first prompt); a session id after
 * --resume is not a command. A lone word one typo away from a command (`garuda rn`) is refused
 * as the typo it most likely is, not sent to the model.
 */
async function runChat(argv: string[], wantsHelp: boolean): Promise<number> {
  if (wantsHelp) {
    await printUsage(rootCommand);
    return 0;
  }
  const first = firstWord(argv, Object.keys(SUBCOMMANDS));
  if (first !== undefined && !/\s/.test(first) && nearCommand(first)) {
    await checkOptions("garuda", rootCommand, optionsBefore(argv, first), CHAT_OPTIONAL_VALUES);
    return await unknownCommand(first);
  }
  const { chatCommand } = await import("./chatCommand.ts");
  await checkOptions("garuda", chatCommand, argv, CHAT_OPTIONAL_VALUES);
  const { result } = await runCommand(chatCommand, { rawArgs: argv });
  return typeof result === "number" ? result : 0;
}

/** Runs the command line; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const { command, commandArgs, wantsHelp } = splitArgv(argv);
  const load = command === undefined ? undefined : SUBCOMMANDS[command];
  // A wrong command line names the command it was for; `garuda run` says `garuda run:` throughout.
  const usagePrefix = load ? `garuda ${command}` : "garuda";
  const failurePrefix = command === "run" ? "garuda run" : "garuda";
  try {
    if (isChatInvocation(argv, Object.keys(SUBCOMMANDS))) return await runChat(argv, wantsHelp);
    if (!load) {
      const name = command as string;
      await checkOptions("garuda", rootCommand, optionsBefore(argv, name), CHAT_OPTIONAL_VALUES);
      return await unknownCommand(name);
    }
    const loaded = await load();
    if (wantsHelp) {
      await printUsage(loaded, rootCommand);
      return 0;
    }
    await checkOptions(command as string, loaded, commandArgs);
    // A command that returns a number (setup) decides the exit code; the others succeed.
    const { result } = await runCommand(loaded, { rawArgs: commandArgs });
    return typeof result === "number" ? result : 0;
  } catch (error) {
    const failure = describeFailure(error, isUsageError(error) ? usagePrefix : failurePrefix);
    process.stderr.write(`${failure.text}\n`);
    return failure.exitCode;
  }
}
