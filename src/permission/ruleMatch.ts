// Does a rule cover a request? The tool part by name or category (ruleSyntax.ts), the pattern by
// the request's target: paths by glob, commands per parsed part, URLs and network targets by host.
import { analyzeCommand, allowMatches, denyMatches, type CommandAnalysis } from "./commandMatch.ts";
import { hostOfUrl, matchHost } from "./hostMatch.ts";
import { absolutePath, matchPathPattern, type PathContext } from "./pathMatch.ts";
import { parseRule, toolMatches, type ParsedRule } from "./ruleSyntax.ts";
import type { PermissionRequest, Rule } from "./types.ts";

/** What the engine knows about a request, worked out once per check. */
export interface RequestFacts {
  request: PermissionRequest;
  /** Path targets: the absolute path, and the resolved one when it differs. */
  paths: string[];
  /** URL and network targets; undefined for a URL that cannot be parsed. */
  host: string | undefined;
  command: CommandAnalysis | undefined;
  /** Command targets: the absolute paths its words and redirections name (`cat ~/x` → /home/u/x). */
  mentionedPaths: string[];
}

/** The paths a command's words may name: each word, the value after `=`, `~` and `$HOME` expanded. */
function pathsNamed(analysis: CommandAnalysis, ctx: PathContext): string[] {
  const out = new Set<string>();
  for (const raw of analysis.mentioned) {
    for (const candidate of [raw, raw.slice(raw.indexOf("=") + 1), raw.replace(/\*+$/, "")]) {
      if (candidate.length === 0) continue;
      const expanded = ctx.home ? candidate.replace(/^(~|\$HOME|\$\{HOME\})(?=\/|$)/, ctx.home) : candidate;
      out.add(absolutePath(expanded, ctx.root));
    }
  }
  return [...out];
}

/**
 * Works out the facts once per check. Pass the full PathContext; a bare root is still accepted
 * (then `~` in command words is not expanded).
 */
export function requestFacts(request: PermissionRequest, context: PathContext | string): RequestFacts {
  const ctx: PathContext = typeof context === "string" ? { root: context, home: "", caseInsensitive: false } : context;
  const { root } = ctx;
  const target = request.target;
  const facts: RequestFacts = { request, paths: [], host: undefined, command: undefined, mentionedPaths: [] };
  switch (target.kind) {
    case "path": {
      const main = absolutePath(target.path, root);
      const real = target.realPath ? absolutePath(target.realPath, root) : main;
      facts.paths = real === main ? [main] : [main, real];
      break;
    }
    case "command":
      facts.command = analyzeCommand(target.command);
      facts.mentionedPaths = pathsNamed(facts.command, ctx);
      break;
    case "url":
      facts.host = hostOfUrl(target.url);
      break;
    case "network":
      facts.host = target.host.toLowerCase();
      break;
  }
  return facts;
}

/** A rule with its text parsed once. */
export interface CompiledRule {
  rule: Rule;
  parsed: ParsedRule;
}

/** Parses rules; a rule that does not parse is returned in `invalid` (the caller reports it). */
export function compileRules(rules: readonly Rule[]): { compiled: CompiledRule[]; invalid: Rule[] } {
  const compiled: CompiledRule[] = [];
  const invalid: Rule[] = [];
  for (const rule of rules) {
    const parsed = parseRule(rule.pattern);
    if (parsed) compiled.push({ rule, parsed });
    else invalid.push(rule);
  }
  return { compiled, invalid };
}

/**
 * How a rule is read: "allow" strictly (every command part, every path form); "restrict" for deny
 * and ask rules (one command part, either path form, or a part whose computed words could make it
 * match); "definite" as restrict, but only parts that match as written.
 */
export type Reading = "allow" | "restrict" | "definite";

/** Whether a rule covers a request, read as `reading` says. */
export function ruleCovers(rule: CompiledRule, facts: RequestFacts, ctx: PathContext, reading: Reading): boolean {
  const { tool, specifier } = rule.parsed;
  if (reading !== "allow" && specifier !== undefined && facts.command && namesReadDenied(rule.parsed, facts, ctx))
    return true;
  if (!toolMatches(tool, facts.request)) return false;
  const target = facts.request.target;
  if (target.kind === "command" && facts.command) {
    const pattern = specifier ?? "*";
    if (reading === "allow") return allowMatches(pattern, facts.command);
    return denyMatches(pattern, facts.command, {
      caseInsensitive: ctx.caseInsensitive,
      computed: reading === "restrict",
    });
  }
  if (specifier === undefined) return true;
  switch (target.kind) {
    case "path": {
      const hits = facts.paths.map((path) => matchPathPattern(specifier, path, ctx));
      return reading === "allow" ? hits.every(Boolean) : hits.some(Boolean);
    }
    case "url":
    case "network":
      return facts.host !== undefined && matchHost(specifier, facts.host);
    default:
      return false;
  }
}

/** A stand-in read request, to ask whether `read(…)` rules cover a path a command names. */
export function readRequestFor(request: PermissionRequest, path: string): PermissionRequest {
  return { ...request, tool: "read", readOnly: true, target: { kind: "path", path, access: "read" } };
}

/**
 * A `read(…)` (or `*(…)`) restriction covers a command that names a path it protects: a deny
 * on reading secrets/** also stops `cat secrets/a` through bash. Only read rules count; any
 * mention of a path may read it, while a write cannot be told from the words.
 */
function namesReadDenied(parsed: ParsedRule, facts: RequestFacts, ctx: PathContext): boolean {
  const specifier = parsed.specifier;
  if (specifier === undefined || facts.mentionedPaths.length === 0) return false;
  const probe = readRequestFor(facts.request, facts.mentionedPaths[0] as string);
  if (!toolMatches(parsed.tool, probe)) return false;
  return facts.mentionedPaths.some((path) => matchPathPattern(specifier, path, ctx));
}

/** Order of strength: managed policy first, session last. */
const SOURCE_STRENGTH: readonly Rule["source"][] = ["managed-policy", "user-policy", "project", "session", "builtin"];

export function bySourceStrength(a: CompiledRule, b: CompiledRule): number {
  return SOURCE_STRENGTH.indexOf(a.rule.source) - SOURCE_STRENGTH.indexOf(b.rule.source);
}
