// Built-in knowledge of providers and models. ~/.garuda/models.json extends and overrides it.

/** US dollars per million tokens. */
export interface Price {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface ModelInfo {
  /** Garuda's name for it: a bare Claude id or `<provider>/<model>`. */
  spec: string;
  provider: string;
  /** The id the provider's API takes. */
  id: string;
  contextWindow: number;
  maxTokens: number;
  /** null when unknown: cost is then not reported. */
  price: Price | null;
  thinking: "adaptive" | "extended" | "none";
  /** Shown by `garuda setup` and `garuda models`. */
  label?: string;
}

export interface ProviderInfo {
  name: string;
  type: "anthropic";
  /** Undefined: the provider's public endpoint. */
  baseUrl?: string;
  /** Environment variable (and credentials key) that holds the API key. */
  apiKeyEnv: string;
}

/** Cache reads cost a tenth of input, cache writes (5-minute TTL) a quarter more. */
function claudePrice(input: number, output: number): Price {
  return { input, output, cacheRead: input * 0.1, cacheWrite: input * 1.25 };
}

export const BUILTIN_PROVIDERS: Readonly<Record<string, ProviderInfo>> = {
  anthropic: { name: "anthropic", type: "anthropic", apiKeyEnv: "ANTHROPIC_API_KEY" },
};

const claude = (
  id: string,
  label: string,
  contextWindow: number,
  maxTokens: number,
  price: Price,
  thinking: ModelInfo["thinking"],
): ModelInfo => ({ spec: id, provider: "anthropic", id, contextWindow, maxTokens, price, thinking, label });

/** Current Claude models (late 2026), newest first. */
export const BUILTIN_MODELS: readonly ModelInfo[] = [
  claude("claude-opus-5", "Claude Opus 5: complex agentic coding", 1_000_000, 128_000, claudePrice(5, 25), "adaptive"),
  claude("claude-sonnet-5", "Claude Sonnet 5: speed and intelligence", 1_000_000, 128_000, claudePrice(2, 10), "adaptive"),
  claude("claude-fable-5-1", "Claude Fable 5.1: demanding reasoning", 1_000_000, 128_000, claudePrice(10, 50), "adaptive"),
  claude("claude-haiku-4-5", "Claude Haiku 4.5: fastest", 200_000, 64_000, claudePrice(1, 5), "extended"),
  claude("claude-opus-4-8", "Claude Opus 4.8", 1_000_000, 64_000, claudePrice(5, 25), "adaptive"),
  claude("claude-sonnet-4-6", "Claude Sonnet 4.6", 1_000_000, 64_000, claudePrice(3, 15), "adaptive"),
];

/** What a Claude id that the catalog does not know gets: safe, conservative limits. */
export const UNKNOWN_CLAUDE_LIMITS = { contextWindow: 200_000, maxTokens: 32_000 } as const;
