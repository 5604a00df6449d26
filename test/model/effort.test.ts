// Effort levels: which models of the catalog have them, and what a level becomes on the wire —
// Anthropic's output_config.effort and thinking budget (against the mock Messages API), an
// OpenAI-compatible server's reasoning_effort (against the mock Chat Completions server).
import { describe, expect, test } from "bun:test";
import { buildCatalog, modelsFileSchema } from "../../src/config/modelsFile.ts";
import { createAnthropicClient } from "../../src/model/anthropic.ts";
import { BUILTIN_MODELS, BUILTIN_PROVIDERS, type ModelInfo } from "../../src/model/catalog.ts";
import { effortLevels, effortRequest, THINKING_BUDGETS } from "../../src/model/effort.ts";
import { createOpenAICompatibleClient } from "../../src/model/openaiCompatible.ts";
import type { ModelEvent, ModelRequest } from "../../src/model/types.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { startMockOpenAI } from "../support/mockOpenAI.ts";

const model = (spec: string): ModelInfo => {
  const found = BUILTIN_MODELS.find((m) => m.spec === spec);
  if (!found) throw new Error(`no built-in model ${spec}`);
  return found;
};

const base = (overrides: Partial<ModelRequest>): ModelRequest => ({
  model: "claude-sonnet-5",
  system: "",
  messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
  tools: [],
  maxTokens: 32_000,
  ...overrides,
});

async function drain(events: AsyncIterable<ModelEvent>): Promise<void> {
  for await (const _ of events);
}

describe("effort levels from the catalog", () => {
  test(
    "adaptive Claude models: low, medium, high (default), max; extended: off " +
      "(default) and three budgets; none: no levels",
    () => {
      expect(effortLevels(model("claude-sonnet-5"))?.levels.map((l) => l.value)).toEqual([
        "low",
        "medium",
        "high",
        "max",
      ]);
      expect(effortLevels(model("claude-sonnet-5"))?.default).toBe("high");
      expect(effortLevels(model("claude-haiku-4-5"))?.levels.map((l) => l.value)).toEqual([
        "off",
        "low",
        "medium",
        "high",
      ]);
      expect(effortLevels(model("claude-haiku-4-5"))?.default).toBe("off");
      const catalog = buildCatalog("/models.json", {
        models: { "ollama/qwen3:8b": {}, "openrouter/openai/gpt-6": { effort: ["low", "medium", "high"] } },
      });
      expect(effortLevels(catalog.models.get("ollama/qwen3:8b") as ModelInfo)).toBeUndefined();
      expect(
        effortLevels(catalog.models.get("openrouter/openai/gpt-6") as ModelInfo)?.levels.map((l) => l.value),
      ).toEqual(["default", "low", "medium", "high"]);
    },
  );

  test("the default sends what Garuda sent before levels existed; an unknown level sends the default", () => {
    expect(effortRequest(model("claude-sonnet-5"), undefined)).toEqual({ thinking: "adaptive" });
    expect(effortRequest(model("claude-sonnet-5"), "high")).toEqual({ thinking: "adaptive" });
    expect(effortRequest(model("claude-sonnet-5"), "low")).toEqual({ thinking: "adaptive", effort: "low" });
    expect(effortRequest(model("claude-sonnet-5"), "turbo")).toEqual({ thinking: "adaptive" });
    expect(effortRequest(model("claude-haiku-4-5"), undefined)).toEqual({});
    expect(effortRequest(model("claude-haiku-4-5"), "off")).toEqual({});
    expect(effortRequest(model("claude-haiku-4-5"), "medium")).toEqual({
      thinking: { budgetTokens: THINKING_BUDGETS.medium as number },
    });
  });

  test("models.json: effort is a list of short lower-case words", () => {
    expect(modelsFileSchema.safeParse({ models: { "ollama/x": { effort: ["low", "high"] } } }).success).toBe(true);
    expect(modelsFileSchema.safeParse({ models: { "ollama/x": { effort: ["Low!"] } } }).success).toBe(false);
    expect(modelsFileSchema.safeParse({ models: { "ollama/x": { effort: [] } } }).success).toBe(false);
  });
});

describe("effort on the wire", () => {
  test("Anthropic: output_config.effort for an adaptive model's level; nothing for the default", async () => {
    await using mock = startMockAnthropic({
      script: [{ steps: [{ type: "text", text: "a" }] }, { steps: [{ type: "text", text: "b" }] }],
    });
    const client = createAnthropicClient({ apiKey: "sk-ant-test", baseUrl: mock.url, retry: { maxAttempts: 1 } });
    await drain(client.stream(base(effortRequest(model("claude-sonnet-5"), "max")), new AbortController().signal));
    await drain(client.stream(base(effortRequest(model("claude-sonnet-5"), undefined)), new AbortController().signal));
    expect(mock.requests[0]?.body.output_config).toEqual({ effort: "max" });
    expect(mock.requests[0]?.body.thinking).toEqual({ type: "adaptive" });
    expect(mock.requests[1]?.body.output_config).toBeUndefined();
  });

  test(
    "Anthropic: a thinking budget that does not fit max_tokens is lowered below it, " +
      "and dropped when even 1,024 does not fit",
    async () => {
      await using mock = startMockAnthropic({
        script: [
          { steps: [{ type: "text", text: "a" }] },
          { steps: [{ type: "text", text: "b" }] },
          { steps: [{ type: "text", text: "c" }] },
        ],
      });
      const client = createAnthropicClient({ apiKey: "sk-ant-test", baseUrl: mock.url, retry: { maxAttempts: 1 } });
      const high = effortRequest(model("claude-haiku-4-5"), "high");
      await drain(client.stream(base({ ...high, maxTokens: 32_000 }), new AbortController().signal));
      await drain(client.stream(base({ ...high, maxTokens: 8_000 }), new AbortController().signal));
      await drain(client.stream(base({ ...high, maxTokens: 1_000 }), new AbortController().signal));
      expect(mock.requests[0]?.body.thinking).toEqual({ type: "enabled", budget_tokens: THINKING_BUDGETS.high });
      expect(mock.requests[1]?.body.thinking).toEqual({ type: "enabled", budget_tokens: 7_999 });
      expect(mock.requests[2]?.body.thinking).toBeUndefined();
    },
  );

  test("OpenAI-compatible: reasoning_effort for a listed level; nothing for the default", async () => {
    await using mock = startMockOpenAI();
    mock.enqueue({ steps: [{ type: "text", text: "a" }] }, { steps: [{ type: "text", text: "b" }] });
    const info = buildCatalog("/m.json", {
      models: { "ollama/gpt-oss:20b": { effort: ["low", "medium", "high"] } },
    }).models.get("ollama/gpt-oss:20b") as ModelInfo;
    const client = createOpenAICompatibleClient({
      baseUrl: mock.url,
      provider: BUILTIN_PROVIDERS.ollama as NonNullable<(typeof BUILTIN_PROVIDERS)["ollama"]>,
      retry: { maxAttempts: 1 },
    });
    await drain(
      client.stream(base({ model: "gpt-oss:20b", ...effortRequest(info, "low") }), new AbortController().signal),
    );
    await drain(
      client.stream(base({ model: "gpt-oss:20b", ...effortRequest(info, "default") }), new AbortController().signal),
    );
    expect(mock.requests[0]?.body.reasoning_effort).toBe("low");
    expect(mock.requests[1]?.body).not.toHaveProperty("reasoning_effort");
  });
});
