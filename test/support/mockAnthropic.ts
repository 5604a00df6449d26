// A mock of Anthropic's Messages API on 127.0.0.1: POST …/v1/messages with stream:true answered
// in the real SSE wire format, from a script of responses (without stream:true: the same
// response as one JSON message). It records every request. Tests use
// startMockAnthropic(); process tests, demos and benchmarks run it standalone:
//
// bun test/support/mockAnthropic.ts --script script.json [--loop] [--port N] [--api-key KEY] [--record requests.jsonl]
//
// prints its URL as the first line on stdout and serves until SIGINT/SIGTERM. script.json is a
// JSON array of MockResponse, or {"responses": [...], "loop": true, "apiKey": "..."}.
import { appendFileSync, readFileSync } from "node:fs";
import {
  type MockHttpError,
  type MockResponse,
  type MockStreamResponse,
  type WireItem,
  encodeEvent,
  isHttpError,
  renderHttpError,
  renderMessage,
  renderStream,
} from "./mockAnthropicScript.ts";

export * from "./mockAnthropicScript.ts";

export interface RecordedRequest {
  method: string;
  /** Path as received, any base-URL prefix included. */
  path: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The parsed JSON body (undefined when there was none or it was not JSON). */
  body: any;
  receivedAt: number;
  /** Set when the client closed the connection before the response was complete. */
  disconnectedAt: number | undefined;
  /** Resolves at that moment. */
  disconnected: Promise<void>;
}

export interface MockAnthropicOptions {
  script?: MockResponse[];
  /** Serve the script over and over (demos, benchmarks) instead of once. */
  loop?: boolean;
  /** When set, a request must carry this key (x-api-key or Authorization: Bearer) or gets a 401. */
  apiKey?: string;
  port?: number;
  /** Called with every request once recorded. */
  onRequest?: (request: RecordedRequest) => void;
}

export interface MockAnthropic extends AsyncDisposable {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Responses not served yet (in loop mode: the script's length). */
  readonly pending: number;
  enqueue(...responses: MockResponse[]): void;
  close(): Promise<void>;
}

function httpErrorResponse(spec: MockHttpError, requestId: string): Response {
  const { status, headers, body } = renderHttpError(spec, requestId);
  return Response.json(body, { status, headers });
}

/** Streams `items`; marks the request disconnected if the client leaves before the end. */
function streamResponse(
  spec: MockStreamResponse,
  items: WireItem[],
  record: RecordedRequest,
  signal: AbortSignal,
  onGone: () => void,
  requestId: string,
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
      controller.enqueue(encodeEvent(item));
    },
    cancel: markGone,
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "request-id": requestId,
      ...spec.headers,
    },
  });
}

function authorized(headers: Record<string, string>, apiKey: string | undefined): boolean {
  if (apiKey === undefined) return true;
  return headers["x-api-key"] === apiKey || headers["authorization"] === `Bearer ${apiKey}`;
}

export function startMockAnthropic(options: MockAnthropicOptions = {}): MockAnthropic {
  const script: MockResponse[] = [...(options.script ?? [])];
  const requests: RecordedRequest[] = [];
  let served = 0;

  const next = (): MockResponse | undefined => {
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
    const record: RecordedRequest = {
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
    const requestId = `req_mock_${requests.length}`;

    // The key check `garuda setup` makes (a first run's setup against this server).
    if (req.method === "GET" && path.endsWith("/v1/models")) {
      if (!authorized(headers, options.apiKey)) return httpErrorResponse({ status: 401 }, requestId);
      return Response.json({ data: [{ id: "claude-sonnet-5", type: "model" }], has_more: false });
    }
    if (req.method !== "POST" || !/\/v1\/messages(\/count_tokens)?$/.test(path)) {
      return httpErrorResponse(
        { status: 404, message: `mock Anthropic server: no route ${req.method} ${path}` },
        requestId,
      );
    }
    if (!authorized(headers, options.apiKey)) return httpErrorResponse({ status: 401 }, requestId);
    if (body === undefined)
      return httpErrorResponse({ status: 400, message: "mock Anthropic server: the body is not JSON" }, requestId);
    if (path.endsWith("/count_tokens")) return Response.json({ input_tokens: Math.ceil(text.length / 4) });

    const response = next();
    if (response === undefined) {
      const message = `mock Anthropic server: no scripted response left for request #${requests.length}`;
      return httpErrorResponse({ status: 400, errorType: "invalid_request_error", message }, requestId);
    }
    if (isHttpError(response)) return httpErrorResponse(response, requestId);
    if ((body as { stream?: unknown }).stream !== true) {
      const message = renderMessage(response, requests.length, requestId);
      return Response.json(message.body, { status: message.status, headers: message.headers });
    }
    return streamResponse(response, renderStream(response, requests.length), record, req.signal, onGone, requestId);
  };

  const server = Bun.serve({ hostname: "127.0.0.1", port: options.port ?? 0, idleTimeout: 0, fetch: handle });
  const url = `http://127.0.0.1:${server.port}`;
  const close = async () => {
    await server.stop(true);
  };
  return {
    url,
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
    else if (arg === "--record") options.recordFile = value();
    else throw new Error(`unknown argument ${arg}`);
  }
  return options;
}

function main(): void {
  const cli = parseArgs(process.argv.slice(2));
  const parsed: unknown = cli.scriptFile ? JSON.parse(readFileSync(cli.scriptFile, "utf8")) : [];
  const file = Array.isArray(parsed)
    ? { responses: parsed as MockResponse[] }
    : (parsed as { responses?: MockResponse[]; loop?: boolean; apiKey?: string });
  const recordFile = cli.recordFile;
  const apiKey = cli.apiKey ?? file.apiKey;
  const mock = startMockAnthropic({
    script: file.responses ?? [],
    loop: cli.loop || file.loop === true,
    ...(apiKey !== undefined && { apiKey }),
    ...(cli.port !== undefined && { port: cli.port }),
    ...(recordFile !== undefined && {
      onRequest: (request: RecordedRequest) => {
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
