// The OpenAI-compatible client against a mock server that speaks the real wire format: streamed
// text, tool calls from fragments, usage (reported or estimated), stop reasons, retries,
// abort, a stream cut short, a stalled stream, the errors' advice, and text tool calls.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createPermissionEngine } from "../../src/permission/engine.ts";
import { BUILTIN_PROVIDERS } from "../../src/model/catalog.ts";
import { createOpenAICompatibleClient, type OpenAICompatibleClientOptions } from "../../src/model/openaiCompatible.ts";
import { errorDetails } from "../../src/model/openaiFailure.ts";
import { toOpenAIRequest } from "../../src/model/openaiRequest.ts";
import { sseEvents } from "../../src/model/openaiStream.ts";
import { openModelClient } from "../../src/model/open.ts";
import { TextToolCallParser, textToolSection, type TextPiece } from "../../src/model/textToolCalls.ts";
import {
  INVALID_TOOL_CALL,
  type InvalidToolCallInput,
  type Message,
  type ModelEvent,
  type ModelRequest,
  ModelError,
} from "../../src/model/types.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { fakeExecutor, readTool } from "../support/runtimeHelpers.ts";
import { type MockOpenAI, type MockOpenAIResponse, startMockOpenAI } from "../support/mockOpenAI.ts";
import { tempDir } from "../support/tempDir.ts";

const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 };
const ollama = BUILTIN_PROVIDERS.ollama as NonNullable<(typeof BUILTIN_PROVIDERS)["ollama"]>;

const READ_SPEC = {
  name: "read_file",
  description: "Reads a file.",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};
const GREP_SPEC = {
  name: "grep",
  description: "Searches files.",
  inputSchema: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] },
};

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "qwen3:8b",
    system: "You are Garuda, a coding agent.",
    messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }],
    tools: [],
    maxTokens: 1024,
    ...overrides,
  };
}

function clientFor(mock: MockOpenAI, options: Partial<OpenAICompatibleClientOptions> = {}) {
  return createOpenAICompatibleClient({ baseUrl: mock.url, provider: ollama, retry: FAST_RETRY, ...options });
}

async function settle(iterable: AsyncIterable<ModelEvent>): Promise<{ events: ModelEvent[]; error: unknown }> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of iterable) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

async function collect(iterable: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const { events, error } = await settle(iterable);
  if (error) throw error;
  return events;
}

function end(events: ModelEvent[]): Extract<ModelEvent, { type: "message_end" }> {
  const last = events.at(-1);
  if (last?.type !== "message_end") throw new Error(`stream did not end with message_end: ${JSON.stringify(last)}`);
  return last;
}

const texts = (events: ModelEvent[]) => events.flatMap((event) => (event.type === "text_delta" ? [event.text] : []));
const ofType = <T extends ModelEvent["type"]>(events: ModelEvent[], type: T) =>
  events.filter((event): event is Extract<ModelEvent, { type: T }> => event.type === type);
const mockWith = (...script: MockOpenAIResponse[]) => startMockOpenAI({ script });
const signal = () => new AbortController().signal;

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    Bun.sleep(ms).then(() => Promise.reject(new Error(`${what} took longer than ${ms} ms`))),
  ]);
}

describe("streaming", () => {
  test("a streamed answer: text in fragments, the whole message at the end, the server's usage", async () => {
    await using mock = mockWith({
      steps: [{ type: "text", text: "Hello from a local model!", fragments: 5 }],
      usage: { prompt_tokens: 120, completion_tokens: 7, cached_tokens: 100 },
    });
    const events = await collect(clientFor(mock, { apiKey: "sk-or-test" }).stream(request(), signal()));

    expect(texts(events)).toHaveLength(5);
    expect(texts(events).join("")).toBe("Hello from a local model!");
    expect(end(events)).toEqual({
      type: "message_end",
      stopReason: "end_turn",
      content: [{ type: "text", text: "Hello from a local model!" }],
      usage: { inputTokens: 20, outputTokens: 7, cacheReadTokens: 100, cacheCreationTokens: 0 },
    });

    const sent = mock.requests[0];
    expect(sent?.method).toBe("POST");
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(sent?.headers.authorization).toBe("Bearer sk-or-test");
    expect(sent?.body).toEqual({
      model: "qwen3:8b",
      messages: [
        { role: "system", content: "You are Garuda, a coding agent." },
        { role: "user", content: "Hello" },
      ],
      max_tokens: 1024,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  test("a keyless server gets no Authorization header", async () => {
    await using mock = mockWith({ steps: [{ type: "text", text: "ok" }] });
    await collect(clientFor(mock).stream(request(), signal()));
    expect(mock.requests[0]?.headers.authorization).toBeUndefined();
  });

  test("no usage reported: an estimate at 4 characters a token, marked estimated", async () => {
    await using mock = mockWith({ steps: [{ type: "text", text: "x".repeat(40) }], usage: false });
    const usage = end(await collect(clientFor(mock).stream(request(), signal()))).usage;
    expect(usage.estimated).toBe(true);
    expect(usage.outputTokens).toBe(10);
    const requestChars = JSON.stringify(mock.requests[0]?.body).length;
    expect(usage.inputTokens).toBe(Math.ceil(requestChars / 4));
  });

  test(
    "stop reasons map onto Anthropic's: length → max_tokens, content_filter → " + "refusal, unknown → end_turn",
    async () => {
      await using mock = mockWith(
        { steps: [{ type: "text", text: "cut" }], finishReason: "length" },
        { steps: [{ type: "text", text: "no" }], finishReason: "content_filter" },
        { steps: [{ type: "text", text: "eh" }], finishReason: "eos" },
      );
      const client = clientFor(mock);
      expect(end(await collect(client.stream(request(), signal()))).stopReason).toBe("max_tokens");
      expect(end(await collect(client.stream(request(), signal()))).stopReason).toBe("refusal");
      expect(end(await collect(client.stream(request(), signal()))).stopReason).toBe("end_turn");
    },
  );

  test("reasoning deltas are shown as thinking but not kept in the message (nothing to send back)", async () => {
    await using mock = mockWith(
      {
        steps: [
          { type: "reasoning", text: "Let me think.", fragments: 2 },
          { type: "text", text: "42" },
        ],
      },
      {
        steps: [
          { type: "reasoning", text: "Hmm.", field: "reasoning" },
          { type: "text", text: "43" },
        ],
      },
    );
    const client = clientFor(mock);
    const first = await collect(client.stream(request(), signal()));
    expect(ofType(first, "thinking_delta").map((event) => event.text)).toEqual(["Let me", " think."]);
    expect(end(first).content).toEqual([{ type: "text", text: "42" }]);
    const second = await collect(client.stream(request(), signal()));
    expect(ofType(second, "thinking_delta").map((event) => event.text)).toEqual(["Hmm."]);

    // Thinking from an earlier (Claude) turn is not sent either.
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "q" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "secret", signature: "sig" },
          { type: "text", text: "a" },
        ],
      },
      { role: "user", content: [{ type: "text", text: "q2" }] },
    ];
    const body = toOpenAIRequest(request({ messages }), { textToolCalls: false, includeUsage: true });
    expect(body.messages).toEqual([
      { role: "system", content: "You are Garuda, a coding agent." },
      { role: "user", content: "q" },
      { role: "assistant", content: "a" },
      { role: "user", content: "q2" },
    ]);
  });

  test("a server that ignores stream:true and sends the whole completion still works", async () => {
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () =>
        Response.json({
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: "whole",
                tool_calls: [{ id: "c1", type: "function", function: { name: "grep", arguments: '{"pattern":"x"}' } }],
              },
              finish_reason: "tool_calls",
            },
          ],
          usage: { prompt_tokens: 9, completion_tokens: 3 },
        }),
    });
    try {
      const client = createOpenAICompatibleClient({ baseUrl: `http://127.0.0.1:${server.port}/v1`, retry: FAST_RETRY });
      const events = await collect(client.stream(request(), signal()));
      expect(end(events)).toMatchObject({
        stopReason: "tool_use",
        content: [
          { type: "text", text: "whole" },
          { type: "tool_use", id: "c1", name: "grep", input: { pattern: "x" } },
        ],
        usage: { inputTokens: 9, outputTokens: 3 },
      });
    } finally {
      await server.stop(true);
    }
  });
});

describe("tool calls", () => {
  test("a turn with two tool calls: arguments put together from fragments by index", async () => {
    await using mock = mockWith({
      steps: [
        { type: "text", text: "Reading both." },
        { type: "tool_call", name: "read_file", id: "call_a", arguments: { path: "src/main.ts" }, fragments: 4 },
        { type: "tool_call", name: "grep", id: "call_b", arguments: { pattern: "TODO" }, fragments: 3 },
      ],
      usage: { prompt_tokens: 50, completion_tokens: 20 },
    });
    const events = await collect(clientFor(mock).stream(request({ tools: [READ_SPEC, GREP_SPEC] }), signal()));
    expect(ofType(events, "tool_use")).toEqual([
      { type: "tool_use", id: "call_a", name: "read_file", input: { path: "src/main.ts" } },
      { type: "tool_use", id: "call_b", name: "grep", input: { pattern: "TODO" } },
    ]);
    expect(end(events)).toMatchObject({
      stopReason: "tool_use",
      content: [
        { type: "text", text: "Reading both." },
        { type: "tool_use", id: "call_a", name: "read_file", input: { path: "src/main.ts" } },
        { type: "tool_use", id: "call_b", name: "grep", input: { pattern: "TODO" } },
      ],
    });
    expect(mock.requests[0]?.body.tools).toEqual([
      {
        type: "function",
        function: { name: "read_file", description: "Reads a file.", parameters: READ_SPEC.inputSchema },
      },
      {
        type: "function",
        function: { name: "grep", description: "Searches files.", parameters: GREP_SPEC.inputSchema },
      },
    ]);
  });

  test(
    "the history goes back in OpenAI's shape: assistant tool_calls, then one " + "role-tool message per result",
    async () => {
      const messages: Message[] = [
        { role: "user", content: [{ type: "text", text: "Look" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Reading both." },
            { type: "tool_use", id: "call_a", name: "read_file", input: { path: "a.ts" } },
            { type: "tool_use", id: "call_b", name: "grep", input: { pattern: "x" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", toolUseId: "call_a", content: "export {}", isError: false },
            { type: "tool_result", toolUseId: "call_b", content: "Error: bad pattern", isError: true },
            { type: "text", text: "<garuda_note>mode: build</garuda_note>" },
          ],
        },
      ];
      await using mock = mockWith({ steps: [{ type: "text", text: "Done." }] });
      await collect(clientFor(mock).stream(request({ messages, tools: [READ_SPEC, GREP_SPEC] }), signal()));
      expect(mock.requests[0]?.body.messages).toEqual([
        { role: "system", content: "You are Garuda, a coding agent." },
        { role: "user", content: "Look" },
        {
          role: "assistant",
          content: "Reading both.",
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } },
            { id: "call_b", type: "function", function: { name: "grep", arguments: '{"pattern":"x"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_a", content: "export {}" },
        { role: "tool", tool_call_id: "call_b", content: "Error: bad pattern" },
        { role: "user", content: "<garuda_note>mode: build</garuda_note>" },
      ]);
    },
  );

  test("arguments that are not JSON become a call the registry answers with what was wrong", async () => {
    await using mock = mockWith({
      steps: [{ type: "tool_call", name: "read_file", id: "call_x", json: '{"path": "a.ts"', fragments: 2 }],
    });
    const events = await collect(clientFor(mock).stream(request({ tools: [READ_SPEC] }), signal()));
    const [call] = ofType(events, "tool_use");
    expect(call?.name).toBe(INVALID_TOOL_CALL);
    expect(call?.id).toBe("call_x");
    const input = call?.input as InvalidToolCallInput;
    expect(input.tool).toBe("read_file");
    expect(input.error).toContain("Your call of read_file could not be read: its arguments are not valid JSON");

    const outcome = await registryOutcome(call as { id: string; name: string; input: unknown });
    expect(outcome.status).toBe("failed");
    expect(outcome.output).toStartWith(
      "Error: Your call of read_file could not be read: its arguments are not valid JSON",
    );
    expect(outcome.output).toContain("Call it again with its arguments as one JSON object.");

    // Sent back under the name meant, with empty arguments (servers may reject broken JSON).
    const body = toOpenAIRequest(request({ messages: [{ role: "assistant", content: end(events).content }] }), {
      textToolCalls: false,
      includeUsage: false,
    });
    expect(body.messages[1]).toEqual({
      role: "assistant",
      content: "",
      tool_calls: [{ id: "call_x", type: "function", function: { name: "read_file", arguments: "{}" } }],
    });
  });

  test("servers without call ids or indexes still give distinct calls", async () => {
    await using mock = mockWith({
      steps: [
        {
          type: "chunk",
          data: {
            choices: [
              { index: 0, delta: { tool_calls: [{ function: { name: "grep", arguments: { pattern: "a" } } }] } },
            ],
          },
        },
        {
          type: "chunk",
          data: {
            choices: [
              {
                index: 0,
                delta: { tool_calls: [{ id: "x2", function: { name: "grep", arguments: '{"pattern":"b"}' } }] },
              },
            ],
          },
        },
      ],
      finishReason: "stop",
    });
    const calls = ofType(await collect(clientFor(mock).stream(request({ tools: [GREP_SPEC] }), signal())), "tool_use");
    expect(calls.map((call) => call.input)).toEqual([{ pattern: "a" }, { pattern: "b" }]);
    expect(calls[0]?.id).toMatch(/^call_/);
    expect(calls[1]?.id).toBe("x2");
  });
});

async function registryOutcome(call: { id: string; name: string; input: unknown }) {
  const registry = new ToolRegistry([readTool("read_file")]);
  return registry.run(call, {
    root: "/work/project",
    home: "/home/u",
    mode: "build",
    signal: signal(),
    executor: fakeExecutor(),
    sandbox: null,
    engine: createPermissionEngine({ root: "/work/project", home: "/home/u", sandboxAvailable: true }),
    emit: () => {},
    beforeWrite: async () => {},
  });
}

describe("retries and failures", () => {
  test("429 with retry-after: a retry event with the server's delay, then the answer", async () => {
    await using mock = mockWith(
      { status: 429, message: "Rate limit reached", retryAfter: 1 },
      { steps: [{ type: "text", text: "after the wait" }] },
    );
    const started = Date.now();
    const events = await collect(clientFor(mock).stream(request(), signal()));
    expect(events[0]).toEqual({
      type: "retry",
      attempt: 2,
      delayMs: 1000,
      reason: "429 rate_limit_exceeded: Rate limit reached",
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(texts(events).join("")).toBe("after the wait");
    expect(mock.requests).toHaveLength(2);
  });

  test("408, 409 and 5xx are retried; a 400 is not, and says what the server said", async () => {
    await using mock = mockWith({ status: 408 }, { status: 409 }, { steps: [{ type: "text", text: "ok" }] });
    const events = await collect(clientFor(mock).stream(request(), signal()));
    expect(ofType(events, "retry").map((event) => event.attempt)).toEqual([2, 3]);

    await using bad = mockWith({ status: 400, message: "max_tokens is too large" });
    const { events: none, error } = await settle(clientFor(bad).stream(request(), signal()));
    expect(none).toEqual([]);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toBe(
      "Ollama rejected the request as invalid (400 invalid_request_error: max_tokens is too large).",
    );
    expect(bad.requests).toHaveLength(1);

    await using down = mockWith({ status: 503 }, { status: 503 }, { status: 503 });
    const failed = await settle(clientFor(down).stream(request(), signal()));
    expect(ofType(failed.events, "retry")).toHaveLength(2);
    expect((failed.error as ModelError).message).toContain(
      "Ollama had a server error (503 server_error: mock error 503); gave up after 3 attempts.",
    );
    expect((failed.error as ModelError).retryable).toBe(true);
  });

  test("a server that closes mid-stream is asked again; the retry voids what was streamed", async () => {
    await using mock = mockWith(
      { steps: [{ type: "text", text: "Half an ans" }, { type: "close" }] },
      { steps: [{ type: "text", text: "A whole answer." }] },
    );
    const events = await collect(clientFor(mock).stream(request(), signal()));
    expect(events.map((event) => event.type)).toEqual(["text_delta", "retry", "text_delta", "message_end"]);
    expect(ofType(events, "retry")[0]?.reason).toBe("the response stream ended before [DONE]");
    expect(end(events).content).toEqual([{ type: "text", text: "A whole answer." }]);

    await using always = mockWith(
      ...Array.from({ length: 3 }, () => ({
        steps: [{ type: "text" as const, text: "x" }, { type: "close" as const }],
      })),
    );
    const { error } = await settle(clientFor(always).stream(request(), signal()));
    expect((error as ModelError).message).toBe(
      `Could not get an answer from Ollama at ${always.url} (the response stream ` +
        `ended before [DONE]); gave up after 3 attempts. Check that the server is ` +
        `running, and the provider's "baseUrl" in ~/.garuda/models.json.`,
    );
  });

  test("an error chunk mid-stream (OpenRouter's) is retried", async () => {
    await using mock = mockWith(
      {
        steps: [
          { type: "text", text: "par" },
          { type: "error", message: "Provider returned error", code: 502 },
        ],
      },
      { steps: [{ type: "text", text: "fine" }] },
    );
    const events = await collect(clientFor(mock).stream(request(), signal()));
    expect(ofType(events, "retry")[0]?.reason).toBe("502: Provider returned error");
    expect(end(events).content).toEqual([{ type: "text", text: "fine" }]);
  });

  test("a stalled stream is closed by the watchdog and asked again", async () => {
    await using mock = mockWith(
      { steps: [{ type: "text", text: "thinking…" }, { type: "hang" }] },
      { steps: [{ type: "text", text: "awake" }] },
    );
    const events = await within(
      collect(clientFor(mock, { idleTimeoutMs: 150 }).stream(request(), signal())),
      3000,
      "the stalled stream",
    );
    expect(ofType(events, "retry")[0]?.reason).toBe("the server sent nothing for 150 ms");
    expect(end(events).content).toEqual([{ type: "text", text: "awake" }]);
    await within(mock.requests[0]?.disconnected ?? Promise.resolve(), 2000, "closing the stalled request");
  });

  test("abort closes the request at once and throws an AbortError", async () => {
    await using mock = mockWith({ steps: [{ type: "text", text: "Starting" }, { type: "hang" }] });
    const controller = new AbortController();
    const iterator = clientFor(mock).stream(request(), controller.signal)[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value).toEqual({ type: "text_delta", text: "Starting" });
    const pending = iterator.next();
    controller.abort();
    const error = await within(
      pending.then(
        () => undefined,
        (e: unknown) => e,
      ),
      1000,
      "the abort",
    );
    expect((error as Error).name).toBe("AbortError");
    await within(mock.requests[0]?.disconnected ?? Promise.resolve(), 2000, "the server seeing the client leave");
  });

  test("abort during the wait for a retry ends it at once", async () => {
    await using mock = mockWith({ status: 429, retryAfter: 60 });
    const controller = new AbortController();
    const iterator = clientFor(mock).stream(request(), controller.signal)[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: "retry", delayMs: 60_000 });
    const pending = iterator.next();
    controller.abort();
    const error = await within(
      pending.then(
        () => undefined,
        (e: unknown) => e,
      ),
      1000,
      "the abort",
    );
    expect((error as Error).name).toBe("AbortError");
  });

  test("a local server that is not running: at once, no retries, with how to start it", async () => {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const port = server.port;
    await server.stop(true);
    const { events, error } = await settle(
      createOpenAICompatibleClient({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        provider: ollama,
        retry: FAST_RETRY,
      }).stream(request(), signal()),
    );
    expect(events).toEqual([]);
    expect((error as ModelError).message).toBe(
      `Ollama is not running at http://127.0.0.1:${port} — start it with \`ollama serve\`.`,
    );
  });

  test(
    "errors say what to do: a refused key, a keyless server asking for one, an " +
      "unknown model, a model without tools",
    async () => {
      const openrouter = BUILTIN_PROVIDERS.openrouter as NonNullable<(typeof BUILTIN_PROVIDERS)["openrouter"]>;
      await using keyed = startMockOpenAI({ apiKey: "right" });
      const refused = await settle(
        clientFor(keyed, { apiKey: "wrong", provider: openrouter }).stream(request(), signal()),
      );
      expect((refused.error as ModelError).message).toBe(
        "OpenRouter did not accept the key (401 invalid_request_error: Incorrect API " +
          "key provided). Check OPENROUTER_API_KEY, or run `garuda setup` to store a " +
          "valid key.",
      );
      const keyless = await settle(clientFor(keyed).stream(request(), signal()));
      expect((keyless.error as ModelError).message).toContain(
        "Ollama asks for a key (401 invalid_request_error: Incorrect API key provided). " +
          'Name the variable that holds it as "apiKeyEnv" of the provider "ollama"',
      );

      await using mock = mockWith(
        { status: 404, message: 'model "nope" not found, try pulling it first' },
        { status: 400, message: "registry.ollama.ai/library/gemma:2b does not support tools" },
        { status: 400, message: "the request exceeds the available context size, try increasing it" },
      );
      const missing = await settle(clientFor(mock).stream(request({ model: "nope" }), signal()));
      expect((missing.error as ModelError).message).toContain('Ollama does not know the model "nope"');
      expect((missing.error as ModelError).message).toContain("try pulling it first");
      const noTools = await settle(
        clientFor(mock).stream(request({ model: "gemma:2b", tools: [READ_SPEC] }), signal()),
      );
      expect((noTools.error as ModelError).message).toContain(
        'set "textToolCalls": true for "ollama/gemma:2b" under "models" in ~/.garuda/models.json',
      );
      const tooLong = await settle(clientFor(mock).stream(request(), signal()));
      expect((tooLong.error as ModelError).message).toContain("The request does not fit in the model's context");
    },
  );

  test("a server that rejects stream_options is asked again without it, and usage is estimated", async () => {
    await using mock = mockWith(
      { status: 400, message: "Unrecognized request argument supplied: stream_options" },
      { steps: [{ type: "text", text: "hi" }] },
      { steps: [{ type: "text", text: "again" }] },
    );
    const client = clientFor(mock);
    const events = await collect(client.stream(request(), signal()));
    expect(ofType(events, "retry")).toEqual([]);
    expect(end(events).usage.estimated).toBe(true);
    await collect(client.stream(request(), signal()));
    expect(mock.requests.map((sent) => sent.body.stream_options)).toEqual([
      { include_usage: true },
      undefined,
      undefined,
    ]);
  });

  test("error bodies of the usual servers are read", () => {
    expect(errorDetails('{"error":{"message":"bad","type":"invalid_request_error","code":null}}')).toEqual({
      message: "bad",
      errorType: "invalid_request_error",
    });
    expect(errorDetails('{"error":"model not found"}')).toEqual({ message: "model not found" });
    expect(errorDetails('{"object":"error","message":"too long","type":"BadRequestError","code":400}')).toEqual({
      message: "too long",
      errorType: "BadRequestError",
    });
    expect(errorDetails('{"detail":"Not Found"}')).toEqual({ message: "Not Found" });
    expect(errorDetails("<html><body>Bad Gateway</body></html>")).toEqual({ message: "Bad Gateway" });
  });
});

describe("text tool calls (models.json textToolCalls)", () => {
  test(
    "the tools go into the system prompt, a fenced call becomes a tool_use, the " + "text around it streams on",
    async () => {
      const reply = 'I will read it.\n```tool_call\n{"name": "read_file", "arguments": {"path": "notes.md"}}\n```\n';
      await using mock = mockWith({ steps: [{ type: "text", text: reply, fragments: 17 }] });
      const events = await collect(
        clientFor(mock, { textToolCalls: true }).stream(request({ tools: [READ_SPEC] }), signal()),
      );

      expect(texts(events).join("")).toBe("I will read it.\n");
      const [call] = ofType(events, "tool_use");
      expect(call).toMatchObject({ name: "read_file", input: { path: "notes.md" } });
      expect(end(events)).toMatchObject({
        stopReason: "tool_use",
        content: [
          { type: "text", text: "I will read it.\n" },
          { type: "tool_use", name: "read_file", input: { path: "notes.md" } },
        ],
      });

      const body = mock.requests[0]?.body;
      expect(body.tools).toBeUndefined();
      expect(body.stop).toEqual(["<tool_result"]);
      expect(body.messages[0].role).toBe("system");
      expect(body.messages[0].content).toStartWith("You are Garuda, a coding agent.\n\n# Calling tools");
      expect(body.messages[0].content).toContain(
        '```tool_call\n{"name": "TOOL_NAME", "arguments": {"ARGUMENT": "VALUE"}}\n```',
      );
      expect(body.messages[0].content).toContain(
        `## read_file\n\nReads a file.\n\nInput schema: ${JSON.stringify(READ_SPEC.inputSchema)}`,
      );
    },
  );

  test("a malformed fenced call becomes a call the registry answers with how to write it", async () => {
    const reply = 'Let me look.\n```tool_call\n{"name": "read_file", "arguments": {"path": "a.md"}\n```\nDone?';
    await using mock = mockWith({ steps: [{ type: "text", text: reply, fragments: 9 }] });
    const events = await collect(
      clientFor(mock, { textToolCalls: true }).stream(request({ tools: [READ_SPEC] }), signal()),
    );
    expect(texts(events).join("")).toBe("Let me look.\nDone?");
    const [call] = ofType(events, "tool_use");
    expect(call?.name).toBe(INVALID_TOOL_CALL);
    const input = call?.input as InvalidToolCallInput;
    expect(input.error).toStartWith("Your tool_call block could not be read: its JSON is not valid");
    expect(input.raw).toBe('```tool_call\n{"name": "read_file", "arguments": {"path": "a.md"}\n```');

    const outcome = await registryOutcome(call as { id: string; name: string; input: unknown });
    expect(outcome.output).toStartWith("Error: Your tool_call block could not be read: its JSON is not valid");
    expect(outcome.output).toContain('Write the call again as\n```tool_call\n{"name": "TOOL_NAME"');
    expect(outcome.output).toContain("The tools are: read_file.");
    expect(outcome.output).toEndWith("Nothing was run.");
  });

  test(
    "the history goes back as text: calls as blocks (a broken one as written), " + "results as <tool_result> blocks",
    async () => {
      const invalid: InvalidToolCallInput = { error: "bad", raw: '```tool_call\n{"name": oops}\n```' };
      const messages: Message[] = [
        { role: "user", content: [{ type: "text", text: "Read a.md" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Reading." },
            { type: "tool_use", id: "c1", name: "read_file", input: { path: "a.md" } },
            { type: "tool_use", id: "c2", name: INVALID_TOOL_CALL, input: invalid },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", toolUseId: "c1", content: "# A", isError: false },
            { type: "tool_result", toolUseId: "c2", content: "Error: bad", isError: true },
          ],
        },
      ];
      const body = toOpenAIRequest(request({ messages, tools: [READ_SPEC] }), {
        textToolCalls: true,
        includeUsage: true,
      });
      expect(body.messages.slice(1)).toEqual([
        { role: "user", content: "Read a.md" },
        {
          role: "assistant",
          content:
            'Reading.\n\n```tool_call\n{"name":"read_file","arguments":{"path":"a.md"}}\n```\n\n' +
            '```tool_call\n{"name": oops}\n```',
        },
        {
          role: "user",
          content:
            '<tool_result name="read_file">\n# A\n</tool_result>\n\n<tool_result ' +
            'name="__invalid_tool_call">\nError: bad\n</tool_result>',
        },
      ]);
    },
  );

  test("the parser: fences split anywhere, several calls, strings with braces and backticks, an unclosed block", () => {
    const stream = (text: string, size: number): TextPiece[] => {
      let n = 0;
      const parser = new TextToolCallParser(() => `id${++n}`);
      const pieces: TextPiece[] = [];
      for (let i = 0; i < text.length; i += size) pieces.push(...parser.push(text.slice(i, i + size)));
      pieces.push(...parser.finish());
      return pieces;
    };
    const summary = (pieces: TextPiece[]) => {
      const out: Array<string | { name: string; input: unknown }> = [];
      for (const piece of pieces) {
        if (piece.type === "tool_use") out.push({ name: piece.block.name, input: piece.block.input });
        else if (typeof out.at(-1) === "string") out[out.length - 1] += piece.text;
        else out.push(piece.text);
      }
      return out;
    };
    const content = "```ts\nconst a = { b: 1 };\n```";
    const text = [
      "First ``` not a call.",
      "```tool_call",
      JSON.stringify({ name: "write_file", arguments: { path: "x.md", content } }),
      "```",
      "Between.",
      '```tool_call json\n{"name": "grep", "arguments": "{\\"pattern\\": \\"}\\"}"}```',
      "End.",
    ].join("\n");
    for (const size of [1, 2, 3, 7, 1000]) {
      expect(summary(stream(text, size))).toEqual([
        "First ``` not a call.\n",
        { name: "write_file", input: { path: "x.md", content } },
        "Between.\n",
        { name: "grep", input: { pattern: "}" } },
        "End.",
      ]);
    }
    // The closing fence may be missing at the very end (a stop sequence, say).
    expect(summary(stream('Go.\n```tool_call\n{"name": "grep", "arguments": {"pattern": "a"}}\n', 4))).toEqual([
      "Go.\n",
      { name: "grep", input: { pattern: "a" } },
    ]);
    const unclosed = stream('```tool_call\n{"name": "grep", "arguments": {"pattern": ', 5);
    expect(unclosed).toHaveLength(1);
    expect(unclosed[0]?.type === "tool_use" && (unclosed[0].block.input as InvalidToolCallInput).error).toContain(
      "the block was not closed with ```, and its JSON is not valid",
    );
    const nameless = stream('```tool_call\n{"arguments": {}}\n```', 3);
    expect(nameless[0]?.type === "tool_use" && (nameless[0].block.input as InvalidToolCallInput).error).toContain(
      'the object has no "name"',
    );
  });

  test("the section lists every tool with its schema", () => {
    const section = textToolSection([READ_SPEC, GREP_SPEC]);
    expect(section).toContain("## read_file");
    expect(section).toContain("## grep");
    expect(section).toContain("After your tool_call blocks, end your answer.");
  });
});

describe("SSE reading", () => {
  test("CRLF line ends, comments, multi-line data, and a last event without its blank line", async () => {
    const body = new Response(': keep-alive\r\n\r\ndata: {"a":\r\ndata: 1}\r\n\r\nevent: x\ndata: two\n\ndata: last')
      .body as ReadableStream<Uint8Array>;
    let bytes = 0;
    const events = [];
    for await (const event of sseEvents(body, () => bytes++)) events.push(event);
    expect(events).toEqual([
      { event: undefined, data: '{"a":\n1}' },
      { event: "x", data: "two" },
      { event: undefined, data: "last" },
    ]);
    expect(bytes).toBeGreaterThan(0);
  });
});

describe("openModelClient", () => {
  test(
    "an openai-compatible connection streams from its base URL, keyless, with the " + "model's textToolCalls",
    async () => {
      await using mock = mockWith({
        steps: [{ type: "text", text: '```tool_call\n{"name": "grep", "arguments": {"pattern": "x"}}\n```' }],
      });
      const client = await openModelClient({ provider: ollama, baseUrl: mock.url, model: { textToolCalls: true } });
      const events = await collect(client.stream(request({ tools: [GREP_SPEC] }), signal()));
      expect(ofType(events, "tool_use")[0]).toMatchObject({ name: "grep", input: { pattern: "x" } });
      expect(mock.requests[0]?.headers.authorization).toBeUndefined();
      expect(mock.requests[0]?.body.tools).toBeUndefined();
    },
  );
});

describe("the mock server", () => {
  test("standalone: prints its URL, serves the script in a loop, lists its models, records requests", async () => {
    using dir = tempDir("garuda-mock-openai-");
    const script = join(dir.path, "script.json");
    const record = join(dir.path, "requests.jsonl");
    await Bun.write(
      script,
      JSON.stringify({
        responses: [{ steps: [{ type: "text", text: "Hello", fragments: 2 }] }],
        loop: true,
        models: ["qwen3:8b"],
      }),
    );
    const child = Bun.spawn(
      [process.execPath, join(import.meta.dir, "../support/mockOpenAI.ts"), "--script", script, "--record", record],
      { stdout: "pipe", stderr: "pipe" },
    );
    try {
      const reader = child.stdout.getReader();
      let output = "";
      while (!output.includes("\n")) {
        const chunk = await reader.read();
        if (chunk.done) throw new Error(`mock exited early: ${await new Response(child.stderr).text()}`);
        output += new TextDecoder().decode(chunk.value);
      }
      const url = output.trim();
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(await (await fetch(`${url}/models`)).json()).toMatchObject({ data: [{ id: "qwen3:8b" }] });
      for (const round of [1, 2]) {
        const response = await fetch(`${url}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: `round ${round}` }] }),
        });
        expect(response.headers.get("content-type")).toContain("text/event-stream");
        const frames = (await response.text()).split("\n\n").filter(Boolean);
        expect(frames.at(-1)).toBe("data: [DONE]");
        const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.slice("data: ".length)));
        expect(chunks.map((chunk) => chunk.choices[0].delta.content ?? null)).toEqual(["", "He", "llo", null]);
        expect(chunks.at(-1).choices[0].finish_reason).toBe("stop");
      }
      const { readFileSync } = await import("node:fs");
      const lines = readFileSync(record, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(lines.map((line) => line.path)).toEqual(["/v1/models", "/v1/chat/completions", "/v1/chat/completions"]);
    } finally {
      child.kill("SIGTERM");
      await child.exited;
    }
  });
});
