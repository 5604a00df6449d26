// "Allow for this session": the rules such an answer adds, in the narrowest shape that still
// saves the user from the same question:
//   command      one `tool(prefix *)` rule per part not yet allowed (commandPrefix.ts); none when a
//                part is risky, unparsable or holds hidden characters
//   path write   that file, for that tool: `edit_file(./src/a.ts)`
//   path read    (only asked outside the root) that file's folder: `read_file(/abs/dir/**)`
//   URL          that host, for that tool: `web_fetch(docs.rs)`
//   network      that host: `network(registry.npmjs.org)`
//   other        the tool itself (an MCP tool, a consent): `mcp__github__create_issue`
// Session rules live in the engine object, for the life of the session, and are never written.
import { dirname } from "node:path";
import { sessionPrefix } from "./commandPrefix.ts";
import { allowMatches } from "./commandMatch.ts";
import { escapeGlob, insideRoot } from "./pathMatch.ts";
import type { RequestFacts } from "./ruleMatch.ts";
import { formatRule } from "./ruleSyntax.ts";
import type { Rule } from "./types.ts";

/**
 * The patterns "session" would add for this request; undefined when no narrow rule fits (the
 * question then offers no "Allow for this session"). `allowed` lists command patterns already
 * in force, so a line `npm test && git status` adds only what is missing.
 */
export function proposeSessionRules(facts: RequestFacts, root: string, allowed: readonly string[]): string[] | undefined {
  const { request } = facts;
  const target = request.target;
  switch (target.kind) {
    case "command": {
      const analysis = facts.command;
      if (!analysis || analysis.notAllowable !== undefined) return undefined;
      const patterns: string[] = [];
      for (const words of analysis.allowParts) {
        const covered = [...allowed, ...patterns].some((pattern) => allowMatches(pattern, { ...analysis, allowParts: [words] }));
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
