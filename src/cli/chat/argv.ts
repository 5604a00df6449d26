// How the command line asks for the chat: `garuda` with no command word, only the chat's
// options (`--resume` may be followed by a session id, which is not a command). Tiny and
// import-free on purpose: main.ts reads it before any command loads.

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
} as const;

/** True when argv starts the chat: no word in it names a command (a session id after --resume is not one). */
export function isChatInvocation(argv: readonly string[], commands: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") return i === argv.length - 1;
    if (arg.startsWith("-")) {
      const next = argv[i + 1];
      if (VALUE_FLAGS.has(arg)) i++;
      else if (OPTIONAL_VALUE_FLAGS.has(arg) && next !== undefined && !next.startsWith("-") && !commands.includes(next))
        i++;
      continue;
    }
    return false;
  }
  return true;
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
