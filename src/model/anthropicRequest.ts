// Maps a ModelRequest onto the JSON body of POST /v1/messages, prompt-cache breakpoints
// included. Pure: the same request always gives the same body, so cached prefixes stay
// byte-identical from one step to the next.
import { anthropicImage } from "./images.ts";
import {
  type AssistantBlock,
  INVALID_TOOL_CALL,
  type Message,
  meantToolName,
  type ModelRequest,
  type UserBlock,
} from "./types.ts";

/** The newest server-side web search tool the SDK knows. */
const WEB_SEARCH_TOOL_TYPE = "web_search_20260318";

interface CacheControl {
  type: "ephemeral";
}

type Cacheable = { cache_control?: CacheControl };

export type WireBlock = Cacheable &
  (
    | { type: "text"; text: string }
    | { type: "thinking"; thinking: string; signature: string }
    | { type: "redacted_thinking"; data: string }
    | { type: "tool_use" | "server_tool_use"; id: string; name: string; input: unknown }
    | { type: "tool_result"; tool_use_id: string; content: string; is_error?: true }
    | ReturnType<typeof anthropicImage>
    /** A server tool's result (web_search_tool_result, …), sent back as received. */
    | { type: string; tool_use_id: string; content: unknown }
  );

export interface WireMessage {
  role: "user" | "assistant";
  content: WireBlock[];
}

export type WireTool = Cacheable &
  (
    | { name: string; description: string; input_schema: Record<string, unknown> }
    | {
        type: typeof WEB_SEARCH_TOOL_TYPE;
        name: "web_search";
        max_uses?: number;
        allowed_domains?: string[];
        blocked_domains?: string[];
      }
  );

export interface WireRequest {
  model: string;
  max_tokens: number;
  system?: Array<{ type: "text"; text: string } & Cacheable>;
  tools?: WireTool[];
  messages: WireMessage[];
  thinking?: { type: "adaptive" } | { type: "enabled"; budget_tokens: number };
  output_config?: { effort: string };
}

function userBlock(block: UserBlock): WireBlock {
  if (block.type === "text") return { type: "text", text: block.text };
  if (block.type === "image") return anthropicImage(block);
  return block.isError
    ? { type: "tool_result", tool_use_id: block.toolUseId, content: block.content, is_error: true }
    : { type: "tool_result", tool_use_id: block.toolUseId, content: block.content };
}

function assistantBlock(block: AssistantBlock): WireBlock {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "thinking":
      return { type: "thinking", thinking: block.thinking, signature: block.signature };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
    case "tool_use":
      if (block.name === INVALID_TOOL_CALL) {
        // A call Garuda refused (its input out of bounds) goes back under the model's own name,
        // without the input; the tool_result says why it was not run.
        return { type: "tool_use", id: block.id, name: meantToolName(block), input: {} };
      }
      return { type: block.type, id: block.id, name: block.name, input: block.input };
    case "server_tool_use":
      return { type: block.type, id: block.id, name: block.name, input: block.input };
    case "server_tool_result":
      return { type: block.blockType, tool_use_id: block.toolUseId, content: block.content };
  }
}

function wireMessage(message: Message): WireMessage {
  return message.role === "user"
    ? { role: "user", content: message.content.map(userBlock) }
    : { role: "assistant", content: message.content.map(assistantBlock) };
}

function wireTools(request: ModelRequest): WireTool[] {
  const tools: WireTool[] = request.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
  }));
  const search = request.webSearch;
  if (search) {
    tools.push({
      type: WEB_SEARCH_TOOL_TYPE,
      name: "web_search",
      ...(search.maxUses !== undefined && { max_uses: search.maxUses }),
      ...(search.allowedDomains?.length && { allowed_domains: search.allowedDomains }),
      ...(search.blockedDomains?.length && { blocked_domains: search.blockedDomains }),
    });
  }
  return tools;
}

/** Thinking blocks can't carry a breakpoint, nor can empty text. */
function cacheable(block: WireBlock): boolean {
  if (block.type === "thinking" || block.type === "redacted_thinking") return false;
  return !(block.type === "text" && "text" in block && block.text === "");
}

/**
 * Puts the cache breakpoints: on the last tool, on the system prompt and on the last
 * cacheable block of the latest message. Tools, system and history are stable from step to
 * step, so each request reads what the previous one wrote.
 */
function addBreakpoints(body: WireRequest): void {
  const lastTool = body.tools?.at(-1);
  if (lastTool) lastTool.cache_control = { type: "ephemeral" };
  const system = body.system?.at(-1);
  if (system) system.cache_control = { type: "ephemeral" };
  const latest = body.messages.at(-1);
  const target = latest?.content.findLast(cacheable);
  if (target) target.cache_control = { type: "ephemeral" };
}

/** The API's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1_024;

/**
 * A budget must be at least 1,024 tokens and below max_tokens: one that does not fit the request
 * (a low output limit from the team policy) is lowered, and thinking is left out when even the
 * smallest budget does not fit.
 */
function wireThinking(thinking: ModelRequest["thinking"], maxTokens: number): WireRequest["thinking"] {
  if (thinking === undefined) return undefined;
  if (thinking === "adaptive") return { type: "adaptive" };
  const budget = Math.min(thinking.budgetTokens, maxTokens - 1);
  return budget >= MIN_THINKING_BUDGET ? { type: "enabled", budget_tokens: budget } : undefined;
}

export function toWireRequest(request: ModelRequest): WireRequest {
  const tools = wireTools(request);
  const thinking = wireThinking(request.thinking, request.maxTokens);
  const body: WireRequest = {
    model: request.model,
    max_tokens: request.maxTokens,
    ...(request.system !== "" && { system: [{ type: "text" as const, text: request.system }] }),
    ...(tools.length > 0 && { tools }),
    ...(thinking && { thinking }),
    ...(request.effort !== undefined && { output_config: { effort: request.effort } }),
    messages: request.messages.map(wireMessage),
  };
  addBreakpoints(body);
  return body;
}
