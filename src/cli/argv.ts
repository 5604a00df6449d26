/** Options every command takes, which may also stand before the command's name. */
const GLOBAL_VALUE_FLAGS = new Set(["--model", "-m"]);

export interface SplitArgv {
  /** The first word that is not an option, if any. */
  command?: string;
  /** The arguments for that command, global options moved behind its name. */
  commandArgs: string[];
  wantsHelp: boolean;
}

/**
 * Finds the command in argv and moves global options that stand before it (`garuda --model X
 * acp`) behind it, so each command sees them as its own.
 */
export function splitArgv(argv: string[]): SplitArgv {
  const globals: string[] = [];
  const wantsHelp = argv.includes("--help") || argv.includes("-h");
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") break;
    if (arg.startsWith("-")) {
      globals.push(arg);
      if (GLOBAL_VALUE_FLAGS.has(arg) && i + 1 < argv.length) globals.push(argv[++i] as string);
      continue;
    }
    return { command: arg, commandArgs: [...argv.slice(i + 1), ...globals], wantsHelp };
  }
  return { commandArgs: globals, wantsHelp };
}
