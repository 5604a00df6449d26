import { describe, expect, test } from "bun:test";
import { BUILTIN_PROVIDERS } from "../../src/model/catalog.ts";
import { openModelClient } from "../../src/model/open.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";

describe("openModelClient", () => {
  test("a prepared Anthropic connection streams from its base URL with its key", async () => {
    await using mock = startMockAnthropic({ script: [{ steps: [{ type: "text", text: "hi" }] }] });
    const provider = BUILTIN_PROVIDERS.anthropic;
    if (!provider) throw new Error("no anthropic provider");
    const client = await openModelClient({
      provider,
      baseUrl: mock.url,
      credential: { kind: "apiKey", value: "sk-ant-open" },
    });
    const texts: string[] = [];
    for await (const event of client.stream(
      {
        model: "claude-sonnet-5",
        system: "s",
        messages: [{ role: "user", content: [{ type: "text", text: "q" }] }],
        tools: [],
        maxTokens: 100,
      },
      new AbortController().signal,
    )) {
      if (event.type === "text_delta") texts.push(event.text);
    }
    expect(texts.join("")).toBe("hi");
    const headers = mock.requests[0]?.headers ?? {};
    const auth = headers.authorization ?? headers["x-api-key"];
    expect(auth).toContain("sk-ant-open");
  });
});
