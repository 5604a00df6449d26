// Rule text: `tool` or `tool(pattern)`. The tool part is a tool name, a name ending in `*`
// (`mcp__github__*`), `*` (every tool), or a category that stands for every tool touching that
// kind of target:
//   bash       every command, whichever tool runs it (bash, process_manager, hooks …)
//   read       every path read            edit   every path write
//   web_fetch  every URL                  network every host a sandboxed command wants to reach
// How the pattern matches depends on the request's target: pathMatch.ts, commandMatch.ts,
// hostMatch.ts. A request with no target detail ("input") matches bare tool names only.
import type { PermissionRequest } from "./types.ts";

export interface ParsedRule {
  /** The tool part as written: a name, a name ending in `*`, or `*`. */
  tool: string;
  /** The part in parentheses; undefined for a bare tool name. */
  specifier: string | undefined;
}

const RULE = /^(\*|[A-Za-z_][A-Za-z0-9_.-]*\*?)(?:\((.*)\))?$/s;

/** Parses rule text; undefined when it is not a rule. */
export function parseRule(text: string): ParsedRule | undefined {
  const match = RULE.exec(text.trim());
  if (!match) return undefined;
  const tool = match[1] ?? "";
  const specifier = match[2];
  if (specifier !== undefined && specifier.trim().length === 0) return undefined;
  return { tool, specifier: specifier?.trim() };
}

/** Why rule text is not a rule, or undefined when it is one. For config validation messages. */
export function ruleProblem(text: string): string | undefined {
  if (text.trim().length === 0) return "is empty";
  if (parseRule(text) === undefined) {
    return (
      "is not a rule: write `tool` or `tool(pattern)`, e.g. `bash(npm test *)`, " +
      "`edit(src/**)`, `web_fetch(*.github.com)`"
    );
  }
  return undefined;
}

/** The category a request's target belongs to (see the file comment). */
function categoryOf(request: PermissionRequest): string | undefined {
  const target = request.target;
  switch (target.kind) {
    case "command":
      return "bash";
    case "path":
      return target.access === "read" ? "read" : "edit";
    case "url":
      return "web_fetch";
    case "network":
      return "network";
    case "input":
      return undefined;
  }
}

function nameMatches(ruleTool: string, name: string): boolean {
  if (ruleTool === "*") return true;
  if (ruleTool.endsWith("*")) return name.startsWith(ruleTool.slice(0, -1));
  return ruleTool === name;
}

/** Whether the tool part of a rule covers this request: by tool name or by category. */
export function toolMatches(ruleTool: string, request: PermissionRequest): boolean {
  if (nameMatches(ruleTool, request.tool)) return true;
  const category = categoryOf(request);
  return category !== undefined && nameMatches(ruleTool, category);
}

/** Rule text from its parts. */
export function formatRule(tool: string, specifier?: string): string {
  return specifier === undefined ? tool : `${tool}(${specifier})`;
}
