// Command patterns in `bash(…)` rules and the policy's disallowedCommands, matched per simple
// command (words joined by one space):
//   npm test       the command or a longer one: `npm test`, `npm test --watch`, not `npm testing`
//   npm test *     the same (a trailing ` *` also matches the bare command)
//   npm run test:* Claude Code's prefix form, the same as `npm run test *`
//   git * --force  `*` anywhere else matches any text; the pattern must then cover the whole command
//   *              every command
//   rm \*.log      `\*` is a literal star
// An allow must match every part of the line as written; a denial or an ask matches when one
// part does, after wrappers are stripped (commandNormalize.ts), or when it matches the whole line.
import { normalizeForDeny } from "./commandNormalize.ts";
import { rereadCommands, resolve, type RunPart } from "./commandResolve.ts";
import { parseShell, roughParts, type ParsedShell, type ShellCommand } from "./shellParse.ts";
import { hasHidden } from "../text/visible.ts";

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Regex source for a pattern: `*` is any text, `\*` a literal star; the flag says whether any `*` was seen. */
function wildcard(text: string): { source: string; hasStar: boolean } {
  let source = "";
  let hasStar = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] ?? "";
    if (char === "\\" && text[i + 1] === "*") {
      source += "\\*";
      i += 1;
    } else if (char === "*") {
      source += ".*";
      hasStar = true;
    } else source += escapeRegex(char);
  }
  return { source, hasStar };
}

/** Escapes `*` so a command matches only itself as a pattern. */
export function escapeCommandPattern(text: string): string {
  return text.replace(/\*/g, "\\*");
}

const endsWithWildcard = (p: string, suffix: string) => p.endsWith(suffix) && !p.endsWith(`\\${suffix.slice(-1)}`);

/** The regular expression a command pattern stands for. */
function commandPatternRegex(pattern: string): RegExp {
  let p = pattern.trim().replace(/\s+/g, " ");
  if (endsWithWildcard(p, ":*")) p = `${p.slice(0, -2)} *`;
  if (p === "*") return /^.*$/s;
  if (endsWithWildcard(p, " *")) return new RegExp(`^${wildcard(p.slice(0, -2)).source}(?: .*)?$`, "s");
  const { source, hasStar } = wildcard(p);
  return new RegExp(hasStar ? `^${source}$` : `^${source}(?: .*)?$`, "s");
}

/** Whether a command pattern covers one simple command given as words. */
export function matchCommandPattern(pattern: string, words: readonly string[]): boolean {
  if (words.length === 0) return false;
  return commandPatternRegex(pattern).test(words.join(" "));
}

export interface CommandAnalysis {
  command: string;
  parsed: ParsedShell;
  /** The parts an allow must all match, as written (with the commands inside sh -c, eval, find -exec, xargs). */
  allowParts: string[][];
  /** Why no allow rule can match this line; undefined when one may. */
  notAllowable: string | undefined;
  /** Why Garuda cannot tell from the words which programs the line runs; undefined when it can. */
  unknownProgram: string | undefined;
  /** The line holds hidden characters (they never match an allow, and the sandbox does not pass them unasked). */
  hidden: boolean;
  /** The parts a denial or an ask matches, one is enough: wrappers stripped, program by base name. */
  denyParts: RunPart[];
  /** The whole line with blanks collapsed: a denial may also match it whole. */
  whole: string;
  /** Every word and redirection target, for the sensitive-file check. */
  mentioned: string[];
}

/**
 * Variables a command may be given (`NODE_ENV=test npm test`) and still match an allow rule: they
 * change output, not which program runs or what it loads. PATH, LD_PRELOAD, BASH_ENV, IFS,
 * NODE_OPTIONS, PYTHONPATH, GIT_* … can turn an allowed command into another program.
 */
const HARMLESS_VARIABLES: ReadonlySet<string> = new Set([
  "CGO_ENABLED",
  "CI",
  "COLUMNS",
  "DEBUG",
  "FORCE_COLOR",
  "GOARCH",
  "GOOS",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LINES",
  "NO_COLOR",
  "NODE_ENV",
  "PORT",
  "PYTHONDONTWRITEBYTECODE",
  "PYTHONUNBUFFERED",
  "RUST_BACKTRACE",
  "RUST_LOG",
  "TERM",
  "TZ",
]);

/**
 * The words an allow rule must match for one command: a variable set before it (other than the
 * harmless ones with a literal value) stays in front, so `bash(make *)` does not allow
 * `PATH=./bin make`, while `bash(PATH=./bin make *)` or `bash(*)` can; a line that only sets
 * variables (`IFS=/`) is a part of its own.
 */
function allowWords(part: ShellCommand): string[] {
  const risky = part.assigns
    .filter((assign) => !HARMLESS_VARIABLES.has(assign.name) || !assign.literal)
    .map((assign) => assign.text);
  if (part.words.length === 0) return part.assigns.map((assign) => assign.text);
  return [...risky, ...part.words];
}

/** Why the programs a line runs cannot be known from its words, or undefined. */
function unknownProgramReason(parsed: ParsedShell, resolved: string | undefined): string | undefined {
  if (!parsed.ok) return `it cannot be parsed (${parsed.error ?? "syntax error"})`;
  if (parsed.definesFunctions) return "it defines a shell function, so a name may not be the program it looks like";
  if (parsed.transforms) return "it uses a ${…@…} expansion, which can run code";
  return resolved;
}

function notAllowableReason(
  command: string,
  parsed: ParsedShell,
  unknownProgram: string | undefined,
  parts: string[][],
): string | undefined {
  if (hasHidden(command)) return "it contains hidden characters";
  if (unknownProgram !== undefined) return unknownProgram;
  const writer = parsed.commands.find((part) => part.writes.length > 0);
  if (writer) return `it writes to ${writer.writes[0]} by redirection`;
  if (parts.length === 0) return "it runs no command";
  return undefined;
}

/** Everything the rules need to know about a command line, computed once per check. */
export function analyzeCommand(command: string): CommandAnalysis {
  const parsed = parseShell(command, { topLevel: true });
  const allowParts: string[][] = [];
  const denyParts: RunPart[] = [];
  let resolvedUnknown: string | undefined;
  for (const part of parsed.commands) {
    const resolution = resolve(part);
    resolvedUnknown ??= resolution.unknown;
    denyParts.push(...resolution.runs);
    const words = allowWords(part);
    if (words.length === 0) continue;
    allowParts.push(words, ...resolution.inner);
  }
  denyParts.push(...rereadCommands(parsed));
  const unknownProgram = unknownProgramReason(parsed, resolvedUnknown);
  const conservative = unknownProgram !== undefined;
  if (conservative) {
    for (const words of roughParts(command)) {
      // A computed name may hide any program: try the match from every word on.
      for (let i = 0; i < words.length; i += 1) {
        const normal = normalizeForDeny(words.slice(i));
        denyParts.push({ words: normal, open: normal.map(() => false) });
      }
    }
  }
  const mentioned = [
    ...allowParts.flat(),
    ...parsed.commands.flatMap((part) => part.redirectTargets),
    ...(conservative ? roughParts(command).flat() : []),
  ];
  return {
    command,
    parsed,
    allowParts,
    notAllowable: notAllowableReason(command, parsed, unknownProgram, allowParts),
    unknownProgram,
    hidden: hasHidden(command),
    denyParts: denyParts.filter((part) => part.words.length > 0),
    whole: command.trim().replace(/\s+/g, " "),
    mentioned,
  };
}
/** An allow pattern covers the line: it is allowable and every part matches. */
export function allowMatches(pattern: string, analysis: CommandAnalysis): boolean {
  if (analysis.notAllowable !== undefined) return false;
  return analysis.allowParts.every((words) => matchCommandPattern(pattern, words));
}

/** A glob as a list of literal characters and stars (STAR). */
const STAR = Symbol("star");
type Glob = Array<string | typeof STAR>;

function globOf(text: string): Glob {
  const glob: Glob = [];
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] as string;
    if (char === "\\" && text[i + 1] === "*") {
      glob.push("*");
      i += 1;
    } else glob.push(char === "*" ? STAR : char);
  }
  return glob;
}

/** The globs a command pattern stands for (commandPatternRegex as globs: `npm test` is `npm test` or `npm test *`). */
function patternGlobs(pattern: string): Glob[] {
  let p = pattern.trim().replace(/\s+/g, " ");
  if (endsWithWildcard(p, ":*")) p = `${p.slice(0, -2)} *`;
  if (p === "*") return [[STAR]];
  if (endsWithWildcard(p, " *")) p = p.slice(0, -2);
  else if (globOf(p).includes(STAR)) return [globOf(p)];
  return [globOf(p), [...globOf(p), " ", STAR]];
}

/** Whether some text matches both globs. */
function globsMeet(a: Glob, b: Glob): boolean {
  const memo = new Map<number, boolean>();
  const meet = (i: number, j: number): boolean => {
    const key = i * (b.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (i === a.length && j === b.length) result = true;
    else if (a[i] === STAR) result = meet(i + 1, j) || (j < b.length && meet(i, j + 1));
    else if (b[j] === STAR) result = meet(i, j + 1) || (i < a.length && meet(i + 1, j));
    else result = i < a.length && j < b.length && a[i] === b[j] && meet(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return meet(0, 0);
}

/** A part with computed words: the pattern matches when some values of them would make it match. */
function mayMatch(pattern: string, part: RunPart): boolean {
  const glob: Glob = [];
  part.words.forEach((word, i) => {
    if (i > 0) glob.push(" ");
    if (part.open[i]) glob.push(STAR);
    else glob.push(...word);
  });
  return patternGlobs(pattern).some((candidate) => globsMeet(candidate, glob));
}

/** The program's name in lower case (a case-insensitive file system runs /BIN/RM as rm). */
function lowerProgram(words: readonly string[]): string[] {
  return words.map((word, i) => (i === 0 ? word.toLowerCase() : word));
}

export interface DenyMatchOptions {
  /** Program names compare without case (a case-insensitive file system). */
  caseInsensitive?: boolean;
  /** Also a part whose computed words could make it match (`git push "$flag"` for `git push --force`). Default true. */
  computed?: boolean;
}

/** A deny or ask pattern covers the line: one part matches (or may, see the options), or the whole line does. */
export function denyMatches(pattern: string, analysis: CommandAnalysis, options: DenyMatchOptions = {}): boolean {
  const caseInsensitive = options.caseInsensitive === true;
  const wanted = caseInsensitive ? lowerProgram(pattern.trim().split(/\s+/)).join(" ") : pattern;
  for (const part of analysis.denyParts) {
    const words = caseInsensitive ? lowerProgram(part.words) : part.words;
    if (matchCommandPattern(wanted, words)) return true;
    if (options.computed !== false && part.open.some(Boolean) && mayMatch(wanted, { words, open: part.open }))
      return true;
  }
  return commandPatternRegex(pattern).test(analysis.whole);
}
