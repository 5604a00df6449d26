// A mock of an OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM, OpenRouter) on
// 127.0.0.1: POST …/chat/completions with stream:true answered in the real SSE wire format
// (`data: {...}` chunks with choices[].delta.content and delta.tool_calls[] fragments, a usage
// chunk when the request asks for one, `data: [DONE]`), from a script of responses; HTTP errors
// with OpenAI's error body (and retry-after); GET …/models listing the models it was given, and
// GET …/key (OpenRouter's key check). It
// records every request. Tests use startMockOpenAI(); process tests and demos run it standalone:
//
// bun test/support/mockOpenAI.ts --script script.json [--loop] [--port N] [--api-key KEY] [--models a,b] [--record
// requests.jsonl]
//
// prints its URL (…/v1) as the first line on stdout and serves until SIGINT/SIGTERM.
// script.json is a JSON array of MockOpenAIResponse, or {"responses": [...], "loop": true, "apiKey": "...", "models":
// [...]}.
import { appendFileSync, readFileSync } from "node:fs";
import { splitText } from "./mockAnthropicScript.ts";

/** One piece of a streamed response. `fragments` splits the text or the arguments into that many deltas. */
export type MockOpenAIStep =
  | { type: "text"; text: string; fragments?: number }
  /** Reasoning, as delta.reasoning_content (DeepSeek, vLLM, llama.cpp) or delta.reasoning (OpenRouter, Ollama). */
  | { type: "reasoning"; text: string; field?: "reasoning_content" | "reasoning"; fragments?: number }
  /** `arguments` is sent as JSON; `json` sends that exact text instead (broken JSON, say). */
  | { type: "tool_call"; name: string; id?: string; arguments?: unknown; json?: string; fragments?: number }
  /** Any chunk as is. */
  | { type: "chunk"; data: unknown }
  /** Raw bytes of the SSE body (a comment, a line without its blank line). */
  | { type: "raw"; text: string }
  /** An error chunk in the middle of a 200 stream ({"error": {...}}, as OpenRouter sends); the stream ends after it. */
  | { type: "error"; message?: string; code?: number | string }
  /** Send nothing more; keep the connection open until the client goes away. */
  | { type: "hang" }
  /** End the response here: no finish_reason, no [DONE]. */
  | { type: "close" };

export interface MockOpenAIStreamResponse {
  steps: MockOpenAIStep[];
  /** Default: tool_calls when a tool_call step is present, else stop. */
  finishReason?: string;
  /** Sent when the request asks for it (stream_options.include_usage); false: never. */
  usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number } | false;
  /** Send `data: [DONE]` at the end (default true). */
  done?: boolean;
  /** Wait this long before each chunk. */
  delayMs?: number;
  model?: string;
  headers?: Record<string, string>;
}

export interface MockOpenAIHttpError {
  status: number;
  message?: string;
  /** OpenAI's error type; default from the status. */
  errorType?: string;
  /** retry-after header value (seconds). */
  retryAfter?: number | string;
  retryAfterMs?: number;
  headers?: Record<string, string>;
  /** The body as is, instead of OpenAI's error object. */
  body?: string;
}

export type MockOpenAIResponse = MockOpenAIStreamResponse | MockOpenAIHttpError;

type Item = { data: unknown } | { raw: string } | { hang: true } | { close: true };

export interface RecordedOpenAIRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
  receivedAt: number;
  disconnectedAt: number | undefined;
  disconnected: Promise<void>;
}

export interface MockOpenAIOptions {
  script?: MockOpenAIResponse[];
  loop?: boolean;
  /** When set, a request must carry Authorization: Bearer <apiKey> or gets a 401. */
  apiKey?: string;
  /** What GET …/models lists (default: none). */
  models?: Array<string | Record<string, unknown>>;
  port?: number;
  onRequest?: (request: RecordedOpenAIRequest) => void;
}

export interface MockOpenAI extends AsyncDisposable {
  /** The API root, e.g. http://127.0.0.1:41234/v1 (no trailing slash). */
  readonly url: string;
  /** The server's address without /v1. */
  readonly origin: string;
  readonly requests: RecordedOpenAIRequest[];
  readonly pending: number;
  enqueue(...responses: MockOpenAIResponse[]): void;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  403: "permission_error",
  404: "not_found_error",
  429: "rate_limit_exceeded",
  500: "server_error",
  503: "server_error",
};

export function isHttpError(response: MockOpenAIResponse): response is MockOpenAIHttpError {
  return "status" in response;
}

function httpError(spec: MockOpenAIHttpError): Response {
  const headers: Record<string, string> = { "content-type": "application/json", ...spec.headers };
  if (spec.retryAfter !== undefined) headers["retry-after"] = String(spec.retryAfter);
  if (spec.retryAfterMs !== undefined) headers["retry-after-ms"] = String(spec.retryAfterMs);
  const body =
    spec.body ??
    JSON.stringify({
      error: {
        message: spec.message ?? `mock error ${spec.status}`,
        type: spec.errorType ?? ERROR_TYPES[spec.status] ?? "server_error",
        param: null,
        code: null,
      },
    });
  return new Response(body, { status: spec.status, headers });
}

/** The chunks of one scripted response, in order. `n` numbers ids so they stay unique. */
export function renderChunks(response: MockOpenAIStreamResponse, n: number, includeUsage: boolean): Item[] {
  const out: Item[] = [];
  const base = {
    id: `chatcmpl-mock-${n}`,
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: response.model ?? "mock-model",
  };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    out.push({ data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] } });
  chunk({ role: "assistant", content: "" });
  let toolIndex = 0;
  for (const step of response.steps) {
    switch (step.type) {
      case "text":
        for (const text of splitText(step.text, step.fragments)) chunk({ content: text });
        break;
      case "reasoning":
        for (const text of splitText(step.text, step.fragments)) chunk({ [step.field ?? "reasoning_content"]: text });
        break;
      case "tool_call": {
        const index = toolIndex++;
        const json = step.json ?? JSON.stringify(step.arguments ?? {});
        chunk({
          tool_calls: [
            {
              index,
              id: step.id ?? `call_mock_${n}_${index}`,
              type: "function",
              function: { name: step.name, arguments: "" },
            },
          ],
        });
        for (const piece of splitText(json, step.fragments))
          chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
        break;
      }
      case "chunk":
        out.push({ data: step.data });
        break;
      case "raw":
        out.push({ raw: step.text });
        break;
      case "error":
        out.push({
          data: {
            ...base,
            error: { message: step.message ?? "Upstream error", code: step.code ?? 502 },
            choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }],
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
  chunk({}, response.finishReason ?? (toolIndex > 0 ? "tool_calls" : "stop"));
  if (includeUsage && response.usage !== false) {
    const usage = response.usage ?? { prompt_tokens: 0, completion_tokens: 0 };
    out.push({
      data: {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: usage.prompt_tokens,
          completion_tokens: usage.completion_tokens,
          total_tokens: usage.prompt_tokens + usage.completion_tokens,
          ...(usage.cached_tokens !== undefined && { prompt_tokens_details: { cached_tokens: usage.cached_tokens } }),
        },
      },
    });
  }
  if (response.done !== false) out.push({ raw: "data: [DONE]\n\n" });
  return out;
}

const encoder = new TextEncoder();

function encode(item: { data: unknown } | { raw: string }): Uint8Array {
  return encoder.encode("raw" in item ? item.raw : `data: ${JSON.stringify(item.data)}\n\n`);
}

function streamResponse(
  spec: MockOpenAIStreamResponse,
  items: Item[],
  record: RecordedOpenAIRequest,
  signal: AbortSignal,
  onGone: () => void,
): Response {
  let position = 0;
  let finished = false;
  let wake: () => void = () => {};
  const gone = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const markGone = () => {
    if (!finished) onGone();
    wake();
  };
  signal.addEventListener("abort", markGone, { once: true });
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const item = items[position++];
      if (item === undefined) {
        finished = true;
        controller.close();
        return;
      }
      if (spec.delayMs) await Promise.race([Bun.sleep(spec.delayMs), gone]);
      if (record.disconnectedAt !== undefined) return;
      if ("hang" in item) {
        await gone;
        return;
      }
      if ("close" in item) {
        finished = true;
        controller.close();
        return;
      }
      controller.enqueue(encode(item));
    },
    cancel: markGone,
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", ...spec.headers },
  });
}

export function startMockOpenAI(options: MockOpenAIOptions = {}): MockOpenAI {
  const script: MockOpenAIResponse[] = [...(options.script ?? [])];
  const requests: RecordedOpenAIRequest[] = [];
  let served = 0;
  const next = (): MockOpenAIResponse | undefined => {
    if (!options.loop) return script.shift();
    const response = script.length > 0 ? script[served % script.length] : undefined;
    served++;
    return response;
  };

  const handle = async (req: Request): Promise<Response> => {
    const path = new URL(req.url).pathname;
    const headers: Record<string, string> = {};
    req.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value;
    });
    const text = await req.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    let markDisconnected: () => void = () => {};
    const record: RecordedOpenAIRequest = {
      method: req.method,
      path,
      headers,
      body,
      receivedAt: Date.now(),
      disconnectedAt: undefined,
      disconnected: new Promise<void>((resolve) => {
        markDisconnected = resolve;
      }),
    };
    const onGone = () => {
      if (record.disconnectedAt !== undefined) return;
      record.disconnectedAt = Date.now();
      markDisconnected();
    };
    requests.push(record);
    options.onRequest?.(record);

    if (options.apiKey !== undefined && headers.authorization !== `Bearer ${options.apiKey}`) {
      return httpError({ status: 401, message: "Incorrect API key provided", errorType: "invalid_request_error" });
    }
    if (req.method === "GET" && path.endsWith("/models")) {
      const data = (options.models ?? []).map((model) =>
        typeof model === "string" ? { id: model, object: "model", created: 1_700_000_000, owned_by: "mock" } : model,
      );
      return Response.json({ object: "list", data });
    }
    // OpenRouter's key check: GET /key answers for a valid key.
    if (req.method === "GET" && path.endsWith("/key"))
      return Response.json({ data: { label: "mock key", usage: 0, limit: null } });
    if (req.method !== "POST" || !path.endsWith("/chat/completions")) {
      return httpError({ status: 404, message: `mock OpenAI server: no route ${req.method} ${path}` });
    }
    if (body === undefined) return httpError({ status: 400, message: "mock OpenAI server: the body is not JSON" });
    const response = next();
    if (response === undefined)
      return httpError({
        status: 400,
        message: `mock OpenAI server: no scripted response left for request #${requests.length}`,
      });
    if (isHttpError(response)) return httpError(response);
    const includeUsage =
      (body as { stream_options?: { include_usage?: unknown } }).stream_options?.include_usage === true;
    return streamResponse(response, renderChunks(response, requests.length, includeUsage), record, req.signal, onGone);
  };

  const server = Bun.serve({ hostname: "127.0.0.1", port: options.port ?? 0, idleTimeout: 0, fetch: handle });
  const origin = `http://127.0.0.1:${server.port}`;
  const close = async () => {
    await server.stop(true);
  };
  return {
    url: `${origin}/v1`,
    origin,
    requests,
    get pending() {
      return script.length;
    },
    enqueue: (...responses) => {
      script.push(...responses);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

interface CliOptions {
  scriptFile?: string;
  port?: number;
  loop: boolean;
  apiKey?: string;
  models?: string[];
  recordFile?: string;
}

function parseArgs(argv: string[]): CliOptions {
  const options: CliOptions = { loop: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === "--script") options.scriptFile = value();
    else if (arg === "--port") options.port = Number(value());
    else if (arg === "--loop") options.loop = true;
    else if (arg === "--api-key") options.apiKey = value();
    else if (arg === "--models") options.models = value().split(",").filter(Boolean);
    else if (arg === "--record") options.recordFile = value();
    else throw new Error(`unknown argument ${arg}`);
  }
  return options;
}

function main(): void {
  const cli = parseArgs(process.argv.slice(2));
  const parsed: unknown = cli.scriptFile ? JSON.parse(readFileSync(cli.scriptFile, "utf8")) : [];
  const file = Array.isArray(parsed)
    ? { responses: parsed as MockOpenAIResponse[] }
    : (parsed as { responses?: MockOpenAIResponse[]; loop?: boolean; apiKey?: string; models?: string[] });
  const recordFile = cli.recordFile;
  const apiKey = cli.apiKey ?? file.apiKey;
  const models = cli.models ?? file.models;
  const mock = startMockOpenAI({
    script: file.responses ?? [],
    loop: cli.loop || file.loop === true,
    ...(apiKey !== undefined && { apiKey }),
    ...(models !== undefined && { models }),
    ...(cli.port !== undefined && { port: cli.port }),
    ...(recordFile !== undefined && {
      onRequest: (request: RecordedOpenAIRequest) => {
        const { method, path, headers, body, receivedAt } = request;
        appendFileSync(recordFile, `${JSON.stringify({ method, path, headers, body, receivedAt })}\n`);
      },
    }),
  });
  process.stdout.write(`${mock.url}\n`);
  const stop = () => {
    void mock.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

if (import.meta.main) main();
