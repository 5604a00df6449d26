// How a tool call looks in the editor: its title (one visible line), its ACP kind, and the
// absolute locations the editor can follow. The tools describe themselves (CallInfo); this file
// only enforces the display rules every title and location must keep over ACP.
import { isAbsolute, resolve } from "node:path";
import type { ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import { webSearchCallInfo, webSearchSummary } from "../tools/webSearch.ts";
import type { CallInfo } from "../tools/types.ts";
import { oneLine } from "../text/visible.ts";

/** The kind of Garuda's own tools, whatever a tool's describe() said. */
const KINDS: Readonly<Record<string, ToolKind>> = {
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

export interface ToolCallView {
  title: string;
  kind: ToolKind;
  locations: ToolCallLocation[];
}

/** Absolute paths only (a relative one is taken against the root), lines only when positive. */
export function callLocations(locations: CallInfo["locations"], root: string): ToolCallLocation[] {
  return locations.map((location) => {
    const path = isAbsolute(location.path) ? location.path : resolve(root, location.path);
    return location.line !== undefined && Number.isInteger(location.line) && location.line > 0 ? { path, line: location.line } : { path };
  });
}

/** Title, kind and locations of a call, from the tool's own CallInfo. */
export function toolCallView(tool: string, info: CallInfo, root: string): ToolCallView {
  const mcp = mcpName(tool);
  const kind: ToolKind = KINDS[tool] ?? (mcp ? "other" : info.kind);
  let title = info.title;
  if (mcp && (title === "" || title === tool)) title = `${mcp.server}/${mcp.tool}`;
  if (kind === "think" && tool !== "todo" && !title.startsWith("Subagent:")) title = `Subagent: ${title || tool}`;
  return { title: oneLine(title || tool), kind, locations: callLocations(info.locations, root) };
}

/** A tool the provider runs itself (Claude's web search). */
export function serverToolView(name: string, input: unknown): ToolCallView {
  if (name === "web_search") {
    const info = webSearchCallInfo(input);
    return { title: oneLine(info.title), kind: "fetch", locations: [] };
  }
  return { title: oneLine(name), kind: "fetch", locations: [] };
}

/** The text of a finished server tool: the results found (title and address) or why it failed. */
export function serverToolResult(name: string, result: unknown): string {
  const summary = name === "web_search" ? webSearchSummary(result) : "Done";
  if (!Array.isArray(result)) return summary;
  const lines = result.flatMap((item) => {
    if (typeof item !== "object" || item === null) return [];
    const { title, url } = item as { title?: unknown; url?: unknown };
    if (typeof url !== "string") return [];
    return [`- ${oneLine(typeof title === "string" && title !== "" ? title : url)} (${oneLine(url, 500)})`];
  });
  return lines.length > 0 ? `${summary}\n${lines.join("\n")}` : summary;
}
