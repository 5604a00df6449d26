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

/** What the check needs of a citty argument definition. */
export interface OptionSpec {
  type?: "boolean" | "string" | "enum" | "positional" | undefined;
  alias?: string | readonly string[] | undefined;
  options?: readonly string[] | undefined;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

export interface ScannedArgs {
  /** The words that are not options or their values. */
  words: string[];
  /** The first thing wrong with the options, as a sentence for the user; absent when all are right. */
  problem?: string;
}

interface Known {
  name: string;
  spec: OptionSpec;
}

/** citty also accepts an option in camelCase (--hideThinking) and in kebab-case (--key-stdin). */
function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

function takesValue(spec: OptionSpec): boolean {
  return spec.type === "string" || spec.type === "enum";
}

function aliases(spec: OptionSpec): readonly string[] {
  return typeof spec.alias === "string" ? [spec.alias] : (spec.alias ?? []);
}

/** Every spelling citty accepts for each option, and -h/--help, which main.ts answers itself. */
function knownOptions(specs: OptionSpecs): Map<string, Known> {
  const known = new Map<string, Known>([
    ["--help", { name: "help", spec: { type: "boolean" } }],
    ["-h", { name: "help", spec: { type: "boolean" } }],
  ]);
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.type === "positional") continue;
    known.set(`--${kebab(name)}`, { name, spec });
    for (const alias of aliases(spec))
      known.set(alias.length === 1 ? `-${alias}` : `--${kebab(alias)}`, { name, spec });
    if (spec.type === "boolean") known.set(`--no-${kebab(name)}`, { name, spec });
  }
  return known;
}

/** Edit distance with swapped neighbours as one edit (--fromat), for "did you mean": a typo is an edit or two away. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The known long option nearest to `flag`, when it is near enough to be a typo of it. */
export function nearestOption(flag: string, known: Iterable<string>): string | undefined {
  let best: { option: string; score: number } | undefined;
  for (const option of known) {
    // A --no-… spelling is only offered for a --no-… typo: otherwise it would shadow the option.
    if (!option.startsWith("--") || option.startsWith("--no-") !== flag.startsWith("--no-")) continue;
    const score = distance(flag, option);
    if (!best || score < best.score) best = { option, score };
  }
  return best && best.score <= Math.max(1, Math.floor((flag.length - 2) / 3)) ? best.option : undefined;
}

function valueProblem(
  flag: string,
  spec: OptionSpec,
  value: string | undefined,
  optional: boolean,
): string | undefined {
  const choices = spec.type === "enum" && spec.options ? spec.options : undefined;
  // `--model=` is as empty as `--model`; an optional value may be empty (`--resume=` picks from a list).
  if (value === undefined || value === "") {
    if (optional) return undefined;
    return choices ? `${flag} needs a value: one of ${choices.join(", ")}.` : `${flag} needs a value.`;
  }
  if (choices && !choices.includes(value)) return `${flag} must be one of ${choices.join(", ")}, not "${value}".`;
  return undefined;
}

/** An option and its value as written in one argument (--format=json, -mVALUE), if any. */
interface Option {
  flag: string;
  found?: Known;
  inline?: string;
  problem?: string;
}

/** One argument that starts with "-": a long option (--name, --name=value) or one-letter ones (-c, -cm, -mVALUE). */
function readOption(arg: string, known: Map<string, Known>): Option {
  if (arg.startsWith("--")) {
    const equals = arg.indexOf("=");
    const flag = equals >= 0 ? arg.slice(0, equals) : arg;
    return { flag, found: known.get(kebab(flag)), ...(equals >= 0 && { inline: arg.slice(equals + 1) }) };
  }
  // As node's parseArgs reads them: letters of flags, the last one (or one with the rest as its value) may take a
  // value.
  for (let k = 1; k < arg.length; k++) {
    const flag = `-${arg[k]}`;
    const found = known.get(flag);
    if (!found) return { flag, problem: `unknown option ${flag}${arg.length > 2 ? ` (in ${arg})` : ""}.` };
    if (takesValue(found.spec) || k === arg.length - 1)
      return { flag, found, ...(k < arg.length - 1 && { inline: arg.slice(k + 1) }) };
  }
  return { flag: arg }; // not reached: the last letter returns above
}

/**
 * Checks argv against a command's declared options the way citty will read them: an unknown or
 * misspelled option, an option without its value, or a value outside an enum's choices is a
 * problem (citty itself ignores unknown options, so a typo would silently change the run).
 * `optionalValues`: options whose value may be left out (the chat's --resume).
 */
export function scanArgs(
  rawArgs: readonly string[],
  specs: OptionSpecs,
  optionalValues: readonly string[] = [],
): ScannedArgs {
  const known = knownOptions(specs);
  const words: string[] = [];
  let problem: string | undefined;
  // The scan goes on past a problem: the words (acp's `setup`) decide which options are known.
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i] as string;
    if (arg === "--") {
      words.push(...rawArgs.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      words.push(arg);
      continue;
    }
    const option = readOption(arg, known);
    const { found } = option;
    if (!found || !takesValue(found.spec)) {
      problem ??= option.problem ?? (found ? undefined : unknownOption(option.flag, known));
      continue;
    }
    let value = option.inline;
    const next = rawArgs[i + 1];
    // A value never looks like an option: `--format --plan` forgot the format.
    if (value === undefined && next !== undefined && (!next.startsWith("-") || next === "-")) value = rawArgs[++i];
    problem ??= valueProblem(option.flag, found.spec, value, optionalValues.includes(found.name));
  }
  return problem === undefined ? { words } : { words, problem };
}

function unknownOption(flag: string, known: Map<string, Known>): string {
  const near = nearestOption(kebab(flag), known.keys());
  return `unknown option ${flag}${near ? ` (did you mean ${near}?)` : ""}.`;
}
