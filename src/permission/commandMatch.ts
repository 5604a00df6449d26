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
import { innerCommands, normalizeForDeny } from "./commandNormalize.ts";
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
export function commandPatternRegex(pattern: string): RegExp {
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
  /** The line holds hidden characters (they never match an allow, and the sandbox does not pass them unasked). */
  hidden: boolean;
  /** The parts a denial or an ask matches, one is enough: wrappers stripped, program by base name. */
  denyParts: string[][];
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
  "CGO_ENABLED", "CI", "COLUMNS", "DEBUG", "FORCE_COLOR", "GOARCH", "GOOS", "LANG", "LANGUAGE", "LC_ALL", "LINES", "NO_COLOR",
  "NODE_ENV", "PORT", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "RUST_BACKTRACE", "RUST_LOG", "TERM", "TZ",
]);

/**
 * The words an allow rule must match for one command: a variable set before it (other than the
 * harmless ones with a literal value) stays in front, so `bash(make *)` does not allow
 * `PATH=./bin make`, while `bash(PATH=./bin make *)` or `bash(*)` can; a line that only sets
 * variables (`IFS=/`) is a part of its own.
 */
function allowWords(part: ShellCommand): string[] {
  const risky = part.assigns.filter((assign) => !HARMLESS_VARIABLES.has(assign.name) || !assign.literal).map((assign) => assign.text);
  if (part.words.length === 0) return part.assigns.map((assign) => assign.text);
  return [...risky, ...part.words];
}

function notAllowableReason(command: string, parsed: ParsedShell, innerOk: boolean, parts: string[][]): string | undefined {
  if (hasHidden(command)) return "it contains hidden characters";
  if (!parsed.ok) return `it cannot be parsed (${parsed.error ?? "syntax error"})`;
  if (parsed.definesFunctions) return "it defines shell functions";
  if (parsed.transforms) return "it uses a ${…@…} expansion, which can run code";
  if (parsed.commands.some((part) => !part.literalName)) return "a command name is computed when it runs";
  if (!innerOk) return "it runs a script that cannot be read in advance (eval, sh -c)";
  const writer = parsed.commands.find((part) => part.writes.length > 0);
  if (writer) return `it writes to ${writer.writes[0]} by redirection`;
  if (parts.length === 0) return "it runs no command";
  return undefined;
}

/** Everything the rules need to know about a command line, computed once per check. */
export function analyzeCommand(command: string): CommandAnalysis {
  const parsed = parseShell(command);
  const written = parsed.commands.filter((part) => part.words.length > 0).map((part) => part.words);
  const allowParts: string[][] = [];
  let innerOk = true;
  for (const part of parsed.commands) {
    const words = allowWords(part);
    if (words.length === 0) continue;
    allowParts.push(words);
    const inner = innerCommands(part.words);
    allowParts.push(...inner.commands);
    if (!inner.ok) innerOk = false;
  }
  const denyParts: string[][] = [];
  for (const words of written) {
    const normal = normalizeForDeny(words);
    if (normal.length > 0) denyParts.push(normal);
    for (const inner of innerCommands(normal).commands) denyParts.push(normalizeForDeny(inner));
  }
  const conservative = !parsed.ok || !innerOk || parsed.commands.some((part) => !part.literalName);
  if (conservative) {
    for (const words of roughParts(command)) {
      // A computed name may hide any program: try the match from every word on.
      for (let i = 0; i < words.length; i += 1) denyParts.push(normalizeForDeny(words.slice(i)));
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
    notAllowable: notAllowableReason(command, parsed, innerOk, allowParts),
    hidden: hasHidden(command),
    denyParts: denyParts.filter((words) => words.length > 0),
    whole: command.trim().replace(/\s+/g, " "),
    mentioned,
  };
}

/** An allow pattern covers the line: it is allowable and every part matches. */
export function allowMatches(pattern: string, analysis: CommandAnalysis): boolean {
  if (analysis.notAllowable !== undefined) return false;
  return analysis.allowParts.every((words) => matchCommandPattern(pattern, words));
}

/** A deny or ask pattern covers the line: one part matches, or the whole line does. */
export function denyMatches(pattern: string, analysis: CommandAnalysis): boolean {
  if (analysis.denyParts.some((words) => matchCommandPattern(pattern, words))) return true;
  return commandPatternRegex(pattern).test(analysis.whole);
}
