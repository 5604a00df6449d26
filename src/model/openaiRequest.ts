// Maps a ModelRequest onto the JSON body of POST {baseUrl}/chat/completions (OpenAI's Chat
// Completions API, as Ollama, LM Studio, llama.cpp, vLLM and OpenRouter serve it). Thinking is
// not sent back (these APIs take no signatures), nor are Anthropic's server-tool blocks. With
// text tool calls, the tools go into the system prompt and calls and results into the text.
import { openaiImage } from "./images.ts";
import { renderToolCall, renderToolResult, textToolSection, TOOL_RESULT_TAG } from "./textToolCalls.ts";
import {
  type AssistantBlock,
  INVALID_TOOL_CALL,
  type Message,
  meantToolName,
  type ModelRequest,
  type UserBlock,
} from "./types.ts";

export interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type OpenAIMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | Array<{ type: "text"; text: string } | ReturnType<typeof openaiImage>> }
  | { role: "assistant"; content: string; tool_calls?: OpenAIToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface OpenAITool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface OpenAIRequest {
  model: string;
  messages: OpenAIMessage[];
  max_tokens: number;
  stream: true;
  stream_options?: { include_usage: true };
  tools?: OpenAITool[];
  stop?: string[];
  /** The model's reasoning level, on servers that take it (OpenAI's reasoning models, vLLM, OpenRouter). */
  reasoning_effort?: string;
}

export interface WireOptions {
  /** Tools as ```tool_call blocks in the text instead of the API's tools. */
  textToolCalls: boolean;
  /** Ask for usage in the last chunk (stream_options.include_usage). */
  includeUsage: boolean;
}

function joinText(blocks: readonly { type: string; text?: string }[]): string {
  return blocks.flatMap((block) => (block.type === "text" && block.text ? [block.text] : [])).join("\n\n");
}

/** A native call as sent back. One the client could not read goes back under the name meant, with no arguments. */
function wireToolCall(block: Extract<AssistantBlock, { type: "tool_use" }>): OpenAIToolCall {
  if (block.name === INVALID_TOOL_CALL)
    return { id: block.id, type: "function", function: { name: meantToolName(block), arguments: "{}" } };
  return {
    id: block.id,
    type: "function",
    function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
  };
}

function assistantMessage(content: readonly AssistantBlock[], textToolCalls: boolean): OpenAIMessage {
  if (textToolCalls) {
    const parts = content.flatMap((block) => {
      // The line end before a block belongs to the text; the parts are joined by a blank line.
      if (block.type === "text") return block.text.trim() ? [block.text.trimEnd()] : [];
      if (block.type === "tool_use") return [renderToolCall(block)];
      return [];
    });
    return { role: "assistant", content: parts.join("\n\n") };
  }
  const calls = content.filter((block) => block.type === "tool_use").map(wireToolCall);
  return { role: "assistant", content: joinText(content), ...(calls.length > 0 && { tool_calls: calls }) };
}

/** Tool results first (they must follow the assistant's calls), then the user's text. */
function userMessages(
  content: readonly UserBlock[],
  textToolCalls: boolean,
  toolNames: ReadonlyMap<string, string>,
): OpenAIMessage[] {
  const text = joinText(content);
  const results = content.filter((block) => block.type === "tool_result");
  if (textToolCalls) {
    const rendered = results.map((block) => renderToolResult(toolNames.get(block.toolUseId) ?? "tool", block.content));
    const all = [...rendered, ...(text ? [text] : [])].join("\n\n");
    const pictures = content.filter((block) => block.type === "image");
    return [
      {
        role: "user",
        content: pictures.length > 0 ? [{ type: "text", text: all }, ...pictures.map(openaiImage)] : all,
      },
    ];
  }
  const messages: OpenAIMessage[] = results.map((block) => ({
    role: "tool",
    tool_call_id: block.toolUseId,
    content: block.content,
  }));
  const images = content.filter((block) => block.type === "image");
  if (images.length > 0)
    messages.push({
      role: "user",
      content: [...(text ? [{ type: "text" as const, text }] : []), ...images.map(openaiImage)],
    });
  else if (text || results.length === 0) messages.push({ role: "user", content: text });
  return messages;
}

function wireMessages(request: ModelRequest, options: WireOptions): OpenAIMessage[] {
  const system = options.textToolCalls
    ? [request.system, textToolSection(request.tools)].filter(Boolean).join("\n\n")
    : request.system;
  const messages: OpenAIMessage[] = system ? [{ role: "system", content: system }] : [];
  const toolNames = new Map<string, string>();
  for (const message of request.messages as readonly Message[]) {
    if (message.role === "assistant") {
      for (const block of message.content) if (block.type === "tool_use") toolNames.set(block.id, block.name);
      messages.push(assistantMessage(message.content, options.textToolCalls));
    } else {
      messages.push(...userMessages(message.content, options.textToolCalls, toolNames));
    }
  }
  return messages;
}

export function toOpenAIRequest(request: ModelRequest, options: WireOptions): OpenAIRequest {
  const tools: OpenAITool[] = options.textToolCalls
    ? []
    : request.tools.map((tool) => ({
        type: "function",
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      }));
  return {
    model: request.model,
    messages: wireMessages(request, options),
    max_tokens: request.maxTokens,
    stream: true,
    ...(options.includeUsage && { stream_options: { include_usage: true as const } }),
    ...(tools.length > 0 && { tools }),
    ...(options.textToolCalls && { stop: [TOOL_RESULT_TAG] }),
    ...(request.effort !== undefined && { reasoning_effort: request.effort }),
  };
}
