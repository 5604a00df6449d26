// How the command line asks for the chat: `garuda` with no command word, only the chat's
// options (`--resume` may be followed by a session id, which is not a command), or with words
// that name no command: `garuda "fix the test"` starts the chat and sends them as its first
// prompt. Tiny and import-free on purpose: main.ts reads it before any command loads.

const VALUE_FLAGS = new Set(["--model", "-m"]);
const OPTIONAL_VALUE_FLAGS = new Set(["--resume", "-r"]);

/** The chat's options, for `garuda --help` (citty's argument definitions). */
export const CHAT_ARGS = {
  model: {
    type: "string",
    alias: "m",
    description: "The model to use (beats GARUDA_MODEL and the models.json default)",
    valueHint: "model",
  },
  continue: { type: "boolean", alias: "c", description: "Continue the latest conversation in this folder" },
  resume: {
    type: "string",
    alias: "r",
    description: "Resume a conversation of this folder: its id, or pick from a list",
    valueHint: "id",
  },
  plan: { type: "boolean", description: "Start in plan mode (read and plan, change nothing)" },
  "hide-thinking": { type: "boolean", description: "Do not show the model's thinking" },
  prompt: {
    type: "positional",
    required: false,
    description: 'The first prompt, sent as the chat starts (garuda "fix the failing test")',
    valueHint: "prompt",
  },
} as const;

/**
 * The words of argv that are not options or their values (a session id after --resume is a
 * value), in order; everything after `--` is a word.
 */
export function chatWords(argv: readonly string[], commands: readonly string[] = []): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") return [...words, ...argv.slice(i + 1)];
    if (arg.startsWith("-") && arg !== "-") {
      const next = argv[i + 1];
      if (VALUE_FLAGS.has(arg)) i++;
      else if (OPTIONAL_VALUE_FLAGS.has(arg) && next !== undefined && !next.startsWith("-") && !commands.includes(next))
        i++;
      continue;
    }
    words.push(arg);
  }
  return words;
}

/** The first word of argv before any `--`: a command's name, or the start of the chat's prompt. */
export function firstWord(argv: readonly string[], commands: readonly string[]): string | undefined {
  const end = argv.indexOf("--");
  return chatWords(end >= 0 ? argv.slice(0, end) : argv, commands)[0];
}

/** True when argv starts the chat: no command is named before any `--` (`garuda -- run` is a prompt). */
export function isChatInvocation(argv: readonly string[], commands: readonly string[]): boolean {
  const first = firstWord(argv, commands);
  return first === undefined || !commands.includes(first);
}

/** The chat's first prompt: the words of argv joined by blanks; undefined when there are none. */
export function promptArg(argv: readonly string[]): string | undefined {
  const text = chatWords(argv).join(" ");
  return text.trim() === "" ? undefined : text;
}

/** The value of --resume/-r: undefined when absent, "" when given without an id. */
export function resumeArg(argv: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg.startsWith("--resume=")) found = arg.slice("--resume=".length);
    else if (OPTIONAL_VALUE_FLAGS.has(arg)) {
      const next = argv[i + 1];
      found = next !== undefined && !next.startsWith("-") ? next : "";
      if (found !== "") i++;
    } else if (VALUE_FLAGS.has(arg)) i++;
  }
  return found;
}
