// A tool call's one-line title in the terminal: the same words an editor shows over ACP
// (src/acp/toolCalls.ts keeps the ACP side; the front ends may not import each other). The tool
// describes itself (CallInfo); MCP tools show as server/tool and subagents as "Subagent: …".
import type { CallInfo } from "../../tools/types.ts";
import { webSearchCallInfo } from "../../tools/webSearch.ts";
import { oneLine } from "../../text/visible.ts";

/** Garuda's own tools whose kind is fixed whatever describe() says (as over ACP); explore runs a subagent. */
const FIXED_KINDS: Readonly<Record<string, CallInfo["kind"]>> = {
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

function mcpName(tool: string): { server: string; tool: string } | undefined {
  const match = /^mcp__(.+?)__(.+)$/.exec(tool);
  return match ? { server: match[1] as string, tool: match[2] as string } : undefined;
}

/** The title of a call, one visible line. */
export function callTitle(tool: string, info: CallInfo): string {
  const mcp = mcpName(tool);
  let title = info.title;
  if (mcp && (title === "" || title === tool)) title = `${mcp.server}/${mcp.tool}`;
  const kind = FIXED_KINDS[tool] ?? (mcp ? "other" : info.kind);
  if (kind === "think" && tool !== "todo" && !title.startsWith("Subagent:")) title = `Subagent: ${title || tool}`;
  return oneLine(title || tool);
}

/** A tool the provider runs itself (Claude's web search). */
export function serverToolTitle(name: string, input: unknown): string {
  return oneLine(name === "web_search" ? webSearchCallInfo(input).title : name);
}
