// What a tool the provider runs itself (Claude's web search) is about, for display: decided here,
// once, so the server_tool event carries it (src/runtime/modelStep.ts live, src/store/
// sessionHistory.ts on a replay) and no front end needs to know the tool. Here, in model/, because
// reading a result means reading the provider's result blocks (web_search_result, error_code).
import type { CallInfo } from "../core-types/callInfo.ts";
import { oneLine } from "../text/visible.ts";

/** The name Anthropic gives its web search tool, in server_tool_use blocks and in requests. */
export const WEB_SEARCH_TOOL = "web_search";

/** What a server tool's call shows: "Search the web: <query>" for web search, else its name. */
export function serverToolInfo(name: string, input: unknown): CallInfo {
  if (name !== WEB_SEARCH_TOOL) return { title: name, kind: "fetch", locations: [] };
  const query =
    typeof input === "object" && input !== null && typeof (input as { query?: unknown }).query === "string"
      ? (input as { query: string }).query
      : "";
  return { title: `Search the web: ${oneLine(query)}`, kind: "fetch", locations: [] };
}

/** One line for a completed server tool: for web search "5 results" or why it failed, else "Done". */
export function serverToolSummary(name: string, content: unknown): string {
  return name === WEB_SEARCH_TOOL ? webSearchSummary(content) : "Done";
}

function webSearchSummary(content: unknown): string {
  if (Array.isArray(content)) {
    const results = content.filter(
      (r) => typeof r === "object" && r !== null && (r as { type?: unknown }).type === "web_search_result",
    ).length;
    return `${results} result${results === 1 ? "" : "s"}`;
  }
  if (typeof content === "object" && content !== null) {
    const code = (content as { error_code?: unknown }).error_code;
    if (typeof code === "string") return `Search failed: ${code}`;
  }
  return "Search done";
}
