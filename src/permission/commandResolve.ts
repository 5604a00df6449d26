// Which programs a simple command runs, as far as its words tell: the program after its wrappers
// (commandNormalize.ts), and the commands it runs as data — the script of `sh -c` and of a shell
// reading a here-string, `eval`, `source`, `trap`, `su -c`, `watch`, `find -exec`, `xargs`, the
// values of variables and git settings that hold commands (codeVariables.ts) — recursively. Where
// the words cannot tell (`$x`, `sh -c "$s"`, `… | sh`, `alias r=rm`, `find -exec {}`), it says why
// in `unknown`: a team policy that forbids commands then refuses the line (policyCheck.ts).
import { commandValue, variableUse } from "./codeVariables.ts";
import { knownShapes, type ShapedWord, unwrap } from "./commandNormalize.ts";
import type { ResolveSink } from "./programArgs.ts";
import { runsAsData } from "./programRules.ts";
import { type ParsedShell, parseShell, type ShellAssignment, type StdinSource, type WordShape } from "./shellParse.ts";

/** A simple command as far as the resolver needs it (a parsed ShellCommand is one). */
export interface SimpleCommand {
  words: string[];
  shapes: WordShape[];
  stdin?: StdinSource | undefined;
  /** Variables set before it (`A=1 cmd`) or, with no words, by it. */
  assigns?: ShellAssignment[];
  /** Variables a declaration builtin sets (`export A=1`). */
  declared?: ShellAssignment[];
}

/** A command as a denial matches it: wrappers stripped, the program by its base name. */
export interface RunPart {
  words: string[];
  /** Per word: its value is computed when it runs (`git push "$flag"`), so it may be any text. */
  open: boolean[];
}

export interface Resolution {
  /** Every command that runs, as a denial matches it. */
  runs: RunPart[];
  /** The commands it runs as data (sh -c, eval, find -exec, xargs …), as written: an allow must cover them too. */
  inner: string[][];
  /** Why a program it runs cannot be known from its words. */
  unknown?: string;
}

const MAX_DEPTH = 6;
const shaped = (words: readonly string[], shapes: readonly WordShape[]): ShapedWord[] =>
  words.map((text, i) => ({ text, shape: shapes[i] ?? { known: true, single: true, head: text } }));

/** Text that would run a command if the shell read it again: `$(…)` or backticks. */
const HOLDS_SUBSTITUTION = /\$\(|`/;

class Resolver implements ResolveSink {
  readonly out: Resolution = { runs: [], inner: [] };
  readonly #depth: number;

  constructor(depth: number) {
    this.#depth = depth;
  }

  fail(why: string): void {
    this.out.unknown ??= why;
  }

  /** A script this command runs: parsed, and each of its commands resolved in turn. */
  script(text: string, known: boolean, what: string, stdin?: StdinSource): void {
    if (!known) return this.fail(`${what} is computed when it runs`);
    const parsed = parseShell(text);
    if (!parsed.ok) return this.fail(`${what} cannot be parsed (${parsed.error ?? "syntax error"})`);
    if (parsed.definesFunctions)
      return this.fail(`${what} defines a shell function, so a name in it may not be the program it looks like`);
    if (parsed.transforms) return this.fail(`${what} uses a \${…@…} expansion, which can run code`);
    this.literals(parsed);
    for (const command of parsed.commands) {
      const inner = resolve({ ...command, stdin: command.stdin ?? stdin }, this.#depth + 1);
      if (command.words.length > 0) this.out.inner.push(command.words);
      this.out.inner.push(...inner.inner);
      this.out.runs.push(...inner.runs);
      if (inner.unknown !== undefined) this.fail(inner.unknown);
    }
  }

  /** A command given as words (`find -exec`, `runuser -u x cmd`): resolved as a command of its own. */
  words(words: ShapedWord[], stdin?: StdinSource): void {
    const inner = this.wrapped(words, stdin);
    this.out.inner.push(
      words.map((w) => w.text),
      ...inner,
    );
  }

  /**
   * A command a wrapper runs (`uv run pytest`): resolved for denials; an allow matches the wrapper as written. Returns
   * its inner commands.
   */
  wrapped(words: ShapedWord[], stdin?: StdinSource): string[][] {
    const inner = resolve(
      { words: words.map((w) => w.text), shapes: words.map((w) => w.shape), stdin },
      this.#depth + 1,
    );
    this.out.runs.push(...inner.runs);
    if (inner.unknown !== undefined) this.fail(inner.unknown);
    return inner.inner;
  }

  also(words: ShapedWord[]): void {
    this.out.runs.push({ words: words.map((word) => word.text), open: words.map((word) => !word.shape.known) });
  }

  /** What a program reads as its script from standard input. */
  stdinScript(stdin: StdinSource | undefined, who: string): void {
    switch (stdin?.kind) {
      case undefined:
        return;
      case "pipe":
        return this.fail(`${who} reads its commands from a pipe, which cannot be read in advance`);
      case "descriptor":
        return this.fail(`${who} reads its commands from another file descriptor`);
      case "file":
        if (!stdin.known) this.fail(`${who} reads its commands from a file whose name is computed when it runs`);
        return;
      case "here":
        return this.script(stdin.text, stdin.known, `the here-document ${who} reads`);
    }
  }

  /**
   * Fixed text that holds `$(…)` runs it if the shell reads it again: a variable's value in an
   * arithmetic context (`x='a[$(rm y)]'; echo $((x))`), a prompt, a value handed to eval. Its
   * commands count as run.
   */
  reread(text: string, strict: boolean): void {
    if (!HOLDS_SUBSTITUTION.test(text)) return;
    const parsed = parseShell(`: "${text.replace(/["\\]/g, "\\$&")}"`);
    if (!parsed.ok) return;
    for (const command of parsed.commands.slice(1)) {
      const inner = resolve(command, this.#depth + 1);
      this.out.runs.push(...inner.runs);
      if (strict && inner.unknown !== undefined)
        this.fail(`a value it sets would run a command if read again, and ${inner.unknown}`);
    }
  }

  /** Every fixed text of a parsed line that holds `$(…)`: its commands count for denials. */
  literals(parsed: ParsedShell): void {
    for (const text of parsed.literals) this.reread(text, false);
  }

  /** A variable set for or by a command: its value when it is code. */
  variable(name: string, value: string, known: boolean): void {
    if (known) this.reread(value, true);
    switch (variableUse(name)) {
      case "function":
        return this.fail(`it passes the shell function ${name} through the environment`);
      case "expanded": {
        // The shell expands the value again when it uses it: like the body of a double-quoted string.
        if (!known)
          return this.fail(`the value of ${name}, which the shell expands when it uses it, is computed when it runs`);
        const reread = parseShell(`: "${value.replace(/["\\]/g, "\\$&")}"`);
        const parts = reread.commands[0]?.shapes[1];
        if (!reread.ok || reread.commands.length !== 1 || (parts !== undefined && !parts.known)) {
          this.fail(`the value of ${name} holds an expansion, which the shell runs when it uses it`);
        }
        return;
      }
      case "command":
        return this.script(commandValue(name, value), known, `the command in ${name}`);
      default:
        return;
    }
  }
}

/** What a simple command runs, as far as its words tell. */
export function resolve(command: SimpleCommand, depth = 0): Resolution {
  const resolver = new Resolver(depth);
  if (depth > MAX_DEPTH) {
    resolver.fail("it nests commands in commands too deeply to read");
    return resolver.out;
  }
  for (const assign of [...(command.assigns ?? []), ...(command.declared ?? [])])
    resolver.variable(assign.name, assign.value, assign.literal);
  if (command.words.length === 0) return resolver.out;
  const unwrapped = unwrap(command.words, command.shapes);
  for (const set of unwrapped.sets) {
    const name = set.text.slice(0, set.text.indexOf("="));
    resolver.variable(name, set.text.slice(name.length + 1), set.shape.known);
  }
  const wrapper = unwrapped.wrappers.at(-1) ?? "a wrapper";
  if (unwrapped.script)
    resolver.script(
      unwrapped.script.text,
      unwrapped.script.shape.known,
      `the command ${wrapper} -c runs`,
      command.stdin,
    );
  if (unwrapped.unknown !== undefined) resolver.fail(unwrapped.unknown);
  if (unwrapped.words.length === 0) return resolver.out;
  const program = unwrapped.program;
  resolver.out.runs.push({
    words: [program ?? (unwrapped.words[0] as string), ...unwrapped.words.slice(1)],
    open: unwrapped.shapes.map((shape, i) => !shape.known && !(i === 0 && program !== undefined)),
  });
  // xargs' command runs with its input as arguments: an allow must cover it as well as `xargs …`.
  if (unwrapped.wrappers.includes("xargs"))
    resolver.out.inner.push(unwrapped.appendedInput ? unwrapped.words.slice(0, -1) : unwrapped.words);
  const args = shaped(unwrapped.words, unwrapped.shapes).slice(1);
  if (program !== undefined && unwrapped.unknown === undefined) runsAsData(resolver, program, args, command.stdin);
  return resolver.out;
}

/** The commands in a line's fixed texts that would run if read again (`x='a[$(rm y)]'; echo $((x))`). */
export function rereadCommands(parsed: ParsedShell): RunPart[] {
  const resolver = new Resolver(1);
  resolver.literals(parsed);
  return resolver.out.runs;
}

export interface InnerCommands {
  /** Word lists of the commands this one runs as data. */
  commands: string[][];
  /** False when one of them cannot be read in advance (`eval "$x"`, `bash -c "$s"`). */
  ok: boolean;
}

/**
 * The commands run by a command given as plain words (all known): the script of `sh -c`, `eval`, `find -exec`, `xargs`
 * …
 */
export function innerCommands(words: readonly string[]): InnerCommands {
  const resolution = resolve({ words: [...words], shapes: knownShapes(words) });
  return { commands: resolution.inner, ok: resolution.unknown === undefined };
}
