// The script of the mock Anthropic server (mockAnthropic.ts): what a scripted response looks
// like, and how it becomes the Messages API's SSE events and error bodies. Pure data; no I/O.

export type MockStopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "stop_sequence"
  | "refusal"
  | "pause_turn"
  | "model_context_window_exceeded";

/** One high-level piece of a streamed response. `fragments` splits the text or JSON into that many deltas. */
export type MockStep =
  | { type: "text"; text: string; fragments?: number }
  | { type: "thinking"; thinking: string; signature: string; fragments?: number }
  | { type: "redacted_thinking"; data: string }
  /** `input` is sent as JSON; `json` sends that exact text instead (e.g. broken or cut-off JSON). */
  | { type: "tool_use"; name: string; id?: string; input?: unknown; json?: string; fragments?: number }
  | { type: "server_tool_use"; input: unknown; name?: string; id?: string; fragments?: number }
  /** A web_search_tool_result; `toolUseId` defaults to the latest server_tool_use of the response. */
  | { type: "web_search_result"; toolUseId?: string; content?: unknown }
  | { type: "ping" }
  /** Any event as is (an unknown event type, say). */
  | { type: "event"; event: string; data: unknown }
  /** An `event: error` in the stream; the stream ends after it. */
  | { type: "error"; errorType?: string; message?: string }
  /** Send nothing more; keep the connection open until the client goes away. */
  | { type: "hang" }
  /**
   * End the response here, without message_delta and message_stop: a response cut short. (It
   * ends cleanly at the HTTP level; Bun logs an error for every socket reset by a response
   * stream, so a hard reset is left to tests that wrap fetch.)
   */
  | { type: "close" };

export interface MockUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export interface MockStreamResponse {
  steps: MockStep[];
  /** Default: tool_use when a tool_use step is present, else end_turn. */
  stopReason?: MockStopReason;
  stopSequence?: string;
  /** Final (cumulative) usage. message_start carries the input side and output_tokens 1. */
  usage?: MockUsage;
  /** "cumulative" (default): message_delta repeats every count; "output_only": just output_tokens. */
  deltaUsage?: "cumulative" | "output_only";
  /** Wait this long before each event. */
  delayMs?: number;
  model?: string;
  headers?: Record<string, string>;
}

export interface MockHttpError {
  status: number;
  /** Anthropic's error type; default from the status (429 → rate_limit_error, 529 → overloaded_error …). */
  errorType?: string;
  message?: string;
  /** retry-after header value (seconds). */
  retryAfter?: number | string;
  /** retry-after-ms header value. */
  retryAfterMs?: number;
  headers?: Record<string, string>;
}

export type MockResponse = MockStreamResponse | MockHttpError;

export type WireItem = { event: string; data: unknown } | { hang: true } | { close: true };

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  408: "timeout_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  504: "timeout_error",
  529: "overloaded_error",
};

const ERROR_MESSAGES: Record<string, string> = {
  invalid_request_error: "Invalid request",
  authentication_error: "invalid x-api-key",
  permission_error: "Your API key does not have permission to use the specified resource.",
  not_found_error: "Not found",
  rate_limit_error: "Number of request tokens has exceeded your per-minute rate limit",
  api_error: "Internal server error",
  overloaded_error: "Overloaded",
};

const SAMPLE_SEARCH_RESULTS = [
  {
    type: "web_search_result",
    url: "https://example.com/",
    title: "Example Domain",
    encrypted_content: "EqgfCioIARgBIiQ3YTAw",
    page_age: null,
  },
];

/**
 * Splits a string into `parts` pieces of about equal length, never inside a code point (by index: a 50 MB text stays
 * cheap).
 */
export function splitText(text: string, parts = 1): string[] {
  const count = Math.max(1, Math.min(Math.floor(parts), text.length));
  const pieces: string[] = [];
  let from = 0;
  for (let i = 1; i <= count; i++) {
    let to = i === count ? text.length : Math.floor((i * text.length) / count);
    // Not between the halves of a surrogate pair.
    const code = text.charCodeAt(to - 1);
    if (to < text.length && code >= 0xd800 && code <= 0xdbff) to++;
    if (to > from) pieces.push(text.slice(from, to));
    from = Math.max(from, to);
  }
  return pieces;
}

export function isHttpError(response: MockResponse): response is MockHttpError {
  return "status" in response;
}

/** An HTTP error as Anthropic sends it: status, headers (retry-after …) and the JSON error body. */
export function renderHttpError(
  spec: MockHttpError,
  requestId: string,
): { status: number; headers: Record<string, string>; body: unknown } {
  const errorType = spec.errorType ?? ERROR_TYPES[spec.status] ?? "api_error";
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "request-id": requestId,
    ...spec.headers,
  };
  if (spec.retryAfter !== undefined) headers["retry-after"] = String(spec.retryAfter);
  if (spec.retryAfterMs !== undefined) headers["retry-after-ms"] = String(spec.retryAfterMs);
  const message = spec.message ?? ERROR_MESSAGES[errorType] ?? "Error";
  return {
    status: spec.status,
    headers,
    body: { type: "error", error: { type: errorType, message }, request_id: requestId },
  };
}

/** The SSE events of one scripted response, in order. `n` numbers ids so they stay unique. */
export function renderStream(response: MockStreamResponse, n: number): WireItem[] {
  const out: WireItem[] = [];
  const push = (event: string, data: Record<string, unknown>) => out.push({ event, data: { type: event, ...data } });
  const usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    ...response.usage,
  };
  push("message_start", {
    message: {
      id: `msg_mock_${n}`,
      type: "message",
      role: "assistant",
      model: response.model ?? "claude-mock",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        output_tokens: 1,
        service_tier: "standard",
      },
    },
  });
  push("ping", {});
  let index = 0;
  let lastServerTool = "";
  let sawToolUse = false;
  const block = (start: Record<string, unknown>, deltas: Record<string, unknown>[]) => {
    push("content_block_start", { index, content_block: start });
    for (const delta of deltas) push("content_block_delta", { index, delta });
    push("content_block_stop", { index });
    index++;
  };
  const jsonDeltas = (json: string | undefined, fragments: number | undefined) =>
    json === undefined
      ? []
      : ["", ...splitText(json, fragments)].map((partial_json) => ({ type: "input_json_delta", partial_json }));

  for (const step of response.steps) {
    switch (step.type) {
      case "text":
        block(
          { type: "text", text: "", citations: null },
          splitText(step.text, step.fragments).map((text) => ({ type: "text_delta", text })),
        );
        break;
      case "thinking":
        block({ type: "thinking", thinking: "", signature: "" }, [
          ...splitText(step.thinking, step.fragments).map((thinking) => ({ type: "thinking_delta", thinking })),
          { type: "signature_delta", signature: step.signature },
        ]);
        break;
      case "redacted_thinking":
        block({ type: "redacted_thinking", data: step.data }, []);
        break;
      case "tool_use": {
        sawToolUse = true;
        const json = step.json ?? (step.input === undefined ? undefined : JSON.stringify(step.input));
        const start = {
          type: "tool_use",
          id: step.id ?? `toolu_mock_${n}_${index}`,
          name: step.name,
          input: {},
          caller: { type: "direct" },
        };
        block(start, jsonDeltas(json, step.fragments));
        break;
      }
      case "server_tool_use": {
        lastServerTool = step.id ?? `srvtoolu_mock_${n}_${index}`;
        const start = {
          type: "server_tool_use",
          id: lastServerTool,
          name: step.name ?? "web_search",
          input: {},
          caller: { type: "direct" },
        };
        block(start, jsonDeltas(JSON.stringify(step.input), step.fragments));
        break;
      }
      case "web_search_result":
        block(
          {
            type: "web_search_tool_result",
            tool_use_id: step.toolUseId ?? lastServerTool,
            content: step.content ?? SAMPLE_SEARCH_RESULTS,
            caller: { type: "direct" },
          },
          [],
        );
        break;
      case "ping":
        push("ping", {});
        break;
      case "event":
        out.push({ event: step.event, data: step.data });
        break;
      case "error":
        out.push({
          event: "error",
          data: {
            type: "error",
            error: { type: step.errorType ?? "overloaded_error", message: step.message ?? "Overloaded" },
          },
        });
        return out;
      case "hang":
        out.push({ hang: true });
        return out;
      case "close":
        out.push({ close: true });
        return out;
    }
  }
  const stopReason = response.stopReason ?? (sawToolUse ? "tool_use" : "end_turn");
  const deltaUsage =
    response.deltaUsage === "output_only"
      ? { output_tokens: usage.output_tokens }
      : {
          input_tokens: usage.input_tokens,
          cache_creation_input_tokens: usage.cache_creation_input_tokens,
          cache_read_input_tokens: usage.cache_read_input_tokens,
          output_tokens: usage.output_tokens,
        };
  push("message_delta", {
    delta: {
      stop_reason: stopReason,
      stop_sequence: response.stopSequence ?? null,
      ...(stopReason === "refusal" && { stop_details: { type: "refusal", category: null, explanation: null } }),
    },
    usage: deltaUsage,
  });
  push("message_stop", {});
  return out;
}

type Json = Record<string, any>;

function parseInput(json: string): unknown {
  try {
    return json ? JSON.parse(json) : {};
  } catch {
    return {};
  }
}

/**
 * The same response as one JSON Message, for a request without stream:true (folded from its
 * events). An `error` step becomes the matching HTTP error; `hang` and `close` end it early.
 */
export function renderMessage(
  response: MockStreamResponse,
  n: number,
  requestId: string,
): { status: number; headers: Record<string, string>; body: unknown } {
  let message: Json = {};
  const blocks: Json[] = [];
  const partial = new Map<number, string>();
  for (const item of renderStream(response, n)) {
    if (!("event" in item)) break;
    const data = item.data as Json;
    if (item.event === "error") {
      const errorType = String(data.error?.type ?? "api_error");
      return renderHttpError(
        { status: errorType === "overloaded_error" ? 529 : 500, errorType, message: String(data.error?.message ?? "") },
        requestId,
      );
    }
    if (item.event === "message_start") message = { ...data.message };
    else if (item.event === "content_block_start") blocks[data.index] = { ...data.content_block };
    else if (item.event === "content_block_delta") {
      const block = blocks[data.index] as Json;
      const delta = data.delta as Json;
      if (delta.type === "text_delta") block.text += delta.text;
      else if (delta.type === "thinking_delta") block.thinking += delta.thinking;
      else if (delta.type === "signature_delta") block.signature = delta.signature;
      else if (delta.type === "input_json_delta")
        partial.set(data.index, (partial.get(data.index) ?? "") + delta.partial_json);
    } else if (item.event === "content_block_stop" && partial.has(data.index)) {
      (blocks[data.index] as Json).input = parseInput(partial.get(data.index) ?? "");
    } else if (item.event === "message_delta") {
      message.stop_reason = data.delta.stop_reason;
      message.stop_sequence = data.delta.stop_sequence;
      message.usage = { ...message.usage, ...data.usage };
    }
  }
  return {
    status: 200,
    headers: { "content-type": "application/json", "request-id": requestId },
    body: { ...message, content: blocks.filter(Boolean) },
  };
}

export function encodeEvent(item: { event: string; data: unknown }): Uint8Array {
  return new TextEncoder().encode(`event: ${item.event}\ndata: ${JSON.stringify(item.data)}\n\n`);
}

/** Builders for common responses. */
export const mockResponses = {
  text: (
    text: string,
    options: Omit<MockStreamResponse, "steps"> & { fragments?: number } = {},
  ): MockStreamResponse => {
    const { fragments, ...rest } = options;
    return { ...rest, steps: [{ type: "text", text, ...(fragments !== undefined && { fragments }) }] };
  },
  toolUse: (
    name: string,
    input: unknown,
    options: Omit<MockStreamResponse, "steps"> & { id?: string; fragments?: number } = {},
  ): MockStreamResponse => {
    const { id, fragments, ...rest } = options;
    return {
      ...rest,
      steps: [
        {
          type: "tool_use",
          name,
          input,
          ...(id !== undefined && { id }),
          ...(fragments !== undefined && { fragments }),
        },
      ],
    };
  },
  httpError: (status: number, options: Omit<MockHttpError, "status"> = {}): MockHttpError => ({ status, ...options }),
};
