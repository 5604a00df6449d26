// Splits a shell command line into the simple commands it would run, with a real Bash parser
// (unbash: pure TypeScript, no dependencies, works in a compiled Bun binary). Every command
// counts, wherever it sits: `a && b; c | d`, `$(…)`, backticks, `<(…)`, `( … )`, `{ …; }`,
// if/for/while/case bodies, unquoted here-documents. Quoted text is data: `echo "a && b"` is one
// command. The caller decides what an unparsable line means (allow: never; deny: roughParts).
import { type Assignment, forEachChild, parse, type Redirection, type SyntaxNode, type Word } from "unbash";
import { messageOf } from "../errors/caught.ts";
import {
  argumentShape,
  setsGiven,
  settleGiven,
  valueIsLiteral,
  wordIsLiteral,
  type WordShape,
  wordShape,
} from "./wordShape.ts";

export type { WordShape } from "./wordShape.ts";

/** Paths that are the standard input itself, and other open descriptors. */
export const STDIN_PATH = /^(\/dev\/stdin|\/dev\/fd\/0|\/proc\/[^/]+\/fd\/0)$/;
export const DESCRIPTOR_PATH = /^(\/dev\/fd\/\d+|\/proc\/[^/]+\/fd\/\d+)$/;

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
  /**
   * A `${x@P}`-style transformation (or an expansion the parser does not know): `@P` runs the `$(…)` inside x's value.
   */
  transforms: boolean;
  /** Fixed text (quoted or escaped) that holds `$(…)` or backticks: it runs them if the shell reads it again. */
  literals: string[];
}

const HOLDS_SUBSTITUTION = /\$\(|`/;

const WRITE_OPERATORS: ReadonlySet<string> = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
const HARMLESS_TARGETS: ReadonlySet<string> = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

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

function assignmentsOf(items: readonly (Assignment | Redirection | Word)[]): ShellAssignment[] {
  return items.flatMap((item) =>
    item.type === "Assignment"
      ? [
          {
            name: item.name,
            text: item.text,
            value:
              item.value.type === "Word"
                ? item.value.value
                : item.value.elements.map((element) => element.value).join(" "),
            literal: item.value.type === "Word" && valueIsLiteral(item.value) && item.index === undefined,
          },
        ]
      : [],
  );
}

/**
 * Where standard input comes from: the command's own redirections, else what it inherits (a pipe, a group's
 * redirection).
 */
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
      source = redirect.target
        ? { kind: "here", text: redirect.target.value, known: wordShape(redirect.target).known }
        : source;
    } else if (redirect.operator === "<" || redirect.operator === "<>") {
      const path = redirect.target?.value ?? "";
      // `< /dev/stdin` keeps what it had; `< /dev/fd/3` is another descriptor, not a file.
      if (STDIN_PATH.test(path)) continue;
      source = DESCRIPTOR_PATH.test(path)
        ? { kind: "descriptor" }
        : { kind: "file", known: redirect.target !== undefined && wordShape(redirect.target).known };
    } else if (redirect.operator === "<&") {
      source = { kind: "descriptor" };
    }
  }
  return source;
}

interface CommandParts {
  words: string[];
  shapes: WordShape[];
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
        for (const error of (node as { errors?: readonly { message: string }[] }).errors ?? [])
          errors.push(error.message);
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
        const words = node.name
          ? [node.name.value, ...node.args.map((arg) => (arg.type === "Word" ? arg.value : arg.text))]
          : [];
        const shapes = node.name ? [wordShape(node.name), ...node.args.map(argumentShape)] : [];
        const assigns = assignmentsOf(node.prefix);
        const declared = assignmentsOf(node.args);
        commands.push(
          commandFrom(node.redirects, { words, shapes, text: own.slice(node.pos, node.end), assigns, declared, stdin }),
        );
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
        commands.push(
          commandFrom(node.redirects, { words: [], shapes: [], text: own.slice(node.pos, node.end), stdin }),
        );
        forEachChild(node, (child) => visit(child, own, stdinOf(node.redirects, stdin)));
        return;
    }
    forEachChild(node, (child) => visit(child, own, stdin));
  };

  try {
    visit(parse(source), source, undefined);
  } catch (error) {
    errors.push(messageOf(error));
  }
  settleGiven(commands, options.topLevel === true ? setsGiven(commands, loopNames) : "all");
  const result: ParsedShell = {
    ok: errors.length === 0,
    commands,
    definesFunctions,
    transforms,
    literals: [...new Set(literals)],
  };
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
