// Programs that run commands given as their data, by name: shells (`-c`, a here-string, a pipe),
// eval, source, trap, su/runuser/sg/script, watch, find -exec, git (its settings, aliases and the
// subcommands that run shell commands), and the builtins that change what a name runs (alias,
// hash -p, enable -f, declare -n) or set a code-carrying variable from input. A computed word
// where such a program reads code makes the program unknown; commandResolve.ts drives this.
// git's rules are in gitRules.ts, the environment runners' (`uv run`) in runnerRules.ts.
import { isCodeVariable } from "./codeVariables.ts";
import type { ShapedWord } from "./commandNormalize.ts";
import { git } from "./gitRules.ts";
import { firstComputed, optionValue, quoted, type ResolveSink, whyNot } from "./programArgs.ts";
import { runner } from "./runnerRules.ts";
import { DESCRIPTOR_PATH, STDIN_PATH, type StdinSource } from "./shellParse.ts";

const SHELLS: ReadonlySet<string> = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "ash",
  "mksh",
  "fish",
  "yash",
  "posh",
]);
const DECLARATIONS: ReadonlySet<string> = new Set(["declare", "typeset", "local", "export", "readonly"]);
/** Builtins that set variables to text read when they run. */
const READERS: ReadonlySet<string> = new Set(["read", "mapfile", "readarray", "printf", "getopts"]);
/** find's tests that take a value: a computed value there cannot turn into `-exec`. */
const FIND_VALUED = new RegExp(
  String.raw`^-(i?name|i?path|i?wholename|i?regex|i?lname|newer\w*|type|xtype|user|group|uid|gid|perm|size` +
    "|[amc](time|min)|links|inum|samefile|fstype|used|maxdepth|mindepth|context|printf|fprintf?|fprint0|fls" +
    "|regextype|files0-from)$",
);

interface ShellInvocation {
  script?: ShapedWord;
  file?: ShapedWord;
  /** Files it runs before the script (`--rcfile f`, `--init-file f`). */
  startup: ShapedWord[];
  /** It reads its commands from standard input (no operand, or -s / -i). */
  stdin: boolean;
  unknown?: string;
}

/** How a shell was asked to run: `-c script`, a script file, or standard input. */
function shellInvocation(name: string, args: readonly ShapedWord[]): ShellInvocation {
  let command = false;
  let stdin = false;
  const startup: ShapedWord[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] as ShapedWord;
    if (!word.shape.known)
      return {
        stdin: false,
        startup,
        unknown: `${quoted(word)} (${command ? `the script of ${name} -c` : `an argument of ${name}`}) ${whyNot(word)}`,
      };
    const text = word.text;
    if (text === "--" || text === "-") {
      const next = args[i + 1];
      if (!next) return { stdin: !command, startup };
      if (!next.shape.known)
        return { stdin: false, startup, unknown: `${quoted(next)} (the script ${name} runs) ${whyNot(next)}` };
      return command ? { script: next, stdin: false, startup } : { file: next, stdin, startup };
    }
    if (text.startsWith("--")) {
      const [option, inline] = text.split(/=(.*)/s) as [string, string | undefined];
      if (option === "--rcfile" || option === "--init-file") {
        const file = inline !== undefined ? { text: inline, shape: word.shape } : args[i + 1];
        if (inline === undefined) i += 1;
        if (file) startup.push(file);
      }
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(text)) {
      if (text.startsWith("-") && text.includes("c")) command = true;
      if (text.startsWith("-") && (text.includes("s") || text.includes("i"))) stdin = true;
      if (/[oO]/.test(text)) i += 1;
      continue;
    }
    if (command) return { script: word, stdin: false, startup };
    return stdin ? { stdin: true, startup } : { file: word, stdin: false, startup };
  }
  return { stdin: !command, startup };
}

/** A file a shell reads commands from: the project's own code unless it is a descriptor or computed. */
function scriptFile(sink: ResolveSink, name: string, file: ShapedWord, stdin: StdinSource | undefined): void {
  if (!file.shape.known) return sink.fail(`${name} reads its commands from ${quoted(file)}, which ${whyNot(file)}`);
  if (STDIN_PATH.test(file.text)) return sink.stdinScript(stdin, name);
  if (DESCRIPTOR_PATH.test(file.text)) return sink.fail(`${name} reads its commands from another file descriptor`);
}

function shell(sink: ResolveSink, name: string, args: ShapedWord[], stdin: StdinSource | undefined): void {
  const how = shellInvocation(name, args);
  if (how.unknown !== undefined) return sink.fail(how.unknown);
  for (const file of how.startup) scriptFile(sink, name, file, stdin);
  if (how.script) return sink.script(how.script.text, true, `the script of ${name} -c`, stdin);
  // A script file is the project's own code, as `make` or `npm test` runs it.
  if (how.file) return scriptFile(sink, name, how.file, stdin);
  if (how.stdin) sink.stdinScript(stdin, name);
}

/** su, runuser, sg and script run a shell: its `-c` command, or what it reads. */
function switchUser(sink: ResolveSink, name: string, args: ShapedWord[], stdin: StdinSource | undefined): void {
  const computed = firstComputed(args);
  if (computed)
    return sink.fail(`${quoted(computed)} (an argument of ${name}, which runs a shell) ${whyNot(computed)}`);
  const script = optionValue(args, "c", "--command");
  if (script) return sink.script(script.text, script.shape.known, `the command ${name} -c runs`);
  const operands = args.filter((word) => !word.text.startsWith("-"));
  if (name === "sg")
    return operands.length >= 2
      ? sink.script(operands[1]?.text ?? "", true, "the command sg runs")
      : sink.stdinScript(stdin, name);
  if (name === "script") return sink.stdinScript(stdin, name);
  if (name === "runuser") {
    const user = args.findIndex((word) => word.text === "-u" || word.text === "--user");
    const end = args.findIndex((word) => word.text === "--");
    if (user >= 0) return sink.words(args.slice(end >= 0 ? end + 1 : user + 2), stdin);
  }
  sink.fail(`${name} starts a shell whose commands cannot be read in advance`);
}

function watch(sink: ResolveSink, args: ShapedWord[], stdin: StdinSource | undefined): void {
  let i = 0;
  let exec = false;
  for (; i < args.length; i += 1) {
    const word = args[i] as ShapedWord;
    if (!word.shape.known) return sink.fail(`${quoted(word)} (an argument of watch) ${whyNot(word)}`);
    if (word.text === "--") {
      i += 1;
      break;
    }
    if (!word.text.startsWith("-")) break;
    if (word.text === "-x" || word.text === "--exec") exec = true;
    if (["-n", "--interval", "-q", "--equexit"].includes(word.text)) i += 1;
  }
  const rest = args.slice(i);
  if (rest.length === 0) return;
  if (exec) return sink.words(rest, stdin);
  // Without -x, watch hands its arguments, joined, to sh -c.
  const computed = firstComputed(rest);
  if (computed) return sink.fail(`watch runs ${quoted(computed)}, which ${whyNot(computed)}`);
  sink.script(rest.map((word) => word.text).join(" "), true, "the command watch runs");
}

/** A word find fills in with each file it finds (`{}`): never fixed. */
const foundFile = (word: ShapedWord): ShapedWord =>
  word.text.includes("{}")
    ? {
        text: word.text,
        shape: { known: false, single: true, head: "", why: "is filled in with each file find finds" },
      }
    : word;

function find(sink: ResolveSink, args: ShapedWord[], stdin: StdinSource | undefined): void {
  const terminator = (from: number) => {
    const end = args.findIndex((word, j) => j > from && word.shape.known && (word.text === ";" || word.text === "+"));
    return end < 0 ? args.length : end;
  };
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] as ShapedWord;
    if (!word.shape.known) {
      if (!word.shape.single)
        return sink.fail(`${quoted(word)} (an argument of find) ${whyNot(word)}, so it may hold an -exec`);
      // A computed word that is not a test's value may itself be `-exec`: what follows it is then a command.
      const next = args[i + 1];
      if (
        !FIND_VALUED.test(args[i - 1]?.text ?? "") &&
        next &&
        next.shape.known &&
        !next.text.startsWith("-") &&
        next.text !== "(" &&
        next.text !== "!"
      ) {
        sink.words(args.slice(i + 1, terminator(i)).map(foundFile), stdin);
      }
      continue;
    }
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(word.text)) continue;
    const end = terminator(i);
    const command = args.slice(i + 1, end).map(foundFile);
    i = end;
    if (command.length > 0) sink.words(command, stdin);
  }
}

/** The commands a known program runs as data, by its name; `args` are its words after the name. */
export function runsAsData(sink: ResolveSink, name: string, args: ShapedWord[], stdin: StdinSource | undefined): void {
  if (SHELLS.has(name)) return shell(sink, name, args, stdin);
  if (runner(sink, name, args, stdin)) return;
  switch (name) {
    case "eval": {
      const computed = firstComputed(args);
      if (computed) return sink.fail(`eval runs ${quoted(computed)}, which ${whyNot(computed)}`);
      return sink.script(args.map((word) => word.text).join(" "), true, "the text eval runs");
    }
    case "source":
    case ".": {
      const file = args[0];
      if (file) scriptFile(sink, name, file, stdin);
      return;
    }
    case "trap": {
      const rest = args.filter((word, i) => !(i === 0 && ["-p", "-l", "-P", "--"].includes(word.text)));
      const action = rest[0];
      if (!action || rest.length < 2 || action.text === "-") return;
      return sink.script(action.text, action.shape.known, "the command trap runs");
    }
    case "su":
    case "runuser":
    case "sg":
    case "script":
      return switchUser(sink, name, args, stdin);
    case "watch":
      return watch(sink, args, stdin);
    case "find":
      return find(sink, args, stdin);
    case "git":
      return git(sink, args, stdin);
    case "parallel":
      return sink.fail("parallel builds the commands it runs from its input and arguments");
    case "alias":
      if (args.some((word) => !word.shape.known || !word.text.startsWith("-")))
        sink.fail("it defines an alias, so a name may not be the program it looks like");
      return;
    case "hash":
      if (args.some((word) => !word.shape.known || /^-[a-z]*p/.test(word.text)))
        sink.fail("hash -p makes a name run another program");
      return;
    case "enable":
      if (args.some((word) => !word.shape.known || /^-[a-z]*f/.test(word.text)))
        sink.fail("enable -f loads a builtin from a file");
      return;
    case "exec":
      // `exec` without a command: its redirections stay for the rest of the script (`exec <<< 'rm x'; sh`).
      if (stdin !== undefined) sink.fail("exec changes the shell's standard input for the commands after it");
      return;
    default:
      if (DECLARATIONS.has(name)) {
        if (args.some((word) => /^-[a-zA-Z]*n/.test(word.text)))
          return sink.fail(`${name} -n makes a name stand for another variable`);
        const computed = firstComputed(
          args.filter((word) => !/^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(word.shape.head)),
        );
        if (computed)
          sink.fail(`${quoted(computed)} (an argument of ${name}) ${whyNot(computed)}, so it may set any variable`);
        return;
      }
      if (READERS.has(name)) {
        const target = args.find((word) => isCodeVariable(word.text));
        if (target)
          return sink.fail(`${name} sets ${target.text}, whose value runs as code, to text read when it runs`);
        // The name of the variable set, when computed, may be one of them.
        const names =
          name === "printf"
            ? args.filter((_, i) => args[i - 1]?.text === "-v")
            : name === "getopts"
              ? args.slice(1, 2)
              : args.filter(
                  (word, i) => !word.text.startsWith("-") && !/^-[a-zA-Z]*[pdtnNuCcOi]$/.test(args[i - 1]?.text ?? ""),
                );
        const computed = firstComputed(names);
        if (computed) sink.fail(`${quoted(computed)} (the variable ${name} sets) ${whyNot(computed)}`);
      }
  }
}
