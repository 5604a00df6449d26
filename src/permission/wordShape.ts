// What is known about a word before the shell runs it: whether its value is fixed, whether it
// stays one word, its last path segment, why not (for messages). Read from unbash's word parts,
// never from the text. Also the one-word reading of `$HOME…`, which holds only where the line
// does not set HOME itself.
import type { CommandArgument, Word, WordPart } from "unbash";

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

/** A word whose value is known before the shell runs it. */
export function wordIsLiteral(word: Word): boolean {
  return word.parts === undefined || word.parts.every((part) => partWhy(part) === undefined);
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
const SPLIT_FREE: ReadonlySet<string> = new Set([
  "Literal",
  "SingleQuoted",
  "AnsiCQuoted",
  "DoubleQuoted",
  "LocaleString",
  "ProcessSubstitution",
]);

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
  if (
    part.type === "ParameterExpansion" &&
    part.operation === undefined &&
    part.prefix === undefined &&
    part.index === undefined
  ) {
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
  const given = parts.flatMap((part) =>
    !SPLIT_FREE.has(part.type) && givenName(part) !== undefined ? [givenName(part) as string] : [],
  );
  const single = parts.every((part) => SPLIT_FREE.has(part.type) || givenName(part) !== undefined);
  const shape: WordShape = {
    known: false,
    single,
    head: knownHead(parts),
    ...(why !== undefined && { why }),
    ...(given.length > 0 && { given }),
  };
  // `"$DIR/tool"`: whatever DIR holds, the program's own name is `tool`.
  const tail = knownTail(parts);
  const slash = tail.lastIndexOf("/");
  if (single && slash >= 0 && slash < tail.length - 1) shape.base = tail.slice(slash + 1);
  return shape;
}

/** An argument of a declaration builtin (`export A=$x`) stays one word; its value is known when literal. */
export function argumentShape(arg: CommandArgument): WordShape {
  if (arg.type === "Word") return wordShape(arg);
  const known = arg.value.type === "Word" && valueIsLiteral(arg.value) && arg.index === undefined;
  return known
    ? { known, single: true, head: arg.text }
    : { known, single: true, head: `${arg.name}=`, why: "is computed when it runs" };
}

/** An assigned value the shell does not expand further: quotes and literal text; a glob stays text there. */
export function valueIsLiteral(word: Word): boolean {
  return word.parts === undefined || word.parts.every((part) => part.type === "Glob" || partWhy(part) === undefined);
}

/** What setsGiven and settleGiven read of a parsed command (shellParse.ts's ShellCommand has it). */
export interface ShapedCommand {
  words: readonly string[];
  shapes: WordShape[];
  assigns: ReadonlyArray<{ name: string }>;
  declared: ReadonlyArray<{ name: string }>;
}

/** Names a line may set: assignments, loop variables, and any word spelling the name (`read HOME`, `unset PWD`). */
export function setsGiven(commands: readonly ShapedCommand[], loopNames: ReadonlySet<string>): Set<string> {
  const names = new Set<string>(loopNames);
  for (const command of commands) {
    for (const assign of [...command.assigns, ...command.declared]) names.add(assign.name);
    for (const word of command.words)
      if (GIVEN_VARIABLES.has(word) || /^[A-Z]+=/.test(word)) names.add(word.split("=")[0] as string);
  }
  return names;
}

/** Takes back the one-word reading of `$HOME…` where the line sets HOME (or everywhere, for an inner script). */
export function settleGiven(commands: readonly ShapedCommand[], rebound: ReadonlySet<string> | "all"): void {
  for (const command of commands) {
    command.shapes.forEach((shape, i) => {
      if (!shape.given || !(rebound === "all" || shape.given.some((name) => rebound.has(name)))) return;
      const { base: _base, given: _given, ...rest } = shape;
      command.shapes[i] = { ...rest, single: false };
    });
  }
}
