// What a simple command really runs, for denials: `sudo -u x env A=1 nice -n 5 /bin/rm -rf /`
// runs `rm -rf /`. Also the commands hidden inside others: `bash -c "…"`, `eval …`,
// `find … -exec cmd … ;`, `xargs cmd`. Allows do not strip wrappers (they match as written),
// but inner commands count for them too: allowing `xargs *` does not allow `xargs rm`.
import { parseShell } from "./shellParse.ts";

interface WrapperSpec {
  /** Options that take the next word as their value. */
  valued: ReadonlySet<string>;
  /** Positional words the wrapper itself takes before the command (`timeout 10 cmd`). */
  positionals?: number;
  /** Options after which the wrapper does not run a command (`command -v rm`). */
  noRun?: ReadonlySet<string>;
}

const set = (...items: string[]): ReadonlySet<string> => new Set(items);

/** Programs that run the rest of their arguments as a command. */
const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  sudo: {
    valued: set("-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group", "--host", "--prompt", "--chdir",
      "--role", "--type", "--other-user", "--close-from", "--command-timeout"),
  },
  doas: { valued: set("-u", "-C") },
  env: { valued: set("-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-P") },
  exec: { valued: set("-a") },
  command: { valued: set(), noRun: set("-v", "-V") },
  builtin: { valued: set() },
  nohup: { valued: set() },
  time: { valued: set("-f", "--format", "-o", "--output") },
  nice: { valued: set("-n", "--adjustment") },
  ionice: { valued: set("-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid") },
  timeout: { valued: set("-s", "--signal", "-k", "--kill-after"), positionals: 1 },
  stdbuf: { valued: set("-i", "-o", "-e", "--input", "--output", "--error") },
  setsid: { valued: set() },
  unbuffer: { valued: set() },
  busybox: { valued: set() },
  xargs: {
    valued: set("-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter", "--max-args", "--max-procs",
      "--max-chars", "--max-lines", "--replace", "--eof", "--process-slot-var"),
  },
  watch: { valued: set("-n", "--interval", "-d", "--differences") },
};

const SHELLS = set("sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish");
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The last path segment: `/bin/rm` → `rm`. */
export function programName(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash >= 0 && slash < word.length - 1 ? word.slice(slash + 1) : word;
}

/** Strips one wrapper's own options; undefined when it runs nothing. */
function stripWrapper(spec: WrapperSpec, args: string[]): string[] | undefined {
  let i = 0;
  let positionals = spec.positionals ?? 0;
  const extra: string[] = [];
  while (i < args.length) {
    const word = args[i] ?? "";
    if (word === "--") {
      i += 1;
      break;
    }
    if (spec.noRun?.has(word)) return undefined;
    if (word.startsWith("-") && word.length > 1) {
      const [name, inline] = word.startsWith("--") ? [word.split("=")[0] ?? word, word.includes("=")] : [word, false];
      if ((name === "-S" || name === "--split-string") && !inline) extra.push(...(args[i + 1] ?? "").split(/\s+/).filter(Boolean));
      i += spec.valued.has(name) && !inline ? 2 : 1;
      continue;
    }
    if (ASSIGNMENT.test(word)) {
      i += 1;
      continue;
    }
    if (positionals > 0) {
      positionals -= 1;
      i += 1;
      continue;
    }
    break;
  }
  return [...extra, ...args.slice(i)];
}

/**
 * The command as a denial sees it: leading `VAR=value` words and wrappers (sudo, env, exec,
 * command, nohup, time, nice, timeout, xargs …) removed, the program by its base name.
 */
export function normalizeForDeny(words: readonly string[]): string[] {
  let current = [...words];
  for (let round = 0; round < 16; round += 1) {
    while (current.length > 0 && ASSIGNMENT.test(current[0] ?? "")) current = current.slice(1);
    if (current.length === 0) return current;
    const spec = WRAPPERS[programName(current[0] ?? "")];
    if (!spec) break;
    const rest = stripWrapper(spec, current.slice(1));
    if (rest === undefined || rest.length === 0) break;
    current = rest;
  }
  if (current.length > 0) current[0] = programName(current[0] ?? "");
  return current;
}

function shellScriptArg(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] ?? "";
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(word)) return args[i + 1];
    if (word === "-o" || word === "+o" || word === "-O" || word === "+O") i += 1;
    else if (!word.startsWith("-") && !word.startsWith("+")) return undefined;
  }
  return undefined;
}

function findExecCommands(args: string[]): string[][] {
  const found: string[][] = [];
  for (let i = 0; i < args.length; i += 1) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(args[i] ?? "")) continue;
    const end = args.findIndex((word, j) => j > i && (word === ";" || word === "+"));
    found.push(args.slice(i + 1, end < 0 ? undefined : end));
    i = end < 0 ? args.length : end;
  }
  return found.filter((command) => command.length > 0);
}

export interface InnerCommands {
  /** Word lists of the commands this one runs. */
  commands: string[][];
  /** False when an inner script could not be parsed or is computed (`eval "$x"`, `bash -c "$s"`). */
  ok: boolean;
}

/**
 * Commands run by this one as its data: the script of `sh -c`, the words of `eval`, the
 * command of `find -exec` and of `xargs`, recursively (a few levels). Wrappers such as `sudo`
 * are not unwrapped here: a denial strips them first (normalizeForDeny), an allow takes them
 * as written.
 */
export function innerCommands(words: readonly string[], depth = 0): InnerCommands {
  if (depth > 4 || words.length === 0) return { commands: [], ok: true };
  const name = programName(words[0] ?? "");
  const args = words.slice(1);
  const direct: string[][] = [];
  let ok = true;
  let script: string | undefined;
  if (SHELLS.has(name)) script = shellScriptArg(args);
  else if (name === "eval") script = args.join(" ");
  else if (name === "find") direct.push(...findExecCommands(args));
  else if (name === "xargs") {
    const rest = stripWrapper(WRAPPERS.xargs as WrapperSpec, args);
    if (rest && rest.length > 0) direct.push(rest);
  }
  if (script !== undefined) {
    const parsed = parseShell(script);
    if (!parsed.ok || parsed.definesFunctions || parsed.commands.some((command) => !command.literalName)) ok = false;
    for (const command of parsed.commands) if (command.words.length > 0) direct.push(command.words);
  }
  const commands: string[][] = [];
  for (const command of direct) {
    commands.push(command);
    const nested = innerCommands(command, depth + 1);
    commands.push(...nested.commands);
    if (!nested.ok) ok = false;
  }
  return { commands, ok };
}
