// Splits a shell command line into the simple commands it would run, with a real Bash parser
// (unbash: pure TypeScript, no dependencies, works in a compiled Bun binary). Every command
// counts, wherever it sits: `a && b; c | d`, `$(…)`, backticks, `<(…)`, `( … )`, `{ …; }`,
// if/for/while/case bodies, unquoted here-documents. Quoted text is data: `echo "a && b"` is one
// command. The caller decides what an unparsable line means (allow: never; deny: roughParts).
import { type Assignment, type CommandArgument, forEachChild, parse, type Redirection, type SyntaxNode, type Word, type WordPart } from "unbash";

/**
 * Variables Garuda sets for every command (src/sandbox/env.ts) or the shell keeps itself: unless
 * the line sets them, an unquoted `$HOME/bin/tool` does not split into other words the line chose.
 */
const GIVEN_VARIABLES: ReadonlySet<string> = new Set(["HOME", "PWD", "OLDPWD", "USER", "LOGNAME", "TMPDIR"]);

/** What is known about a word before the shell runs it. */
export interface WordShape {
  /** Its value is fixed as written (quotes removed, `$'…'` decoded). */
  known: boolean;
  /** It stays one word: no unquoted expansion, glob or brace that could split or multiply it. */
  single: boolean;
  /** The last path segment when that much is fixed, even if the rest is not (`"$DIR/tool"` → tool). */
  base?: string;
  /** The fixed text it starts with (all of it when known): `FOO="$x"` starts with `FOO=`. */
  head: string;
  /** Why its value is not fixed, for messages: "is computed when it runs", "has glob characters" … */
  why?: string;
  /** Counted as one word because the only unquoted expansions in it are of these GIVEN_VARIABLES. */
  given?: string[];
}

/** Where a command's standard input comes from, when that decides what it runs (`sh` reads its script there). */
export type StdinSource =
  | { kind: "pipe" }
  | { kind: "here"; text: string; known: boolean }
  | { kind: "file"; known: boolean }
  | { kind: "descriptor" };

export interface ShellCommand {
  /** Words after quote removal; expansions stay as written (`$x`, `$(…)`). Empty for `x=1` alone. */
  words: string[];
  /** One per word: whether its value (or at least its last path segment) is known before it runs. */
  shapes: WordShape[];
  /** Set when the command reads a pipe, a here-document or string, a file or another descriptor. */
  stdin?: StdinSource;
  /** False when the program name is computed when it runs (`$CMD`, `{rm,-rf}`, `"$(…)"`, globs). */
  literalName: boolean;
  /** Files this command writes by redirection (`> f`, `>> f`, `&> f`); /dev/null and fd copies are left out. */
  writes: string[];
  /** Every redirection target, read or write, as written. */
  redirectTargets: string[];
  /** The command's own source text. */
  text: string;
  /** Variables set for it (`PATH=./bin git status`) or, with no words, by it (`x=1`): the name, the text as written. */
  assigns: ShellAssignment[];
  /** Assignments given as arguments to a declaration builtin (`export A=1`, `declare -x B=$x`). */
  declared: ShellAssignment[];
}

/** `NAME=value`: the text as written, the value after quote removal, whether that value is fixed. */
export interface ShellAssignment {
  name: string;
  text: string;
  value: string;
  literal: boolean;
}

export interface ParsedShell {
  /** False when any part failed to parse: `commands` is then a best effort. */
  ok: boolean;
  error?: string;
  commands: ShellCommand[];
  /** The line defines shell functions, so a command name may not be the program it looks like. */
  definesFunctions: boolean;
  /** A `${x@P}`-style transformation (or an expansion the parser does not know): `@P` runs the `$(…)` inside x's value. */
  transforms: boolean;
  /** Fixed text (quoted or escaped) that holds `$(…)` or backticks: it runs them if the shell reads it again. */
  literals: string[];
}

const HOLDS_SUBSTITUTION = /\$\(|`/;

const WRITE_OPERATORS: ReadonlySet<string> = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
const HARMLESS_TARGETS: ReadonlySet<string> = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

function partIsLiteral(part: WordPart): boolean {
  switch (part.type) {
    case "Literal":
    case "SingleQuoted":
    case "AnsiCQuoted":
      return true;
    case "DoubleQuoted":
      return part.parts.every((child) => child.type === "Literal");
    default:
      return false;
  }
}

/** A word whose value is known before the shell runs it. */
export function wordIsLiteral(word: Word): boolean {
  return word.parts === undefined || word.parts.every(partIsLiteral);
}

/** Why a part's value is not known, or undefined when it is. */
function partWhy(part: WordPart): string | undefined {
  switch (part.type) {
    case "Literal":
    case "SingleQuoted":
    case "AnsiCQuoted":
      return undefined;
    case "DoubleQuoted":
    case "LocaleString":
      return part.parts.some((child) => child.type !== "Literal") ? "is computed when it runs" : undefined;
    case "Glob":
    case "ExtendedGlob":
      return "has glob characters, so the file it names is picked when it runs";
    case "BraceExpansion":
      return "uses brace expansion";
    case "ProcessSubstitution":
      return "is the output of another command";
    default:
      return "is computed when it runs";
  }
}

/** Parts that keep a word one word whatever their value: quoted text and literal text. */
const SPLIT_FREE: ReadonlySet<string> = new Set(["Literal", "SingleQuoted", "AnsiCQuoted", "DoubleQuoted", "LocaleString", "ProcessSubstitution"]);

/** The fixed text at the end of a word: from the last part whose value is not known to the end. */
function knownTail(parts: readonly WordPart[]): string {
  let tail = "";
  for (let i = parts.length - 1; i >= 0; i -= 1) {
    const part = parts[i] as WordPart;
    if (part.type === "DoubleQuoted" || part.type === "LocaleString") {
      for (let j = part.parts.length - 1; j >= 0; j -= 1) {
        const child = part.parts[j];
        if (child?.type !== "Literal") return tail;
        tail = child.value + tail;
      }
      continue;
    }
    if (partWhy(part) !== undefined) return tail;
    tail = ("value" in part ? part.value : part.text) + tail;
  }
  return tail;
}

/** The fixed text at the start of a word, up to the first part whose value is not known. */
function knownHead(parts: readonly WordPart[]): string {
  let head = "";
  for (const part of parts) {
    if (part.type === "DoubleQuoted" || part.type === "LocaleString") {
      for (const child of part.parts) {
        if (child.type !== "Literal") return head;
        head += child.value;
      }
      continue;
    }
    if (partWhy(part) !== undefined) return head;
    head += "value" in part ? part.value : part.text;
  }
  return head;
}

/** The name of a plain `$NAME` or `${NAME}` of a GIVEN_VARIABLES name. */
function givenName(part: WordPart): string | undefined {
  if (part.type === "SimpleExpansion") {
    const name = part.text.slice(1);
    return GIVEN_VARIABLES.has(name) ? name : undefined;
  }
  if (part.type === "ParameterExpansion" && part.operation === undefined && part.prefix === undefined && part.index === undefined) {
    return GIVEN_VARIABLES.has(part.parameter) ? part.parameter : undefined;
  }
  return undefined;
}

/** What is known of a word before it runs. */
export function wordShape(word: Word): WordShape {
  const parts = word.parts;
  if (parts === undefined || parts.every((part) => partWhy(part) === undefined)) {
    const slash = word.value.lastIndexOf("/");
    const base = slash >= 0 && slash < word.value.length - 1 ? word.value.slice(slash + 1) : word.value;
    return { known: true, single: true, base, head: word.value };
  }
  const why = parts.map(partWhy).find((reason) => reason !== undefined);
  const given = parts.flatMap((part) => (!SPLIT_FREE.has(part.type) && givenName(part) !== undefined ? [givenName(part) as string] : []));
  const single = parts.every((part) => SPLIT_FREE.has(part.type) || givenName(part) !== undefined);
  const shape: WordShape = { known: false, single, head: knownHead(parts), ...(why !== undefined && { why }), ...(given.length > 0 && { given }) };
  // `"$DIR/tool"`: whatever DIR holds, the program's own name is `tool`.
  const tail = knownTail(parts);
  const slash = tail.lastIndexOf("/");
  if (single && slash >= 0 && slash < tail.length - 1) shape.base = tail.slice(slash + 1);
  return shape;
}

/** An argument of a declaration builtin (`export A=$x`) stays one word; its value is known when literal. */
function argumentShape(arg: CommandArgument): WordShape {
  if (arg.type === "Word") return wordShape(arg);
  const known = arg.value.type === "Word" && valueIsLiteral(arg.value) && arg.index === undefined;
  return known ? { known, single: true, head: arg.text } : { known, single: true, head: `${arg.name}=`, why: "is computed when it runs" };
}

function redirectInfo(redirect: Redirection): { target: string; writes: boolean } | undefined {
  if (redirect.type !== "Redirect" || !redirect.target) return undefined;
  const target = redirect.target.value;
  if (redirect.operator === ">&" || redirect.operator === "<&") {
    // `2>&1`, `>&-`: a descriptor copy; `>& file` writes a file.
    if (/^(\d+|-)$/.test(target)) return undefined;
    return { target, writes: redirect.operator === ">&" };
  }
  return { target, writes: WRITE_OPERATORS.has(redirect.operator) };
}

/** An assigned value the shell does not expand further: quotes and literal text; a glob stays text there. */
function valueIsLiteral(word: Word): boolean {
  return word.parts === undefined || word.parts.every((part) => part.type === "Glob" || partIsLiteral(part));
}

function assignmentsOf(items: readonly (Assignment | Redirection | Word)[]): ShellAssignment[] {
  return items.flatMap((item) =>
    item.type === "Assignment"
      ? [{
          name: item.name,
          text: item.text,
          value: item.value.type === "Word" ? item.value.value : item.value.elements.map((element) => element.value).join(" "),
          literal: item.value.type === "Word" && valueIsLiteral(item.value) && item.index === undefined,
        }]
      : [],
  );
}

/** Where standard input comes from: the command's own redirections, else what it inherits (a pipe, a group's redirection). */
function stdinOf(redirects: readonly Redirection[], inherited: StdinSource | undefined): StdinSource | undefined {
  let source = inherited;
  for (const redirect of redirects) {
    const fd = redirect.descriptor;
    if (fd !== undefined && !(fd.type === "FileDescriptor" && fd.value === 0)) continue;
    if (redirect.type === "HereDoc") {
      const body = redirect.body;
      const known = redirect.delimiter?.quoted === true || (body.parts ?? []).every((part) => part.type === "Literal");
      source = { kind: "here", text: body.text, known };
    } else if (redirect.type === "HereString") {
      source = redirect.target ? { kind: "here", text: redirect.target.value, known: wordShape(redirect.target).known } : source;
    } else if (redirect.operator === "<" || redirect.operator === "<>") {
      source = { kind: "file", known: redirect.target !== undefined && wordShape(redirect.target).known };
    } else if (redirect.operator === "<&") {
      source = { kind: "descriptor" };
    }
  }
  return source;
}

interface CommandParts {
  words: string[];
  shapes: WordShape[];
  literalName: boolean;
  text: string;
  assigns?: ShellAssignment[];
  declared?: ShellAssignment[];
  stdin: StdinSource | undefined;
}

function commandFrom(redirects: readonly Redirection[], parts: CommandParts): ShellCommand {
  const writes: string[] = [];
  const redirectTargets: string[] = [];
  for (const redirect of redirects) {
    const info = redirectInfo(redirect);
    if (!info) continue;
    redirectTargets.push(info.target);
    if (info.writes && !HARMLESS_TARGETS.has(info.target)) writes.push(info.target);
  }
  const command: ShellCommand = {
    words: parts.words,
    shapes: parts.shapes,
    literalName: parts.literalName,
    writes,
    redirectTargets,
    text: parts.text,
    assigns: parts.assigns ?? [],
    declared: parts.declared ?? [],
  };
  const stdin = stdinOf(redirects, parts.stdin);
  if (stdin) command.stdin = stdin;
  return command;
}

export interface ParseOptions {
  /**
   * The line is a whole command Garuda runs (not a script inside one): the GIVEN_VARIABLES hold
   * Garuda's values unless the line sets them, so `$HOME/bin/tool` stays one word there.
   */
  topLevel?: boolean;
}

/** Names a line may set: assignments, loop variables, and any word spelling the name (`read HOME`, `unset PWD`). */
function setsGiven(commands: readonly ShellCommand[], loopNames: ReadonlySet<string>): Set<string> {
  const names = new Set<string>(loopNames);
  for (const command of commands) {
    for (const assign of [...command.assigns, ...command.declared]) names.add(assign.name);
    for (const word of command.words) if (GIVEN_VARIABLES.has(word) || /^[A-Z]+=/.test(word)) names.add(word.split("=")[0] as string);
  }
  return names;
}

/** Takes back the one-word reading of `$HOME…` where the line sets HOME (or everywhere, for an inner script). */
function settleGiven(commands: ShellCommand[], rebound: ReadonlySet<string> | "all"): void {
  for (const command of commands) {
    command.shapes.forEach((shape, i) => {
      if (!shape.given || !(rebound === "all" || shape.given.some((name) => rebound.has(name)))) return;
      const { base: _base, given: _given, ...rest } = shape;
      command.shapes[i] = { ...rest, single: false };
    });
  }
}

/** Parses a command line into its simple commands. Never throws. */
export function parseShell(source: string, options: ParseOptions = {}): ParsedShell {
  const commands: ShellCommand[] = [];
  const errors: string[] = [];
  let definesFunctions = false;
  let transforms = false;
  const literals: string[] = [];
  const loopNames = new Set<string>();

  // `stdin`: what the node reads when it does not redirect it itself: the pipe of the pipeline it
  // sits in (every command after the first), or the redirection of a group around it.
  const visit = (node: SyntaxNode, text: string, stdin: StdinSource | undefined): void => {
    let own = text;
    switch (node.type) {
      case "Script":
        if (node.source !== undefined) own = node.source;
        for (const error of (node as { errors?: readonly { message: string }[] }).errors ?? []) errors.push(error.message);
        break;
      case "CommandExpansion":
      case "ProcessSubstitution":
      case "ArithmeticCommandExpansion":
        if (node.script === undefined) errors.push(`cannot parse ${node.text}`);
        break;
      case "Function":
        definesFunctions = true;
        break;
      case "For":
      case "Select":
        loopNames.add(node.name.value);
        break;
      case "Pipeline":
        node.commands.forEach((child, index) => visit(child, own, index > 0 ? { kind: "pipe" } : stdin));
        return;
      case "Command": {
        // `export PATH=…` keeps its assignments as words, so a rule sees what it sets.
        const words = node.name ? [node.name.value, ...node.args.map((arg) => (arg.type === "Word" ? arg.value : arg.text))] : [];
        const shapes = node.name ? [wordShape(node.name), ...node.args.map(argumentShape)] : [];
        const literalName = node.name ? wordIsLiteral(node.name) : true;
        const assigns = assignmentsOf(node.prefix);
        const declared = assignmentsOf(node.args);
        commands.push(commandFrom(node.redirects, { words, shapes, literalName, text: own.slice(node.pos, node.end), assigns, declared, stdin }));
        break;
      }
      case "ParameterExpansion":
        if (node.operation?.type === "Transform" || node.operation?.type === "Unknown") transforms = true;
        break;
      case "Word":
        // An escaped word (`x=\$\(rm\ y\)`) holds its text in several parts: take it whole.
        if (wordIsLiteral(node) && HOLDS_SUBSTITUTION.test(node.value)) literals.push(node.value);
        break;
      case "Literal":
      case "SingleQuoted":
      case "AnsiCQuoted":
        if (HOLDS_SUBSTITUTION.test(node.value)) literals.push(node.value);
        break;
      case "HereDocBody":
        if (node.parts === undefined && HOLDS_SUBSTITUTION.test(node.text)) literals.push(node.text);
        break;
      case "Redirected":
        // `{ a; b; } > file`: the group's redirections, as a command of their own.
        commands.push(commandFrom(node.redirects, { words: [], shapes: [], literalName: true, text: own.slice(node.pos, node.end), stdin }));
        forEachChild(node, (child) => visit(child, own, stdinOf(node.redirects, stdin)));
        return;
    }
    forEachChild(node, (child) => visit(child, own, stdin));
  };

  try {
    visit(parse(source), source, undefined);
  } catch (error) {
    errors.push(error instanceof Error ? error.message : String(error));
  }
  settleGiven(commands, options.topLevel === true ? setsGiven(commands, loopNames) : "all");
  const result: ParsedShell = { ok: errors.length === 0, commands, definesFunctions, transforms, literals: [...new Set(literals)] };
  if (result.ok === false) result.error = errors[0];
  return result;
}

/**
 * A conservative split for denials when parsing failed or a name is computed: cut at every
 * operator and substitution mark, drop quote characters, and split words on blanks and braces.
 * It over-splits on purpose (quoted `&&` splits too): a deny may match more, never less.
 */
export function roughParts(source: string): string[][] {
  return source
    .split(/\|\||&&|[;&|\n`(){}]|\$\(|<\(|>\(/)
    .map((chunk) =>
      chunk
        .replace(/["'\\]/g, "")
        .split(/[\s,]+/)
        .filter((word) => word.length > 0),
    )
    .filter((words) => words.length > 0);
}
