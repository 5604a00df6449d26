import { describe, expect, test } from "bun:test";
import { type AnthropicClientOptions, catchingWarnings, createAnthropicClient } from "../../src/model/anthropic.ts";
import type { AssistantBlock, Message, ModelEvent, ModelRequest, ModelStopReason } from "../../src/model/types.ts";
import { ModelError } from "../../src/model/types.ts";
import { type MockAnthropic, type MockResponse, mockResponses, startMockAnthropic } from "../support/mockAnthropic.ts";

const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 };

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "claude-sonnet-5",
    system: "You are Garuda, a coding agent.",
    messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }],
    tools: [],
    maxTokens: 1024,
    ...overrides,
  };
}

function clientFor(mock: MockAnthropic, options: AnthropicClientOptions = {}) {
  return createAnthropicClient({ apiKey: "sk-ant-test", baseUrl: mock.url, retry: FAST_RETRY, ...options });
}

async function collect(iterable: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

/** Runs the stream to its end; returns what it yielded and what it threw. */
async function settle(iterable: AsyncIterable<ModelEvent>): Promise<{ events: ModelEvent[]; error: unknown }> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of iterable) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

function end(events: ModelEvent[]): Extract<ModelEvent, { type: "message_end" }> {
  const last = events.at(-1);
  if (last?.type !== "message_end") throw new Error(`stream did not end with message_end: ${JSON.stringify(last)}`);
  return last;
}

function mockWith(...script: MockResponse[]): MockAnthropic {
  return startMockAnthropic({ script });
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    Bun.sleep(ms).then(() => Promise.reject(new Error(`${what} took longer than ${ms} ms`))),
  ]);
}

const signal = () => new AbortController().signal;

describe("streaming", () => {
  test("streams text in fragments and ends with the whole message", async () => {
    await using mock = mockWith({ steps: [{ type: "text", text: "Hello from Claude!", fragments: 4 }] });
    const events = await collect(clientFor(mock).stream(request(), signal()));

    const deltas = events
      .filter((event) => event.type === "text_delta")
      .map((event) => (event as { text: string }).text);
    expect(deltas.length).toBe(4);
    expect(deltas.join("")).toBe("Hello from Claude!");
    expect(end(events)).toEqual({
      type: "message_end",
      stopReason: "end_turn",
      content: [{ type: "text", text: "Hello from Claude!" }],
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
    });

    const sent = mock.requests[0];
    expect(sent?.path).toBe("/v1/messages");
    expect(sent?.body.stream).toBe(true);
    expect(sent?.body.model).toBe("claude-sonnet-5");
    expect(sent?.body.max_tokens).toBe(1024);
    expect(sent?.body.system).toEqual([
      { type: "text", text: "You are Garuda, a coding agent.", cache_control: { type: "ephemeral" } },
    ]);
    expect(sent?.body.tools).toBeUndefined();
    expect(sent?.body.thinking).toBeUndefined();
  });

  test("passes thinking back with its signature byte for byte, and redacted thinking as is", async () => {
    const thinking = 'Let me think… the user wants 🦅 — "quoted" and \\ escaped\nnew line.';
    const signature = "EqQBCkgIARABGAIiQL+/=9vPJr0aa/b+Z==";
    await using mock = mockWith(
      {
        steps: [
          { type: "thinking", thinking, signature, fragments: 7 },
          { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4a" },
          { type: "text", text: "Done." },
        ],
      },
      { steps: [{ type: "text", text: "Second answer." }] },
    );
    const client = clientFor(mock);
    const first = await collect(client.stream(request({ thinking: "adaptive" }), signal()));

    const thoughts = first
      .filter((event) => event.type === "thinking_delta")
      .map((event) => (event as { text: string }).text);
    expect(thoughts.join("")).toBe(thinking);
    const message = end(first);
    expect(message.content).toEqual([
      { type: "thinking", thinking, signature },
      { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4a" },
      { type: "text", text: "Done." },
    ]);

    const history: Message[] = [
      { role: "user", content: [{ type: "text", text: "Hello" }] },
      { role: "assistant", content: message.content },
      { role: "user", content: [{ type: "text", text: "And now?" }] },
    ];
    await collect(client.stream(request({ thinking: "adaptive", messages: history }), signal()));
    const body = mock.requests[1]?.body;
    expect(body.thinking).toEqual({ type: "adaptive" });
    const passedBack = body.messages[1].content;
    expect(JSON.stringify(passedBack[0])).toBe(JSON.stringify({ type: "thinking", thinking, signature }));
    expect(JSON.stringify(passedBack[1])).toBe(
      JSON.stringify({ type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4a" }),
    );
  });

  test("assembles a tool_use input from JSON fragments", async () => {
    const input = { path: "src/main.ts", lines: [1, 20], options: { follow: true, note: "ünïcode ✓" } };
    await using mock = mockWith({
      steps: [
        { type: "text", text: "I'll read it." },
        { type: "tool_use", id: "toolu_01", name: "read_file", input, fragments: 9 },
      ],
    });
    const events = await collect(clientFor(mock).stream(request(), signal()));

    expect(events.map((event) => event.type)).toEqual(["text_delta", "tool_use", "message_end"]);
    expect(events[1]).toEqual({ type: "tool_use", id: "toolu_01", name: "read_file", input });
    const message = end(events);
    expect(message.stopReason).toBe("tool_use");
    expect(message.content).toEqual([
      { type: "text", text: "I'll read it." },
      { type: "tool_use", id: "toolu_01", name: "read_file", input },
    ]);
  });

  test("a tool_use without input deltas gets {} as input", async () => {
    await using mock = mockWith({ steps: [{ type: "tool_use", id: "toolu_empty", name: "list_files" }] });
    const events = await collect(clientFor(mock).stream(request(), signal()));
    expect(events[0]).toEqual({ type: "tool_use", id: "toolu_empty", name: "list_files", input: {} });
  });

  test("two tool calls in one response come in order", async () => {
    await using mock = mockWith({
      steps: [
        { type: "tool_use", id: "toolu_a", name: "read_file", input: { path: "a.ts" }, fragments: 3 },
        { type: "tool_use", id: "toolu_b", name: "grep", input: { pattern: "TODO", glob: "**/*.ts" }, fragments: 5 },
      ],
    });
    const events = await collect(clientFor(mock).stream(request(), signal()));
    const calls = events.filter((event) => event.type === "tool_use");
    expect(calls).toEqual([
      { type: "tool_use", id: "toolu_a", name: "read_file", input: { path: "a.ts" } },
      { type: "tool_use", id: "toolu_b", name: "grep", input: { pattern: "TODO", glob: "**/*.ts" } },
    ]);
    expect(end(events).content).toHaveLength(2);
    expect(end(events).stopReason).toBe("tool_use");
  });

  test("server web search: events, opaque result, and the blocks sent back unchanged", async () => {
    const results = [
      {
        type: "web_search_result",
        url: "https://bun.sh/docs",
        title: "Bun docs",
        encrypted_content: "Eo8BCioIAhgBIiQ",
        page_age: "2 days ago",
      },
    ];
    await using mock = mockWith(
      {
        steps: [
          { type: "server_tool_use", id: "srvtoolu_1", input: { query: "bun serve idleTimeout" }, fragments: 3 },
          { type: "web_search_result", content: results },
          { type: "text", text: "Bun's idleTimeout defaults to 10 seconds." },
        ],
        usage: { input_tokens: 50, output_tokens: 30 },
      },
      { steps: [{ type: "text", text: "ok" }] },
    );
    const client = clientFor(mock);
    const webSearch = { maxUses: 3, allowedDomains: ["bun.sh", "developer.mozilla.org"] };
    const events = await collect(client.stream(request({ webSearch }), signal()));

    expect(events[0]).toEqual({
      type: "server_tool_use",
      id: "srvtoolu_1",
      name: "web_search",
      input: { query: "bun serve idleTimeout" },
    });
    expect(events[1]).toEqual({
      type: "server_tool_result",
      toolUseId: "srvtoolu_1",
      blockType: "web_search_tool_result",
      content: results,
    });
    const message = end(events);
    expect(message.stopReason).toBe("end_turn");
    expect(message.content.map((block) => block.type)).toEqual(["server_tool_use", "server_tool_result", "text"]);

    expect(mock.requests[0]?.body.tools).toEqual([
      {
        type: "web_search_20260318",
        name: "web_search",
        max_uses: 3,
        allowed_domains: ["bun.sh", "developer.mozilla.org"],
        cache_control: { type: "ephemeral" },
      },
    ]);

    const history: Message[] = [
      { role: "user", content: [{ type: "text", text: "Hello" }] },
      { role: "assistant", content: message.content },
      { role: "user", content: [{ type: "text", text: "thanks" }] },
    ];
    await collect(client.stream(request({ webSearch, messages: history }), signal()));
    expect(mock.requests[1]?.body.messages[1].content.slice(0, 2)).toEqual([
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "bun serve idleTimeout" } },
      { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: results },
    ]);
  });

  test("blocked domains map onto the web search tool", async () => {
    await using mock = mockWith({ steps: [{ type: "text", text: "ok" }] });
    await collect(clientFor(mock).stream(request({ webSearch: { blockedDomains: ["example.com"] } }), signal()));
    expect(mock.requests[0]?.body.tools[0]).toEqual({
      type: "web_search_20260318",
      name: "web_search",
      blocked_domains: ["example.com"],
      cache_control: { type: "ephemeral" },
    });
  });

  test("usage counts input, output and both cache counts", async () => {
    await using mock = mockWith({
      steps: [{ type: "text", text: "cached" }],
      usage: { input_tokens: 12, output_tokens: 345, cache_read_input_tokens: 9000, cache_creation_input_tokens: 1500 },
    });
    const events = await collect(clientFor(mock).stream(request(), signal()));
    expect(end(events).usage).toEqual({
      inputTokens: 12,
      outputTokens: 345,
      cacheReadTokens: 9000,
      cacheCreationTokens: 1500,
    });
  });

  test("usage from message_start is merged with an output-only message_delta", async () => {
    await using mock = mockWith({
      steps: [{ type: "text", text: "merged" }],
      usage: { input_tokens: 40, output_tokens: 77, cache_read_input_tokens: 300, cache_creation_input_tokens: 20 },
      deltaUsage: "output_only",
    });
    const events = await collect(clientFor(mock).stream(request(), signal()));
    expect(end(events).usage).toEqual({
      inputTokens: 40,
      outputTokens: 77,
      cacheReadTokens: 300,
      cacheCreationTokens: 20,
    });
  });

  const STOP_REASONS: ModelStopReason[] = [
    "end_turn",
    "tool_use",
    "max_tokens",
    "stop_sequence",
    "refusal",
    "pause_turn",
    "model_context_window_exceeded",
  ];
  for (const stopReason of STOP_REASONS) {
    test(`stop reason ${stopReason} reaches message_end`, async () => {
      await using mock = mockWith({ steps: [{ type: "text", text: `stopping: ${stopReason}` }], stopReason });
      const events = await collect(clientFor(mock).stream(request(), signal()));
      expect(end(events).stopReason).toBe(stopReason);
      expect(end(events).content).toEqual([{ type: "text", text: `stopping: ${stopReason}` }]);
    });
  }

  test("a refusal ends the message with its partial text and is not retried", async () => {
    await using mock = mockWith({
      steps: [{ type: "text", text: "I can't help with that.", fragments: 2 }],
      stopReason: "refusal",
    });
    const events = await collect(clientFor(mock).stream(request(), signal()));
    expect(events.some((event) => event.type === "retry")).toBe(false);
    expect(end(events).stopReason).toBe("refusal");
    expect(end(events).content).toEqual([{ type: "text", text: "I can't help with that." }]);
    expect(mock.requests).toHaveLength(1);
  });

  test("a tool_use cut off by max_tokens is left out instead of failing", async () => {
    await using mock = mockWith({
      steps: [
        { type: "text", text: "Writing the file." },
        {
          type: "tool_use",
          id: "toolu_cut",
          name: "write_file",
          json: '{"path": "a.ts", "content": "export const',
          fragments: 4,
        },
      ],
      stopReason: "max_tokens",
    });
    const events = await collect(clientFor(mock).stream(request(), signal()));
    expect(events.some((event) => event.type === "tool_use")).toBe(false);
    expect(end(events).stopReason).toBe("max_tokens");
    expect(end(events).content).toEqual([{ type: "text", text: "Writing the file." }]);
  });

  test("tool input that is not JSON, in a finished response, is a ModelError", async () => {
    await using mock = mockWith({ steps: [{ type: "tool_use", id: "toolu_bad", name: "edit", json: "{not json}" }] });
    const { error } = await settle(clientFor(mock).stream(request(), signal()));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toContain('tool "edit"');
    expect(mock.requests).toHaveLength(1);
  });

  test("pings and unknown events are ignored", async () => {
    await using mock = mockWith({
      steps: [
        { type: "ping" },
        { type: "event", event: "future_event", data: { type: "future_event", payload: 1 } },
        { type: "text", text: "still fine" },
        { type: "ping" },
      ],
    });
    const events = await collect(clientFor(mock).stream(request(), signal()));
    expect(events.map((event) => event.type)).toEqual(["text_delta", "message_end"]);
    expect(end(events).content).toEqual([{ type: "text", text: "still fine" }]);
  });
});

describe("request mapping", () => {
  test("tools, thinking budget, tool results and their errors", async () => {
    await using mock = mockWith({ steps: [{ type: "text", text: "ok" }] });
    const tools = [
      {
        name: "read_file",
        description: "Read a file",
        inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      },
      {
        name: "bash",
        description: "Run a command",
        inputSchema: { type: "object", properties: { command: { type: "string" } } },
      },
    ];
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "Check two files" }] },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a" } },
          { type: "tool_use", id: "toolu_2", name: "read_file", input: { path: "b" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", toolUseId: "toolu_1", content: "contents of a", isError: false },
          { type: "tool_result", toolUseId: "toolu_2", content: "ENOENT: no such file", isError: true },
        ],
      },
    ];
    await collect(
      clientFor(mock).stream(request({ tools, messages, thinking: { budgetTokens: 4096 }, maxTokens: 8192 }), signal()),
    );
    const body = mock.requests[0]?.body;
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
    expect(body.tools).toEqual([
      { name: "read_file", description: "Read a file", input_schema: tools[0]?.inputSchema },
      {
        name: "bash",
        description: "Run a command",
        input_schema: tools[1]?.inputSchema,
        cache_control: { type: "ephemeral" },
      },
    ]);
    expect(body.messages[1].content).toEqual([
      { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a" } },
      { type: "tool_use", id: "toolu_2", name: "read_file", input: { path: "b" } },
    ]);
    expect(body.messages[2].content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: "contents of a" },
      {
        type: "tool_result",
        tool_use_id: "toolu_2",
        content: "ENOENT: no such file",
        is_error: true,
        cache_control: { type: "ephemeral" },
      },
    ]);
  });

  test("cache breakpoints: last tool, system, last block of the latest message; three in all", async () => {
    await using mock = mockWith({ steps: [{ type: "text", text: "ok" }] });
    const tools = [
      { name: "a", description: "A", inputSchema: { type: "object" } },
      { name: "b", description: "B", inputSchema: { type: "object" } },
    ];
    await collect(clientFor(mock).stream(request({ tools, webSearch: { maxUses: 1 } }), signal()));
    const body = mock.requests[0]?.body;
    const raw = JSON.stringify(body);
    expect(raw.match(/"cache_control"/g)).toHaveLength(3);
    expect(body.tools.map((tool: { cache_control?: unknown }) => tool.cache_control)).toEqual([
      undefined,
      undefined,
      { type: "ephemeral" },
    ]);
    expect(body.system[0].cache_control).toEqual({ type: "ephemeral" });
    expect(body.messages[0].content[0].cache_control).toEqual({ type: "ephemeral" });
  });

  test("no breakpoint lands on a thinking block: the last cacheable block takes it", async () => {
    await using mock = mockWith({ steps: [{ type: "text", text: "continued" }] });
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "Hello" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Partial answer" },
          { type: "thinking", thinking: "more thoughts", signature: "sig" },
          { type: "redacted_thinking", data: "opaque" },
        ],
      },
    ];
    await collect(clientFor(mock).stream(request({ messages }), signal()));
    const latest = mock.requests[0]?.body.messages[1].content;
    expect(latest[0].cache_control).toEqual({ type: "ephemeral" });
    expect(latest[1].cache_control).toBeUndefined();
    expect(latest[2].cache_control).toBeUndefined();
    expect(mock.requests[0]?.body.messages[0].content[0].cache_control).toBeUndefined();
  });

  test("two steps of one turn share a byte-identical prefix", async () => {
    await using mock = mockWith(
      {
        steps: [
          { type: "thinking", thinking: "I should list files", signature: "c2lnbmF0dXJl" },
          { type: "tool_use", id: "toolu_ls", name: "ls", input: { path: "." } },
        ],
      },
      { steps: [{ type: "text", text: "There are two files." }] },
    );
    const client = clientFor(mock);
    const tools = [
      {
        name: "ls",
        description: "List files",
        inputSchema: { type: "object", properties: { path: { type: "string" } } },
      },
      {
        name: "read_file",
        description: "Read a file",
        inputSchema: { type: "object", properties: { path: { type: "string" } } },
      },
    ];
    const first = request({ tools, thinking: "adaptive" });
    const answer = end(await collect(client.stream(first, signal())));
    const second = request({
      tools,
      thinking: "adaptive",
      messages: [
        ...first.messages,
        { role: "assistant", content: answer.content },
        {
          role: "user",
          content: [{ type: "tool_result", toolUseId: "toolu_ls", content: "a.ts\nb.ts", isError: false }],
        },
      ],
    });
    await collect(client.stream(second, signal()));

    const [one, two] = [mock.requests[0]?.body, mock.requests[1]?.body];
    expect(JSON.stringify(two.tools)).toBe(JSON.stringify(one.tools));
    expect(JSON.stringify(two.system)).toBe(JSON.stringify(one.system));
    expect(JSON.stringify(two.thinking)).toBe(JSON.stringify(one.thinking));
    const withoutBreakpoints = (value: unknown) =>
      JSON.stringify(value, (key, inner) => (key === "cache_control" ? undefined : inner));
    expect(withoutBreakpoints(two.messages[0])).toBe(withoutBreakpoints(one.messages[0]));
    expect(two.messages[1].content[0]).toEqual({
      type: "thinking",
      thinking: "I should list files",
      signature: "c2lnbmF0dXJl",
    });
    expect(two.messages[2].content[0].cache_control).toEqual({ type: "ephemeral" });
    expect(JSON.stringify(two).match(/"cache_control"/g)).toHaveLength(3);
  });
});

describe("connection settings", () => {
  test("the base URL is honoured, prefix included", async () => {
    await using mock = mockWith({ steps: [{ type: "text", text: "via gateway" }] });
    const client = createAnthropicClient({
      apiKey: "sk-ant-test",
      baseUrl: `${mock.url}/gateway/anthropic/`,
      retry: FAST_RETRY,
    });
    const events = await collect(client.stream(request(), signal()));
    expect(end(events).content).toEqual([{ type: "text", text: "via gateway" }]);
    expect(mock.requests[0]?.path).toBe("/gateway/anthropic/v1/messages");
  });

  test("explicit values win: ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY in the environment are not read", async () => {
    await using mock = mockWith({ steps: [{ type: "text", text: "one" }] }, { steps: [{ type: "text", text: "two" }] });
    process.env.ANTHROPIC_BASE_URL = "http://127.0.0.1:1/not-this-one";
    process.env.ANTHROPIC_API_KEY = "sk-from-environment";
    process.env.ANTHROPIC_AUTH_TOKEN = "token-from-environment";
    try {
      await collect(createAnthropicClient({ apiKey: "sk-explicit", baseUrl: mock.url }).stream(request(), signal()));
      await collect(
        createAnthropicClient({ authToken: "explicit-token", baseUrl: mock.url }).stream(request(), signal()),
      );
    } finally {
      delete process.env.ANTHROPIC_BASE_URL;
      delete process.env.ANTHROPIC_API_KEY;
      delete process.env.ANTHROPIC_AUTH_TOKEN;
    }
    expect(mock.requests[0]?.headers.authorization).toBe("Bearer sk-explicit");
    expect(mock.requests[1]?.headers.authorization).toBe("Bearer explicit-token");
    expect(JSON.stringify(mock.requests.map((sent) => sent.headers))).not.toContain("environment");
  });

  test("without credentials the stream fails with advice and sends nothing", async () => {
    await using mock = mockWith({ steps: [{ type: "text", text: "never" }] });
    const { error } = await settle(createAnthropicClient({ baseUrl: mock.url }).stream(request(), signal()));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toContain("ANTHROPIC_API_KEY");
    expect((error as Error).message).toContain("garuda setup");
    expect(mock.requests).toHaveLength(0);
  });
});

describe("retries", () => {
  test("429 with retry-after: a retry event first, the delay honoured, then the answer", async () => {
    await using mock = mockWith({ status: 429, retryAfter: 1 }, { steps: [{ type: "text", text: "after the wait" }] });
    const started = performance.now();
    const events = await collect(clientFor(mock).stream(request(), signal()));
    const elapsed = performance.now() - started;

    expect(events[0]).toEqual({
      type: "retry",
      attempt: 2,
      delayMs: 1000,
      reason: "429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit",
    });
    expect(end(events).content).toEqual([{ type: "text", text: "after the wait" }]);
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(mock.requests).toHaveLength(2);
    const gap = (mock.requests[1]?.receivedAt ?? 0) - (mock.requests[0]?.receivedAt ?? 0);
    expect(gap).toBeGreaterThanOrEqual(950);
  });

  test("retry-after-ms takes precedence over retry-after", async () => {
    await using mock = mockWith(
      { status: 429, retryAfter: 30, retryAfterMs: 120 },
      { steps: [{ type: "text", text: "ok" }] },
    );
    const events = await collect(clientFor(mock).stream(request(), signal()));
    expect(events[0]).toMatchObject({ type: "retry", attempt: 2, delayMs: 120 });
    const gap = (mock.requests[1]?.receivedAt ?? 0) - (mock.requests[0]?.receivedAt ?? 0);
    expect(gap).toBeGreaterThanOrEqual(110);
  });

  test("529 overloaded is retried with capped backoff", async () => {
    await using mock = mockWith({ status: 529 }, { status: 529 }, { steps: [{ type: "text", text: "finally" }] });
    const events = await collect(clientFor(mock).stream(request(), signal()));
    const retries = events.filter((event) => event.type === "retry");
    expect(retries).toHaveLength(2);
    expect(retries.map((event) => (event as { attempt: number }).attempt)).toEqual([2, 3]);
    for (const event of retries) {
      const { delayMs, reason } = event as { delayMs: number; reason: string };
      expect(reason).toBe("529 overloaded_error: Overloaded");
      expect(delayMs).toBeGreaterThan(0);
      expect(delayMs).toBeLessThanOrEqual(FAST_RETRY.maxDelayMs);
    }
    expect(end(events).content).toEqual([{ type: "text", text: "finally" }]);
    expect(mock.requests).toHaveLength(3);
  });

  test("an error event mid-stream is retried; the retry event comes after the partial text", async () => {
    await using mock = mockWith(
      {
        steps: [
          { type: "text", text: "Partial ans", fragments: 2 },
          { type: "error", errorType: "overloaded_error", message: "Overloaded" },
        ],
      },
      { steps: [{ type: "text", text: "Full answer." }] },
    );
    const events = await collect(clientFor(mock).stream(request(), signal()));
    expect(events.map((event) => event.type)).toEqual([
      "text_delta",
      "text_delta",
      "retry",
      "text_delta",
      "message_end",
    ]);
    expect(events[2]).toMatchObject({ type: "retry", attempt: 2, reason: "stream error overloaded_error: Overloaded" });
    expect(end(events).content).toEqual([{ type: "text", text: "Full answer." }]);
    expect(mock.requests).toHaveLength(2);
  });

  test("a response cut short (no message_stop) is retried", async () => {
    await using mock = mockWith(
      { steps: [{ type: "text", text: "Half" }, { type: "close" }] },
      { steps: [{ type: "text", text: "Whole" }] },
    );
    const events = await collect(clientFor(mock).stream(request(), signal()));
    expect(events.map((event) => event.type)).toEqual(["text_delta", "retry", "text_delta", "message_end"]);
    expect(events[1]).toMatchObject({ reason: "the response stream ended before message_stop" });
    expect(end(events).content).toEqual([{ type: "text", text: "Whole" }]);
  });

  test("a connection reset mid-stream is retried (through a custom fetch)", async () => {
    await using mock = mockWith(
      { steps: [{ type: "text", text: "Lost" }] },
      { steps: [{ type: "text", text: "Recovered" }] },
    );
    let calls = 0;
    const breakingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const response = await fetch(input, init);
      if (++calls > 1 || !response.body) return response;
      const reader = response.body.getReader();
      let sent = false;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent) {
            await reader.cancel();
            controller.error(new TypeError("ECONNRESET: The socket connection was closed unexpectedly"));
            return;
          }
          const chunk = await reader.read();
          if (chunk.value) controller.enqueue(chunk.value);
          sent = true;
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const events = await collect(clientFor(mock, { fetch: breakingFetch }).stream(request(), signal()));
    const retry = events.find((event) => event.type === "retry");
    expect(retry).toMatchObject({ attempt: 2 });
    expect((retry as { reason: string }).reason).toContain("ECONNRESET");
    expect(end(events).content).toEqual([{ type: "text", text: "Recovered" }]);
    expect(calls).toBe(2);
  });

  test("retries exhausted: a ModelError that says what happened and what to do", async () => {
    await using mock = mockWith(
      { status: 529 },
      { status: 529 },
      { status: 529 },
      { steps: [{ type: "text", text: "never reached" }] },
    );
    const { events, error } = await settle(clientFor(mock).stream(request(), signal()));
    expect(events.filter((event) => event.type === "retry")).toHaveLength(2);
    expect(error).toBeInstanceOf(ModelError);
    const modelError = error as ModelError;
    expect(modelError.status).toBe(529);
    expect(modelError.retryable).toBe(true);
    expect(modelError.message).toBe(
      "Anthropic is overloaded (529 overloaded_error: Overloaded); gave up after 3 " +
        "attempts. Try again in a few minutes, or switch to another model.",
    );
    expect(mock.requests).toHaveLength(3);
  });

  test("connection refused: retried, then an error naming the base URL", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const url = `http://127.0.0.1:${closed.port}`;
    await closed.stop(true);
    const client = createAnthropicClient({ apiKey: "sk-ant-test", baseUrl: url, retry: FAST_RETRY });
    const { events, error } = await settle(client.stream(request(), signal()));
    expect(events.map((event) => event.type)).toEqual(["retry", "retry"]);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toContain(`Could not get an answer from the Anthropic API at ${url}`);
    expect((error as Error).message).toContain("gave up after 3 attempts");
  });

  test("401 is not retried and the message names the key", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-right",
      script: [{ steps: [{ type: "text", text: "unused" }] }],
    });
    const { events, error } = await settle(clientFor(mock, { apiKey: "sk-ant-wrong" }).stream(request(), signal()));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).status).toBe(401);
    expect((error as ModelError).retryable).toBe(false);
    expect((error as Error).message).toBe(
      "Anthropic did not accept the credentials (401 authentication_error: invalid x-api-key). " +
        "Check ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or run `garuda setup` to store a valid key.",
    );
    expect(mock.requests).toHaveLength(1);
  });

  for (const [status, expected] of [
    [400, "invalid_request_error"],
    [403, "permission_error"],
    [404, "not_found_error"],
  ] as const) {
    test(`${status} is not retried`, async () => {
      await using mock = mockWith({ status }, { steps: [{ type: "text", text: "unused" }] });
      const { events, error } = await settle(clientFor(mock).stream(request(), signal()));
      expect(events).toEqual([]);
      expect((error as ModelError).status).toBe(status);
      expect((error as Error).message).toContain(`${status} ${expected}`);
      expect(mock.requests).toHaveLength(1);
    });
  }

  test("x-should-retry: false stops a retry the status would allow", async () => {
    await using mock = mockWith(
      { status: 500, headers: { "x-should-retry": "false" } },
      { steps: [{ type: "text", text: "unused" }] },
    );
    const { events, error } = await settle(clientFor(mock).stream(request(), signal()));
    expect(events).toEqual([]);
    expect((error as Error).message).toContain("500 api_error: Internal server error");
    expect(mock.requests).toHaveLength(1);
  });
});

describe("stalled streams", () => {
  test("a response that goes silent is closed and retried, the partial answer voided", async () => {
    await using mock = mockWith(
      { steps: [{ type: "text", text: "half an ans" }, { type: "hang" }] },
      { steps: [{ type: "text", text: "the whole answer" }] },
    );
    const events = await collect(clientFor(mock, { idleTimeoutMs: 150 }).stream(request(), signal()));
    expect(events[0]).toEqual({ type: "text_delta", text: "half an ans" });
    expect(events[1]).toMatchObject({ type: "retry", attempt: 2, reason: expect.stringContaining("sent nothing for") });
    expect(end(events).content).toEqual([{ type: "text", text: "the whole answer" }]);
    await within(
      mock.requests[0]?.disconnected ?? Promise.reject(new Error("no request")),
      500,
      "the stalled request being closed",
    );
  });

  test("negative control: without the watchdog firing, a slow but live stream is not cut", async () => {
    await using mock = mockWith({ steps: [{ type: "text", text: "slow but steady", fragments: 3 }], delayMs: 60 });
    const events = await collect(clientFor(mock, { idleTimeoutMs: 150 }).stream(request(), signal()));
    expect(events.some((event) => event.type === "retry")).toBe(false);
    expect(end(events).content).toEqual([{ type: "text", text: "slow but steady" }]);
  });
});

describe("abort", () => {
  test("abort mid-stream closes the request at once and the iterator throws AbortError", async () => {
    await using mock = mockWith({ steps: [{ type: "text", text: "Thinking out loud" }, { type: "hang" }] });
    const controller = new AbortController();
    const iterator = clientFor(mock).stream(request(), controller.signal)[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ type: "text_delta", text: "Thinking out loud" });
    const pending = iterator.next();
    await Bun.sleep(30);

    const started = performance.now();
    controller.abort();
    const error = await pending.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe("AbortError");
    expect(performance.now() - started).toBeLessThan(200);
    await within(
      mock.requests[0]?.disconnected ?? Promise.reject(new Error("no request")),
      200,
      "the server seeing the disconnect",
    );
    expect(mock.requests[0]?.disconnectedAt).toBeNumber();
  });

  test("abort between events (consumer busy) still closes the request and ends with AbortError", async () => {
    await using mock = mockWith({ steps: [{ type: "text", text: "one two three", fragments: 3 }, { type: "hang" }] });
    const controller = new AbortController();
    const seen: ModelEvent[] = [];
    let thrown: unknown;
    try {
      for await (const event of clientFor(mock).stream(request(), controller.signal)) {
        seen.push(event);
        if (seen.length === 1) controller.abort();
      }
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Error).name).toBe("AbortError");
    await within(
      mock.requests[0]?.disconnected ?? Promise.reject(new Error("no request")),
      200,
      "the server seeing the disconnect",
    );
  });

  test("abort during a backoff wait ends it at once", async () => {
    await using mock = mockWith({ status: 429, retryAfter: 10 }, { steps: [{ type: "text", text: "unused" }] });
    const controller = new AbortController();
    const iterator = clientFor(mock).stream(request(), controller.signal)[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: "retry", attempt: 2, delayMs: 10_000 });
    const pending = iterator.next();
    await Bun.sleep(20);
    const started = performance.now();
    controller.abort();
    const error = await pending.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect((error as Error).name).toBe("AbortError");
    expect(performance.now() - started).toBeLessThan(200);
    expect(mock.requests).toHaveLength(1);
  });

  test("an already aborted signal sends nothing", async () => {
    await using mock = mockWith({ steps: [{ type: "text", text: "unused" }] });
    const controller = new AbortController();
    controller.abort();
    const { events, error } = await settle(clientFor(mock).stream(request(), controller.signal));
    expect(events).toEqual([]);
    expect((error as Error).name).toBe("AbortError");
    expect(mock.requests).toHaveLength(0);
  });

  test("abort while waiting for response headers", async () => {
    await using mock = mockWith({ steps: [{ type: "text", text: "slow" }], delayMs: 5_000 });
    const controller = new AbortController();
    const run = settle(clientFor(mock).stream(request(), controller.signal));
    await Bun.sleep(50);
    const started = performance.now();
    controller.abort();
    const { events, error } = await run;
    expect(events).toEqual([]);
    expect((error as Error).name).toBe("AbortError");
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe("content passed back", () => {
  test("every assistant block type survives a round trip through message_end", async () => {
    await using mock = mockWith(
      {
        steps: [
          { type: "thinking", thinking: "plan", signature: "sig-1" },
          { type: "server_tool_use", id: "srvtoolu_9", input: { query: "q" } },
          {
            type: "web_search_result",
            content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" },
          },
          { type: "text", text: "answer" },
          { type: "tool_use", id: "toolu_9", name: "bash", input: { command: "ls" } },
        ],
      },
      { steps: [{ type: "text", text: "ok" }] },
    );
    const client = clientFor(mock);
    const content: AssistantBlock[] = end(await collect(client.stream(request({ webSearch: {} }), signal()))).content;
    const messages: Message[] = [
      ...request().messages,
      { role: "assistant", content },
      { role: "user", content: [{ type: "tool_result", toolUseId: "toolu_9", content: "a.ts", isError: false }] },
    ];
    await collect(client.stream(request({ webSearch: {}, messages }), signal()));
    expect(mock.requests[1]?.body.messages[1].content).toEqual([
      { type: "thinking", thinking: "plan", signature: "sig-1" },
      { type: "server_tool_use", id: "srvtoolu_9", name: "web_search", input: { query: "q" } },
      {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_9",
        content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" },
      },
      { type: "text", text: "answer" },
      { type: "tool_use", id: "toolu_9", name: "bash", input: { command: "ls" } },
    ]);
  });
});

describe("the SDK's per-request warnings", () => {
  test("a deprecated model: one warning event per client, none on the console, at every request", async () => {
    await using mock = mockWith(
      mockResponses.httpError(400, { message: "bad request" }),
      mockResponses.text("one"),
      mockResponses.text("two"),
      mockResponses.text("three"),
    );
    const printed: string[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => {
      printed.push(args.map(String).join(" "));
    };
    try {
      const client = clientFor(mock);
      const deprecated = request({ model: "claude-sonnet-4-5" });
      // A request that fails says why; the warning waits for one that goes through.
      const failed = await settle(client.stream(deprecated, signal()));
      expect(failed.error).toBeInstanceOf(ModelError);
      expect(failed.events.filter((e) => e.type === "warning")).toEqual([]);
      const first = await collect(client.stream(deprecated, signal()));
      const warnings = first.filter((e) => e.type === "warning");
      expect(warnings).toEqual([
        {
          type: "warning",
          text:
            "the Anthropic SDK warns: The model 'claude-sonnet-4-5' is deprecated and will " +
            "reach end-of-life on November 30th, 2026. Please migrate to a newer model. " +
            "Visit https://docs.anthropic.com/en/docs/resources/model-deprecations for more " +
            "information.",
        },
      ]);
      expect(first.indexOf(warnings[0] as ModelEvent)).toBe(0);
      expect((await collect(client.stream(deprecated, signal()))).filter((e) => e.type === "warning")).toEqual([]);
      // Another client (another session) says it once again.
      expect(
        (await collect(clientFor(mock).stream(deprecated, signal()))).filter((e) => e.type === "warning"),
      ).toHaveLength(1);
      expect(printed).toEqual([]);
      expect(mock.requests).toHaveLength(4);
    } finally {
      console.warn = original;
    }
    // The console is the caller's again.
    expect(console.warn).toBe(original);
  });

  test("catchingWarnings: only what the call prints is caught, and console.warn is put back when it throws", () => {
    const original = console.warn;
    const caught = catchingWarnings(() => {
      console.warn("deprecated", { model: "x" });
      return 7;
    });
    expect(caught).toEqual({ value: 7, warnings: ["deprecated { model: 'x' }"] });
    expect(() =>
      catchingWarnings(() => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(console.warn).toBe(original);
  });
});
