// Each client's own check of the request it is about to send (src/model/requestBound.ts), against
// the mock servers over real HTTP: a conversation that carries more than 20 images, more than
// 24 MB of them, or over 32 MB in all (as a session resumed from elsewhere could) is refused with
// a ModelError that says what to do, and the server never receives it; 20 small images go.
import { describe, expect, test } from "bun:test";
import { createAnthropicClient } from "../../src/model/anthropic.ts";
import { createOpenAICompatibleClient } from "../../src/model/openaiCompatible.ts";
import { MAX_REQUEST_BYTES } from "../../src/model/requestBound.ts";
import {
  type ImageBlock,
  type Message,
  ModelError,
  type ModelClient,
  type ModelRequest,
} from "../../src/model/types.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { startMockOpenAI } from "../support/mockOpenAI.ts";

const PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** A PNG (by its first bytes) of `size` bytes. */
function png(size: number): ImageBlock {
  const bytes = Buffer.alloc(size, 7);
  Buffer.from(PNG_1PX, "base64").copy(bytes);
  return { type: "image", mediaType: "image/png", data: bytes.toString("base64") };
}

/** One user message with `images` and `text`, as a resumed conversation could hold them. */
const request = (images: ImageBlock[], text = "look"): ModelRequest => ({
  model: "claude-sonnet-5",
  system: "You are a test.",
  maxTokens: 100,
  tools: [],
  messages: [{ role: "user", content: [{ type: "text", text }, ...images] } satisfies Message],
});

/** The error the stream ends with (undefined when it ends well). */
async function failure(client: ModelClient, req: ModelRequest): Promise<unknown> {
  try {
    for await (const _ of client.stream(req, new AbortController().signal)) {
      // Drained.
    }
    return undefined;
  } catch (error) {
    return error;
  }
}

/** Each request over a bound fails with what to do and never reaches the server; then 20 small images do. */
async function expectBounded(client: ModelClient, received: readonly unknown[], provider: string): Promise<void> {
  const cases: [ModelRequest, string][] = [
    [
      request(Array.from({ length: 21 }, () => png(100))),
      "The conversation would send 21 images with every request, more than the 20 Garuda sends in one",
    ],
    [
      request(Array.from({ length: 6 }, () => png(3_500_000))),
      "The conversation would send 28.0 MB of images with every request, more than the 24.0 MB",
    ],
    // 23.3 MB of images and 9 MB of text: each within its own bound, over 32 MB together.
    [
      request(
        Array.from({ length: 5 }, () => png(3_500_000)),
        "x".repeat(9_000_000),
      ),
      `more than the 32.0 MB ${provider} takes in one, so nothing was sent.`,
    ],
  ];
  for (const [req, expected] of cases) {
    const error = await failure(client, req);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toContain(expected);
    expect((error as ModelError).message).toContain("Start a new session for more images, or /compact");
  }
  expect(received).toHaveLength(0);
  expect(await failure(client, request(Array.from({ length: 20 }, () => png(100))))).toBeUndefined();
  expect(received).toHaveLength(1);
}

describe("the client's check of the request it sends", () => {
  test("Anthropic: too many images, too many MB of them, or over 32 MB in all is never " +
    "sent; 20 small images are (negative control)", async () => {
    await using mock = startMockAnthropic({ script: [{ steps: [{ type: "text", text: "Twenty seen." }] }] });
    const client = createAnthropicClient({ apiKey: "sk-ant-test", baseUrl: mock.url, retry: { maxAttempts: 1 } });
    await expectBounded(client, mock.requests, "Anthropic");
    expect(JSON.stringify(mock.requests[0]?.body).length).toBeLessThan(MAX_REQUEST_BYTES);
  }, 60_000);

  test("OpenAI-compatible: the same bounds; nothing over them reaches the server, 20 small images do", async () => {
    await using mock = startMockOpenAI({ script: [{ steps: [{ type: "text", text: "Twenty seen." }] }] });
    const client = createOpenAICompatibleClient({
      baseUrl: mock.url,
      provider: { name: "ollama", title: "Ollama" },
      retry: { maxAttempts: 1 },
    });
    await expectBounded(client, mock.requests, "Ollama");
  }, 60_000);
});
