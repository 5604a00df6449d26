// "Allow for this session": the rules such an answer adds. A path or an input is the tool's own
// business, so the answer covers the tool (in the project); a command or a host covers the
// narrowest shape that still saves the user from the same question:
//   path write   in the project: every later call of that tool in the project, `edit_file(./**)`,
//                the option named for it ("Allow all edits for this session"); outside the
//                project (asked as such): that file, `edit_file(/abs/file)`
//   path read    (only asked outside the root) that file's folder: `read_file(/abs/dir/**)`
//   input        the tool itself (an MCP tool): `mcp__github__create_issue`
//   command      one `tool(prefix *)` rule per part not yet allowed (commandPrefix.ts); none when a
//                part is risky, unparsable or holds hidden characters
//   URL          that host, for that tool: `web_fetch(docs.rs)`
//   network      that host: `network(registry.npmjs.org)`
// No session rule reaches a sensitive file, .git/ or ~/.garuda (decide.ts refuses those before
// any allow rule), and a symlink out of the project is outside it (both paths must match).
// Session rules live in the engine object, for the life of the session, and are never written.
import { dirname } from "node:path";
import { sessionPrefix } from "./commandPrefix.ts";
import { allowMatches } from "./commandMatch.ts";
import { escapeGlob, insideRoot } from "./pathMatch.ts";
import type { RequestFacts } from "./ruleMatch.ts";
import { formatRule } from "./ruleSyntax.ts";
import type { Rule } from "./types.ts";

/** What a "session" answer to one question allows. */
export interface SessionScope {
  /** The rules the answer adds. */
  rules: string[];
  /** The option's name, when the usual "Allow for this session" would not say what it allows. */
  label?: string;
  /** The narrowest rules that let this one call run (what an unattended run suggests). */
  narrowest: string[];
}

/** The name of an answer that allows every later call of `tool`. */
function wholeToolLabel(tool: string): string {
  if (tool === "edit_file") return "Allow all edits for this session";
  if (tool === "write_file") return "Allow all file writes for this session";
  return `Allow all ${tool} calls for this session`;
}

/**
 * What "session" would allow for this request; undefined when no rule fits (the question then
 * offers no "Allow for this session"). `allowed` lists command patterns already in force.
 */
export function proposeSessionScope(
  facts: RequestFacts,
  root: string,
  allowed: readonly string[],
): SessionScope | undefined {
  const narrowest = proposeSessionRules(facts, root, allowed);
  if (!narrowest) return undefined;
  const { request } = facts;
  const target = request.target;
  if (
    target.kind === "path" &&
    target.access === "write" &&
    facts.paths.every((path) => (insideRoot(path, root) ?? "") !== "")
  ) {
    return { rules: [formatRule(request.tool, "./**")], label: wholeToolLabel(request.tool), narrowest };
  }
  if (target.kind === "input") return { rules: narrowest, label: wholeToolLabel(request.tool), narrowest };
  return { rules: narrowest, narrowest };
}

/**
 * The narrowest patterns that allow this request; undefined when no narrow rule fits. `allowed`
 * lists command patterns already in force, so a line `npm test && git status` adds only what is
 * missing.
 */
function proposeSessionRules(facts: RequestFacts, root: string, allowed: readonly string[]): string[] | undefined {
  const { request } = facts;
  const target = request.target;
  switch (target.kind) {
    case "command": {
      const analysis = facts.command;
      if (!analysis || analysis.notAllowable !== undefined) return undefined;
      const patterns: string[] = [];
      for (const words of analysis.allowParts) {
        const covered = [...allowed, ...patterns].some((pattern) =>
          allowMatches(pattern, { ...analysis, allowParts: [words] }),
        );
        if (covered) continue;
        const prefix = sessionPrefix(words);
        if (prefix === undefined) return undefined;
        patterns.push(prefix);
      }
      return patterns.length > 0 ? patterns.map((pattern) => formatRule(request.tool, pattern)) : undefined;
    }
    case "path": {
      const path = facts.paths[facts.paths.length - 1];
      if (path === undefined) return undefined;
      if (target.access === "read") return [formatRule(request.tool, `${escapeGlob(dirname(path))}/**`)];
      const rel = insideRoot(path, root);
      return [formatRule(request.tool, rel !== undefined && rel !== "" ? `./${escapeGlob(rel)}` : escapeGlob(path))];
    }
    case "url":
      return facts.host ? [formatRule(request.tool, facts.host)] : undefined;
    case "network":
      return facts.host ? [formatRule("network", facts.host)] : undefined;
    case "input":
      return [request.tool];
  }
}

/** The rules added by "session" answers, in the order they were added. */
export class SessionRules {
  readonly #rules: Rule[] = [];

  add(patterns: readonly string[]): Rule[] {
    const added: Rule[] = [];
    for (const pattern of patterns) {
      if (this.#rules.some((rule) => rule.pattern === pattern)) continue;
      const rule: Rule = { effect: "allow", pattern, source: "session" };
      this.#rules.push(rule);
      added.push(rule);
    }
    return added;
  }

  /** Removes a rule by its pattern; false when there was none. */
  revoke(pattern: string): boolean {
    const index = this.#rules.findIndex((rule) => rule.pattern === pattern);
    if (index < 0) return false;
    this.#rules.splice(index, 1);
    return true;
  }

  list(): Rule[] {
    return [...this.#rules];
  }
}
