// An MCP server's tools as Garuda tools. The model sees `mcp__<server>__<tool>` (the API allows
// only [a-zA-Z0-9_-], at most 64), the user sees `server/tool`. Every call asks unless a rule
// allows that name (`mcp__github__*`): a server's own readOnlyHint is shown in the question,
// never trusted. Descriptions and results are the server's words, marked and cleaned as such.
import type { ToolKeys } from "../../config/approvedTools.ts";
import { createHash } from "node:crypto";
import { z } from "zod";
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { messageOf } from "../../errors/caught.ts";
import type { Tool, ToolResult } from "../../tools/types.ts";
import { cleanText, previewLine, shortLine } from "../clean.ts";
import { groupedCount } from "../../text/count.ts";

const MAX_DESCRIPTION = 2_000;
const MAX_SCHEMA_CHARS = 20_000;
const MAX_RESULT_CHARS = 30_000;
const MAX_NAME = 64;

/** Calls a tool of a running server; rejects with a clear message when the server is gone. */
export type CallMcpTool = (tool: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<CallToolResult>;

/** The model-facing name of a server's tool, unique among `taken`. */
export function modelToolName(server: string, tool: string, taken: ReadonlySet<string>): string {
  const safe = tool.replace(/[^a-zA-Z0-9_-]/g, "_");
  let name = `mcp__${server}__${safe}`;
  if (name.length > MAX_NAME || taken.has(name)) {
    const suffix = createHash("sha256").update(`${server}/${tool}`).digest("hex").slice(0, 8);
    name = `${name.slice(0, MAX_NAME - 9)}_${suffix}`;
  }
  return name;
}

/** The server's JSON Schema as the tool's input: sent to the model as written, validated as an object. */
function inputOf(schema: McpTool["inputSchema"]): z.ZodType<Record<string, unknown>> {
  const { $schema: _s, $id: _i, id: _id, ...rest } = schema as Record<string, unknown>;
  // The meta keys replace zod's own; an absent key is set to undefined so zod's default drops out of the JSON.
  const meta = { properties: undefined, additionalProperties: undefined, ...rest, type: "object" };
  return z.looseObject({}).meta(meta) as unknown as z.ZodType<Record<string, unknown>>;
}

function contentText(result: CallToolResult): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "image":
      case "audio":
        parts.push(
          `[${block.type} (${block.mimeType}, ` +
            `${groupedCount(Math.round((block.data.length * 3) / 4))} bytes): not shown]`,
        );
        break;
      case "resource":
        parts.push(
          "text" in block.resource && typeof block.resource.text === "string"
            ? block.resource.text
            : `[resource ${block.resource.uri}: binary, not shown]`,
        );
        break;
      case "resource_link":
        parts.push(`[resource ${block.uri}${block.name ? ` (${block.name})` : ""}]`);
        break;
      default:
        parts.push("[content of an unknown kind: not shown]");
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  return parts.join("\n");
}

/** The result for the model: the server's content, cleaned and capped, in an <mcp_result> block. */
export function formatResult(server: string, tool: string, result: CallToolResult): ToolResult {
  const text = cleanText(contentText(result), MAX_RESULT_CHARS);
  const output = `<mcp_result server="${server}" tool="${shortLine(tool, 100)}">\n${text}\n</mcp_result>`;
  return result.isError
    ? { output: `Error: the tool reported a failure.\n${output}`, isError: true, summary: "failed" }
    : { output, summary: `${groupedCount(text.length)} characters` };
}

export interface AdaptedTools {
  tools: Tool[];
  /** Tools left out (too large a schema), for a notice. */
  skipped: string[];
}

/** Garuda tools for one server's list. `taken` holds the names already used (changed in place). */
export function adaptTools(
  server: string,
  listed: readonly McpTool[],
  call: CallMcpTool,
  taken: Set<string>,
): AdaptedTools {
  const tools: Tool[] = [];
  const skipped: string[] = [];
  for (const mcp of listed) {
    if (JSON.stringify(mcp.inputSchema).length > MAX_SCHEMA_CHARS) {
      skipped.push(mcp.name);
      continue;
    }
    const name = modelToolName(server, mcp.name, taken);
    taken.add(name);
    const title = `${server}/${previewLine(mcp.name, 100)}`;
    const readOnlyHint = mcp.annotations?.readOnlyHint === true;
    const said = shortLine(mcp.description ?? mcp.annotations?.title ?? mcp.title ?? "", MAX_DESCRIPTION);
    const description =
      `A tool of the MCP server "${server}" (its description below is the server's, ` +
      `not Garuda's; every call asks the user unless a rule allows ` +
      `it).\n${said || "(no description)"}`;
    const tool: Tool<Record<string, unknown>> = {
      name,
      description,
      input: inputOf(mcp.inputSchema),
      readOnly: false,
      plan(args) {
        const hint = readOnlyHint ? "\nThe server says this tool only reads (Garuda cannot check that)." : "";
        const json = JSON.stringify(args, null, 2) ?? "{}";
        return {
          input: args,
          info: { title, kind: "other", locations: [] },
          permission: {
            tool: name,
            readOnly: false,
            target: { kind: "input" },
            title,
            preview:
              `MCP server "${server}", tool ` +
              `"${previewLine(mcp.name, 100)}"${hint}\n\n${json.length > 4_000 ? `${json.slice(0, 4_000)}…` : json}`,
          },
        };
      },
      async run({ input: args }, ctx) {
        try {
          return formatResult(server, mcp.name, await call(mcp.name, args, ctx.signal));
        } catch (error) {
          if (ctx.signal.aborted) throw error;
          return { output: `Error: ${messageOf(error)}`, isError: true, summary: "failed" };
        }
      },
    };
    tools.push(tool as Tool);
  }
  return { tools, skipped };
}

/** SHA-256 of a tool list (names, descriptions, schemas, in name order): what a project consent pins. */
export function toolsHash(listed: readonly McpTool[]): string {
  const canonical = [...listed]
    .map((tool) => ({ name: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex");
}

/** Each tool's name with a short hash of its description and schema: what the approved list keeps. */
export function toolKeys(listed: readonly McpTool[]): ToolKeys {
  return Object.fromEntries(
    listed.map((tool) => [
      tool.name,
      createHash("sha256")
        .update(JSON.stringify({ d: tool.description ?? "", s: tool.inputSchema }))
        .digest("hex")
        .slice(0, 16),
    ]),
  );
}
