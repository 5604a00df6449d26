// Splits a shell command line into the simple commands it would run, with a real Bash parser
// (unbash: pure TypeScript, no dependencies, works in a compiled Bun binary). Every command
// counts, wherever it sits: `a && b; c | d`, `$(…)`, backticks, `<(…)`, `( … )`, `{ …; }`,
// if/for/while/case bodies, unquoted here-documents. Quoted text is data: `echo "a && b"` is one
// command. The caller decides what an unparsable line means (allow: never; deny: roughParts).
import { type Assignment, forEachChild, parse, type Redirection, type SyntaxNode, type Word, type WordPart } from "unbash";

export interface ShellCommand {
  /** Words after quote removal; expansions stay as written (`$x`, `$(…)`). Empty for `x=1` alone. */
  words: string[];
  /** False when the program name is computed when it runs (`$CMD`, `{rm,-rf}`, `"$(…)"`, globs). */
  literalName: boolean;
  /** Files this command writes by redirection (`> f`, `>> f`, `&> f`); /dev/null and fd copies are left out. */
  writes: string[];
  /** Every redirection target, read or write, as written. */
  redirectTargets: string[];
  /** The command's own source text. */
  text: string;
  /** Variables set for it (`PATH=./bin git status`) or, with no words, by it (`x=1`): the name, the text as written. */
  assigns: { name: string; text: string; literal: boolean }[];
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
}

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

function assignmentsOf(prefix: readonly (Assignment | Redirection)[]): ShellCommand["assigns"] {
  return prefix.flatMap((item) =>
    item.type === "Assignment"
      ? [{ name: item.name, text: item.text, literal: item.value.type === "Word" && valueIsLiteral(item.value) && item.index === undefined }]
      : [],
  );
}

function commandFrom(redirects: readonly Redirection[], words: string[], literalName: boolean, text: string, assigns: ShellCommand["assigns"] = []): ShellCommand {
  const writes: string[] = [];
  const redirectTargets: string[] = [];
  for (const redirect of redirects) {
    const info = redirectInfo(redirect);
    if (!info) continue;
    redirectTargets.push(info.target);
    if (info.writes && !HARMLESS_TARGETS.has(info.target)) writes.push(info.target);
  }
  return { words, literalName, writes, redirectTargets, text, assigns };
}

/** Parses a command line into its simple commands. Never throws. */
export function parseShell(source: string): ParsedShell {
  const commands: ShellCommand[] = [];
  const errors: string[] = [];
  let definesFunctions = false;
  let transforms = false;

  const visit = (node: SyntaxNode, text: string): void => {
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
      case "Command": {
        // `export PATH=…` keeps its assignments as words, so a rule sees what it sets.
        const words = node.name ? [node.name.value, ...node.args.map((arg) => (arg.type === "Word" ? arg.value : arg.text))] : [];
        const literalName = node.name ? wordIsLiteral(node.name) : true;
        commands.push(commandFrom(node.redirects, words, literalName, own.slice(node.pos, node.end), assignmentsOf(node.prefix)));
        break;
      }
      case "ParameterExpansion":
        if (node.operation?.type === "Transform" || node.operation?.type === "Unknown") transforms = true;
        break;
      case "Redirected":
        // `{ a; b; } > file`: the group's redirections, as a command of their own.
        commands.push(commandFrom(node.redirects, [], true, own.slice(node.pos, node.end)));
        break;
    }
    forEachChild(node, (child) => visit(child, own));
  };

  try {
    visit(parse(source), source);
  } catch (error) {
    errors.push(error instanceof Error ? error.message : String(error));
  }
  const result: ParsedShell = { ok: errors.length === 0, commands, definesFunctions, transforms };
  if (errors.length > 0) result.error = errors[0];
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
