// How a tool call reads in every front end: the same title and kind in the terminal, in
// `garuda run --format json` and over ACP (src/acp/toolCalls.ts adds the editor's locations).
// The tool's plan() gives its CallInfo (the event carries it); this keeps the display rules:
// Garuda's own tools have a fixed kind, MCP tools show as server/tool, subagents as
// "Subagent: …", one visible line.
import type { CallInfo, ToolKind } from "../core-types/callInfo.ts";
import { hasHidden, oneLine } from "../text/visible.ts";

/**
 * The kind of Garuda's own tools. Each tool's plan() gives the same kind; this table is for the
 * calls that never reached plan() (an input that failed validation gets the registry's "other")
 * and for session files written before the kinds settled.
 */
const FIXED_KINDS: Readonly<Record<string, ToolKind>> = {
  read_file: "read",
  glob: "search",
  grep: "search",
  symbols: "search",
  find_definition: "search",
  write_file: "edit",
  edit_file: "edit",
  bash: "execute",
  process_manager: "execute",
  web_fetch: "fetch",
  web_search: "fetch",
  todo: "think",
  explore: "think",
};

/** An MCP tool as the model sees it (`mcp__server__tool`), else undefined. */
function mcpName(tool: string): { server: string; tool: string } | undefined {
  const match = /^mcp__(.+?)__(.+)$/.exec(tool);
  return match ? { server: match[1] as string, tool: match[2] as string } : undefined;
}

/** The title (one visible line) and kind of a call, from the tool's own CallInfo. */
export function callDisplay(tool: string, info: CallInfo): { title: string; kind: ToolKind } {
  const mcp = mcpName(tool);
  const kind = FIXED_KINDS[tool] ?? (mcp ? "other" : info.kind);
  let title = info.title;
  if (mcp && (title === "" || title === tool)) title = `${mcp.server}/${mcp.tool}`;
  if (kind === "think" && tool !== "todo" && !title.startsWith("Subagent:")) title = `Subagent: ${title || tool}`;
  return { title: oneLine(title || tool), kind };
}

/**
 * The locations a front end may hand on as they are (an editor follows them, a script reads
 * them): a path with a control character (a newline or a tab too), a reordering or another
 * hidden character is left out, since no escaping can be trusted at the other end. The title
 * still names it, made visible.
 */
export function shownLocations(locations: CallInfo["locations"]): CallInfo["locations"] {
  return locations.filter((location) => !/[\n\t]/.test(location.path) && !hasHidden(location.path));
}

/** The title of a call, one visible line. */
export function callTitle(tool: string, info: CallInfo): string {
  return callDisplay(tool, info).title;
}

/** A tool the provider runs itself (Claude's web search): the title its server_tool event carries, one visible line. */
export function serverToolTitle(info: CallInfo): string {
  return oneLine(info.title);
}
