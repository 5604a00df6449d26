// The mock server's standalone mode, as process tests, demos and benchmarks use it.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mockResponses, startMockAnthropic } from "./mockAnthropic.ts";
import { tempDir } from "./tempDir.ts";

test("standalone: prints its URL, serves the script in a loop, records requests", async () => {
  using dir = tempDir("garuda-mock-");
  const script = join(dir.path, "script.json");
  const record = join(dir.path, "requests.jsonl");
  writeFileSync(
    script,
    JSON.stringify({ responses: [{ steps: [{ type: "text", text: "Hello", fragments: 2 }] }], loop: true }),
  );
  const child = Bun.spawn(
    [process.execPath, join(import.meta.dir, "mockAnthropic.ts"), "--script", script, "--record", record],
    {
      stdout: "pipe",
      stderr: "pipe",
    },
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
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    for (const round of [1, 2]) {
      const response = await fetch(`${url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": "k" },
        body: JSON.stringify({
          model: "m",
          max_tokens: 10,
          stream: true,
          messages: [{ role: "user", content: `round ${round}` }],
        }),
      });
      expect(response.headers.get("content-type")).toContain("text/event-stream");
      const events = (await response.text())
        .split("\n\n")
        .filter(Boolean)
        .map((frame) => {
          const [eventLine, dataLine] = frame.split("\n");
          return {
            event: eventLine?.slice("event: ".length),
            data: JSON.parse(dataLine?.slice("data: ".length) ?? "null"),
          };
        });
      expect(events.map((item) => item.event)).toEqual([
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
      ]);
      for (const item of events) expect(item.data.type).toBe(item.event);
      expect(events[3]?.data.delta).toEqual({ type: "text_delta", text: "He" });
      expect(events[6]?.data.delta.stop_reason).toBe("end_turn");
    }
    const lines = readFileSync(record, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.body.messages[0].content)).toEqual(["round 1", "round 2"]);
    expect(lines[0].path).toBe("/v1/messages");
  } finally {
    child.kill("SIGTERM");
    await child.exited;
  }
});

describe("in process", () => {
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });

  test("without stream:true the same response comes as one JSON message", async () => {
    await using mock = startMockAnthropic({
      script: [
        {
          steps: [
            { type: "thinking", thinking: "hmm", signature: "sig", fragments: 2 },
            { type: "text", text: "Hi there", fragments: 3 },
            { type: "tool_use", id: "toolu_x", name: "ls", input: { path: "." }, fragments: 2 },
          ],
          usage: { input_tokens: 5, output_tokens: 9 },
        },
      ],
    });
    const response = await post(mock.url, { model: "m", max_tokens: 10, messages: [] });
    expect(response.status).toBe(200);
    const message = (await response.json()) as any;
    expect(message.content).toEqual([
      { type: "thinking", thinking: "hmm", signature: "sig" },
      { type: "text", text: "Hi there", citations: null },
      { type: "tool_use", id: "toolu_x", name: "ls", input: { path: "." }, caller: { type: "direct" } },
    ]);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage).toMatchObject({ input_tokens: 5, output_tokens: 9 });
  });

  test("HTTP errors carry Anthropic's body and the retry headers", async () => {
    await using mock = startMockAnthropic({ script: [{ status: 429, retryAfter: 7, retryAfterMs: 7000 }] });
    const response = await post(mock.url, { model: "m", stream: true });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("7");
    expect(response.headers.get("retry-after-ms")).toBe("7000");
    expect(response.headers.get("request-id")).toBe("req_mock_1");
    expect(await response.json()).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: "Number of request tokens has exceeded your per-minute rate limit" },
      request_id: "req_mock_1",
    });
  });

  test("an error step ends the stream with an `event: error`", async () => {
    await using mock = startMockAnthropic({
      script: [{ steps: [{ type: "text", text: "a" }, { type: "error" }, { type: "text", text: "never" }] }],
    });
    const text = await (await post(mock.url, { stream: true })).text();
    expect(
      text.endsWith(
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      ),
    ).toBe(true);
    expect(text).not.toContain("never");
    expect(text).not.toContain("message_stop");
  });

  test("the API key is checked when given; an empty script answers with a clear 400", async () => {
    await using mock = startMockAnthropic({ apiKey: "sk-good" });
    expect((await post(mock.url, { stream: true }, { "x-api-key": "sk-bad" })).status).toBe(401);
    const response = await post(mock.url, { stream: true }, { authorization: "Bearer sk-good" });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.message).toBe(
      "mock Anthropic server: no scripted response left for request #2",
    );
  });

  test("enqueue adds responses; requests record path, headers and body", async () => {
    await using mock = startMockAnthropic();
    mock.enqueue(mockResponses.text("queued"));
    expect(mock.pending).toBe(1);
    await (await post(mock.url, { stream: true, model: "m" }, { "x-custom": "yes" })).text();
    expect(mock.pending).toBe(0);
    expect(mock.requests[0]).toMatchObject({
      method: "POST",
      path: "/v1/messages",
      body: { stream: true, model: "m" },
    });
    expect(mock.requests[0]?.headers["x-custom"]).toBe("yes");
    expect(mock.requests[0]?.disconnectedAt).toBeUndefined();
  });

  test("a hanging stream notices when the client goes away", async () => {
    await using mock = startMockAnthropic({ script: [{ steps: [{ type: "text", text: "start" }, { type: "hang" }] }] });
    const controller = new AbortController();
    const response = await fetch(`${mock.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ stream: true }),
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    await Promise.race([
      mock.requests[0]?.disconnected,
      Bun.sleep(500).then(() => Promise.reject(new Error("not noticed"))),
    ]);
    expect(mock.requests[0]?.disconnectedAt).toBeNumber();
  });
});
