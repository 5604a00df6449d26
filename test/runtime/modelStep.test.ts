// streamResponse lets go of the client's stream whichever way it leaves it (issue 19.4): a
// client's generator is still suspended at its message_end when the response is taken, and a
// suspended generator never runs its finally. Left so, each model request kept its idle watchdog
// (a 180 s timer holding the request's AbortController) and its listener on the turn's signal:
// ~3 timers a prompt piled up in a long-running `garuda acp` (bench/soak.ts).
import { heapStats } from "bun:jsc";
import { expect, test } from "bun:test";
import { createAnthropicClient } from "../../src/model/anthropic.ts";
import type { ModelClient, ModelEvent, ModelRequest } from "../../src/model/types.ts";
import { streamResponse } from "../../src/runtime/modelStep.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";

const request: ModelRequest = {
  model: "claude-sonnet-5",
  system: "",
  messages: [{ role: "user", content: [{ type: "text", text: "Hi." }] }],
  tools: [],
  maxTokens: 1024,
};
const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 };

/** A client whose stream says when its finally has run, and what follows its message_end (nothing should). */
function recordingClient(events: ModelEvent[]): { client: ModelClient; finished: () => boolean } {
  let finished = false;
  const client: ModelClient = {
    async *stream() {
      try {
        yield* events;
        yield { type: "text_delta", text: "never read" };
      } finally {
        finished = true;
      }
    },
  };
  return { client, finished: () => finished };
}

test("the client's stream is closed (its finally runs) once the message_end is taken", async () => {
  const { client, finished } = recordingClient([
    { type: "text_delta", text: "Hello." },
    { type: "message_end", stopReason: "end_turn", content: [{ type: "text", text: "Hello." }], usage },
  ]);
  const response = await streamResponse(client, request, new AbortController().signal, undefined);
  expect(response.content).toEqual([{ type: "text", text: "Hello." }]);
  await Bun.sleep(0);
  expect(finished()).toBe(true);
});

test("the client's stream is closed when its response is refused (a server tool call out of bounds)", async () => {
  const { client, finished } = recordingClient([
    {
      type: "message_end",
      stopReason: "end_turn",
      content: [
        { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x".repeat(2_000_000) } },
      ],
      usage,
    },
  ]);
  await expect(streamResponse(client, request, new AbortController().signal, undefined)).rejects.toThrow(
    /too large or nested too deep/,
  );
  await Bun.sleep(0);
  expect(finished()).toBe(true);
});

test("the client's stream is closed on an abort", async () => {
  const controller = new AbortController();
  let finished = false;
  const client: ModelClient = {
    async *stream() {
      try {
        yield { type: "text_delta", text: "Hel" };
        controller.abort();
        yield { type: "text_delta", text: "lo." };
        await Bun.sleep(60_000);
      } finally {
        finished = true;
      }
    },
  };
  await expect(streamResponse(client, request, controller.signal, undefined)).rejects.toMatchObject({
    name: "AbortError",
  });
  await Bun.sleep(0);
  expect(finished).toBe(true);
});

test("many responses through the real Anthropic client leave no live timer behind (the idle watchdog's)", async () => {
  const rounds = 30;
  await using mock = startMockAnthropic({
    script: Array.from({ length: rounds + 1 }, (_, i) => ({
      steps: [{ type: "text" as const, text: `Answer ${i}.`, fragments: 2 }],
    })),
  });
  const client = createAnthropicClient({ apiKey: "sk-ant-test", baseUrl: mock.url, retry: { maxAttempts: 1 } });
  const turn = new AbortController();
  const liveTimers = () => {
    Bun.gc(true);
    return heapStats().protectedObjectTypeCounts.Timeout ?? 0;
  };
  // The first response loads the SDK (and whatever timers it keeps for itself).
  await streamResponse(client, request, turn.signal, undefined);
  await Bun.sleep(10);
  const before = liveTimers();
  for (let i = 0; i < rounds; i++) await streamResponse(client, request, turn.signal, undefined);
  await Bun.sleep(10);
  // Without the fix: one 180 s timer a response (+30).
  expect(liveTimers() - before).toBeLessThan(5);
});
