// One whole turn through the real Anthropic client (src/model/anthropic.ts) against the mock
// Messages API: a tool call, its result, a text answer. The recorded request bodies show that the
// system prompt and tools are byte-identical from one request to the next and that the second
// request starts with the first one's cached prefix.
import { expect, test } from "bun:test";
import { createAnthropicClient } from "../../src/model/anthropic.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { MODEL, ofType, readTool, testRuntime, texts, turn } from "../support/runtimeHelpers.ts";

/** A wire body without its cache breakpoints. */
function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== "cache_control")
        .map(([key, item]) => [key, withoutCacheControl(item)]),
    );
  }
  return value;
}

test("a turn end to end through the Anthropic client: tool call, result, answer; stable, cached prefix", async () => {
  await using mock = startMockAnthropic({
    script: [
      {
        steps: [
          { type: "text", text: "Let me read it.", fragments: 2 },
          { type: "tool_use", id: "toolu_01", name: "read", input: { path: "a.txt" }, fragments: 3 },
        ],
        usage: { input_tokens: 1_200, output_tokens: 40, cache_creation_input_tokens: 1_000 },
      },
      {
        steps: [{ type: "text", text: "It says alpha.", fragments: 3 }],
        usage: { input_tokens: 30, output_tokens: 8, cache_read_input_tokens: 1_100 },
      },
    ],
  });
  const client = createAnthropicClient({ apiKey: "sk-ant-test", baseUrl: mock.url, retry: { maxAttempts: 1 } });
  await using real = testRuntime({ files: { "a.txt": "alpha" }, tools: [readTool()], client });

  const { stop, events } = await turn(real.runtime, "What is in a.txt?");
  expect(stop).toBe("done");
  expect(texts(events)).toBe("Let me read it.It says alpha.");
  expect(ofType(events, "tool_call")).toEqual([
    expect.objectContaining({ callId: "toolu_01", tool: "read", input: { path: "a.txt" } }),
  ]);
  expect(ofType(events, "tool_result")).toEqual([
    expect.objectContaining({ callId: "toolu_01", status: "completed", output: "alpha" }),
  ]);
  expect(real.runtime.tokensUsed).toBe(1_200 + 40 + 1_000 + 30 + 8);

  expect(mock.requests).toHaveLength(2);
  const [first, second] = mock.requests.map((request) => request.body);
  expect(first.model).toBe(MODEL.id);
  expect(first.stream).toBe(true);
  // Byte-identical system prompt and tools, each with its breakpoint.
  expect(JSON.stringify(second.system)).toBe(JSON.stringify(first.system));
  expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools));
  expect(first.system.at(-1).cache_control).toEqual({ type: "ephemeral" });
  expect(first.tools.at(-1).cache_control).toEqual({ type: "ephemeral" });
  expect(first.tools.map((tool: { name: string }) => tool.name)).toEqual(["read"]);
  // The first request's breakpoint sat on its last block; the second request repeats those
  // messages unchanged and moves the breakpoint to its own end.
  expect(first.messages.at(-1).content.at(-1).cache_control).toEqual({ type: "ephemeral" });
  expect(withoutCacheControl(second.messages.slice(0, first.messages.length))).toEqual(
    withoutCacheControl(first.messages),
  );
  expect(JSON.stringify(second.messages[0])).toBe(JSON.stringify(withoutCacheControl(first.messages[0])));
  expect(second.messages.slice(1)).toEqual([
    {
      role: "assistant",
      content: [
        { type: "text", text: "Let me read it." },
        { type: "tool_use", id: "toolu_01", name: "read", input: { path: "a.txt" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_01", content: "alpha", cache_control: { type: "ephemeral" } },
      ],
    },
  ]);
});
