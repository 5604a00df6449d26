import { describe, expect, test } from "bun:test";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import type { ModelEvent, ModelRequest } from "../../src/model/types.ts";
import { ModelError } from "../../src/model/types.ts";

function request(text: string): ModelRequest {
  return {
    model: "fake",
    system: "sys",
    messages: [{ role: "user", content: [{ type: "text", text }] }],
    tools: [],
    maxTokens: 100,
  };
}

async function collect(iterable: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

const signal = () => new AbortController().signal;

describe("FakeModelClient", () => {
  test("plays the turns in order and records each request", async () => {
    const client = new FakeModelClient([fake.text("first"), fake.text("second")]);
    expect(await collect(client.stream(request("one"), signal()))).toEqual([
      { type: "text_delta", text: "first" },
      {
        type: "message_end",
        stopReason: "end_turn",
        content: [{ type: "text", text: "first" }],
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
      },
    ]);
    const second = await collect(client.stream(request("two"), signal()));
    expect(second.at(-1)).toMatchObject({ content: [{ type: "text", text: "second" }] });
    expect(client.requests.map((sent) => sent.messages[0]?.content[0])).toEqual([
      { type: "text", text: "one" },
      { type: "text", text: "two" },
    ]);
    expect(client.remaining).toBe(0);
    expect(client.lastRequest.messages[0]?.content[0]).toEqual({ type: "text", text: "two" });
  });

  test("records a copy: later changes to the request don't rewrite history", async () => {
    const client = new FakeModelClient([fake.text("ok")]);
    const sent = request("original");
    await collect(client.stream(sent, signal()));
    sent.messages.push({ role: "assistant", content: [{ type: "text", text: "added later" }] });
    expect(client.requests[0]?.messages).toHaveLength(1);
  });

  test("toolCall builds a tool_use event and a tool_use stop", async () => {
    const client = new FakeModelClient([
      fake.toolCall("read_file", { path: "a.ts" }, { id: "toolu_1", text: "Reading." }),
    ]);
    const events = await collect(client.stream(request("read"), signal()));
    expect(events).toEqual([
      { type: "text_delta", text: "Reading." },
      { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
      {
        type: "message_end",
        stopReason: "tool_use",
        content: [
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
        ],
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
      },
    ]);
  });

  test("tool calls without ids get distinct generated ids", () => {
    const events = fake.toolCalls([
      { name: "read_file", input: { path: "a" } },
      { name: "read_file", input: { path: "b" } },
    ]);
    const ids = events.filter((event) => event.type === "tool_use").map((event) => (event as { id: string }).id);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(/^toolu_fake_[0-9a-f]{16}$/);
    expect(events.at(-1)).toMatchObject({ stopReason: "tool_use" });
  });

  test("thinking, chunks, usage and stop reason options", () => {
    const events = fake.thinking("deep thought", "42", "sig-x", {
      chunks: 2,
      usage: { inputTokens: 10, outputTokens: 3 },
      stopReason: "max_tokens",
    });
    expect(events).toEqual([
      { type: "thinking_delta", text: "deep t" },
      { type: "thinking_delta", text: "hought" },
      { type: "text_delta", text: "4" },
      { type: "text_delta", text: "2" },
      {
        type: "message_end",
        stopReason: "max_tokens",
        content: [
          { type: "thinking", thinking: "deep thought", signature: "sig-x" },
          { type: "text", text: "42" },
        ],
        usage: { inputTokens: 10, outputTokens: 3, cacheReadTokens: 0, cacheCreationTokens: 0 },
      },
    ]);
  });

  test("a turn can be a function of the request", async () => {
    const client = new FakeModelClient([
      (sent, index) => fake.text(`echo ${index}: ${JSON.stringify(sent.messages[0]?.content[0])}`),
    ]);
    const events = await collect(client.stream(request("ping"), signal()));
    expect(events.at(-1)).toMatchObject({ content: [{ type: "text", text: 'echo 0: {"type":"text","text":"ping"}' }] });
  });

  test("an Error in a turn is thrown at its place", async () => {
    const client = new FakeModelClient([
      [fake.retry(), { type: "text_delta", text: "partial" }, new ModelError("Anthropic is overloaded", 529, true)],
    ]);
    const seen: ModelEvent[] = [];
    let thrown: unknown;
    try {
      for await (const event of client.stream(request("x"), signal())) seen.push(event);
    } catch (error) {
      thrown = error;
    }
    expect(seen).toEqual([
      { type: "retry", attempt: 2, delayMs: 0, reason: "529 overloaded_error: Overloaded" },
      { type: "text_delta", text: "partial" },
    ]);
    expect(thrown).toBeInstanceOf(ModelError);
    expect((thrown as ModelError).status).toBe(529);
  });

  test("fail() makes a turn that fails at once", async () => {
    const client = new FakeModelClient([fake.fail(new ModelError("bad key", 401))]);
    await expect(collect(client.stream(request("x"), signal()))).rejects.toThrow("bad key");
  });

  test("running out of script is a clear error", async () => {
    const client = new FakeModelClient([fake.text("only one")]);
    await collect(client.stream(request("first"), signal()));
    await expect(collect(client.stream(request("second question"), signal()))).rejects.toThrow(
      "FakeModelClient: the script has no turn left for request #2 (it had 1). The " +
        'last user message was: "second question". Add a turn to the script.',
    );
    expect(client.requests).toHaveLength(2);
  });

  test("push() adds turns later", async () => {
    const client = new FakeModelClient().push(fake.text("late"));
    expect(client.remaining).toBe(1);
    const events = await collect(client.stream(request("x"), signal()));
    expect(events.at(-1)).toMatchObject({ content: [{ type: "text", text: "late" }] });
  });

  test("an aborted signal throws AbortError before any event", async () => {
    const client = new FakeModelClient([fake.text("never")]);
    const controller = new AbortController();
    controller.abort();
    const seen: ModelEvent[] = [];
    let thrown: unknown;
    try {
      for await (const event of client.stream(request("x"), controller.signal)) seen.push(event);
    } catch (error) {
      thrown = error;
    }
    expect(seen).toEqual([]);
    expect(thrown).toBeInstanceOf(DOMException);
    expect((thrown as DOMException).name).toBe("AbortError");
  });

  test("abort while streaming with a per-event delay ends at once with AbortError", async () => {
    const client = new FakeModelClient([fake.text("a long answer", { chunks: 10 })], { delayMs: 1_000 });
    const controller = new AbortController();
    const iterator = client.stream(request("x"), controller.signal)[Symbol.asyncIterator]();
    const pending = iterator.next();
    await Bun.sleep(20);
    const started = performance.now();
    controller.abort();
    const error = await pending.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect((error as Error).name).toBe("AbortError");
    expect(performance.now() - started).toBeLessThan(100);
  });

  test("abort after some events, between them, throws on the next one", async () => {
    const client = new FakeModelClient([fake.text("one two three", { chunks: 3 })], { delayMs: 5 });
    const controller = new AbortController();
    const seen: ModelEvent[] = [];
    let thrown: unknown;
    try {
      for await (const event of client.stream(request("x"), controller.signal)) {
        seen.push(event);
        controller.abort();
      }
    } catch (error) {
      thrown = error;
    }
    expect(seen).toEqual([{ type: "text_delta", text: "one " }]);
    expect((thrown as Error).name).toBe("AbortError");
  });

  test("wait(Infinity) holds the stream until abort", async () => {
    const client = new FakeModelClient([
      [{ type: "text_delta", text: "working" }, fake.wait(Number.POSITIVE_INFINITY), ...fake.text("unreachable")],
    ]);
    const controller = new AbortController();
    const iterator = client.stream(request("x"), controller.signal)[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ type: "text_delta", text: "working" });
    const pending = iterator.next();
    const raced = await Promise.race([
      pending.then(
        () => "settled",
        () => "settled",
      ),
      Bun.sleep(50).then(() => "waiting"),
    ]);
    expect(raced).toBe("waiting");
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  test("yielded events are copies: a consumer can't corrupt the script", async () => {
    const turn = fake.toolCall("edit", { path: "a" }, { id: "t1" });
    const client = new FakeModelClient([turn, turn]);
    for (const event of await collect(client.stream(request("x"), signal()))) {
      if (event.type === "tool_use") (event.input as { path: string }).path = "changed";
    }
    const again = await collect(client.stream(request("y"), signal()));
    expect(again.find((event) => event.type === "tool_use")).toMatchObject({ input: { path: "a" } });
  });
});
