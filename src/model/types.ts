// The provider-neutral model contract. Only files under src/model/ know a wire format;
// the runtime speaks these types and nothing else.
import type { Usage } from "../core-types/usage.ts";

/** Why the model stopped one response. Providers map their own reasons onto this set. */
export type ModelStopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "stop_sequence"
  | "refusal"
  | "pause_turn"
  | "model_context_window_exceeded";

export interface TextBlock {
  type: "text";
  text: string;
}
/** Thinking is passed back to the model byte for byte, signature included. */
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature: string;
}
export interface RedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}
/**
 * The name of the pseudo-tool a client puts in place of a tool call it could not read (broken
 * JSON, a ```tool_call block that does not parse). The registry answers it with the input's
 * `error`, so the model learns what was wrong and writes the call again.
 */
export const INVALID_TOOL_CALL = "__invalid_tool_call";

/** The input of an INVALID_TOOL_CALL. */
export interface InvalidToolCallInput {
  /** What was wrong and how to write the call, for the model. */
  error: string;
  /** The tool the model meant to call, when that much could be read. */
  tool?: string;
  /** What the model wrote, to send back as it was. */
  raw?: string;
}

/** The name an INVALID_TOOL_CALL goes back to the provider under: the tool the model meant, when known. */
export function meantToolName(block: Pick<ToolUseBlock, "input">): string {
  const { tool } = (block.input ?? {}) as Partial<InvalidToolCallInput>;
  return typeof tool === "string" && tool !== "" ? tool : INVALID_TOOL_CALL;
}

export interface ToolResultBlock {
  type: "tool_result";
  toolUseId: string;
  content: string;
  isError: boolean;
}
/** A tool the provider runs itself (Anthropic's web search). */
export interface ServerToolUseBlock {
  type: "server_tool_use";
  id: string;
  name: string;
  input: unknown;
}
/** The provider's result of a server tool, kept opaque so it can be sent back unchanged. */
export interface ServerToolResultBlock {
  type: "server_tool_result";
  toolUseId: string;
  /** The provider's own block type, e.g. "web_search_tool_result". */
  blockType: string;
  content: unknown;
}

export type AssistantBlock =
  | TextBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ToolUseBlock
  | ServerToolUseBlock
  | ServerToolResultBlock;
/** An image in a user message: checked and within the provider's limits (images.ts). */
export interface ImageBlock {
  type: "image";
  mediaType: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
  /** Base64, without a data: prefix. */
  data: string;
}

export type UserBlock = TextBlock | ToolResultBlock | ImageBlock;

export type Message = { role: "user"; content: UserBlock[] } | { role: "assistant"; content: AssistantBlock[] };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the input (an object schema). */
  inputSchema: Record<string, unknown>;
}

export interface WebSearchOptions {
  maxUses?: number;
  allowedDomains?: string[];
  blockedDomains?: string[];
}

export interface ModelRequest {
  /** The provider's own model id (not Garuda's `<provider>/<model>` spec). */
  model: string;
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  maxTokens: number;
  /** Let the model think before answering, when the model supports it. */
  thinking?: "adaptive" | { budgetTokens: number };
  /**
   * How much effort the model puts into its answer, one of the model's own levels (model/effort.ts):
   * Anthropic's output_config.effort, an OpenAI-compatible server's reasoning_effort. Absent: the
   * provider's default.
   */
  effort?: string;
  /** Offer the provider's server-side web search. */
  webSearch?: WebSearchOptions;
}

/**
 * What a model stream yields, in order. Deltas are for display; `message_end` carries the
 * whole assistant message as it must be sent back next time (thinking signatures included).
 */
export type ModelEvent =
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; text: string }
  /** A client tool call, its input complete and parsed. */
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "server_tool_use"; id: string; name: string; input: unknown }
  | { type: "server_tool_result"; toolUseId: string; blockType: string; content: unknown }
  /**
   * The request failed in a way worth another try and is being sent again. Everything the
   * stream yielded since the last `retry` (or the start) is void: the answer starts over.
   */
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  /** A warning about the request from the provider's library (a deprecated model): each once per client. */
  | { type: "warning"; text: string }
  | { type: "message_end"; stopReason: ModelStopReason; content: AssistantBlock[]; usage: Usage };

export interface ModelClient {
  /** Streams one model response. Aborting `signal` closes the request at once. */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
}

/** A failure the caller shows as is: the message says what went wrong and what to do. */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly retryable = false,
  ) {
    super(message);
    this.name = "ModelError";
  }
}
