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
  /**
   * The model cannot call tools through the API: tools are described in the system prompt and
   * called in fenced ```tool_call blocks of its text (src/model/textToolCalls.ts).
   */
  textToolCalls?: boolean;
  /** false: the model takes text only, so images are not sent (the user is told). Default: it takes images. */
  images?: boolean;
  /**
   * The reasoning levels an OpenAI-compatible model takes as `reasoning_effort` (models.json
   * `effort`). Claude models get theirs from `thinking` (model/effort.ts).
   */
  effort?: readonly string[];
}

export type ProviderType = "anthropic" | "openai-compatible";

export interface ProviderInfo {
  name: string;
  type: ProviderType;
  /** Undefined: the provider's public endpoint (Anthropic only; an OpenAI-compatible provider always has one). */
  baseUrl?: string;
  /**
   * Environment variable (and credentials key) that holds the API key. Undefined: the provider needs no key (a local
   * server).
   */
  apiKeyEnv?: string;
  /** Plain http:// to another machine is allowed (a server on the local network). */
  allowInsecureHttp?: boolean;
  /** How people call it ("Ollama"), for messages; default the name. */
  title?: string;
  /** How to start a local server, for the message when it is not running. */
  startHint?: string;
  /** The path under baseUrl that shows whether a key is accepted; default /models. */
  keyCheckPath?: string;
}

/** The name to show for a provider in messages. */
export function providerTitle(provider: Pick<ProviderInfo, "name" | "title">): string {
  return provider.title ?? provider.name;
}

/** A server's address as people write it: the base URL without its trailing /v1. */
export function serverAddress(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
}

/** "Ollama is not running at http://127.0.0.1:11434 — start it with `ollama serve`." */
export function notRunningMessage(
  provider: Pick<ProviderInfo, "name" | "title" | "startHint">,
  baseUrl: string,
): string {
  const address = serverAddress(baseUrl);
  return provider.startHint
    ? `${providerTitle(provider)} is not running at ${address} — ${provider.startHint}.`
    : `Nothing answers at ${address}: start the server, or fix "baseUrl" of the ` +
        `provider "${provider.name}" in ~/.garuda/models.json.`;
}

/** Cache reads cost a tenth of input, cache writes (5-minute TTL) a quarter more. */
function claudePrice(input: number, output: number): Price {
  return { input, output, cacheRead: input * 0.1, cacheWrite: input * 1.25 };
}

const local = (name: string, title: string, port: number, startHint: string): ProviderInfo => ({
  name,
  type: "openai-compatible",
  baseUrl: `http://127.0.0.1:${port}/v1`,
  title,
  startHint,
});

/** The built-in providers, in the order `garuda setup` offers them. Local servers need no key. */
export const BUILTIN_PROVIDERS: Readonly<Record<string, ProviderInfo>> = {
  anthropic: { name: "anthropic", type: "anthropic", apiKeyEnv: "ANTHROPIC_API_KEY", title: "Anthropic" },
  openrouter: {
    name: "openrouter",
    type: "openai-compatible",
    baseUrl: "https://openrouter.ai/api/v1",
    apiKeyEnv: "OPENROUTER_API_KEY",
    title: "OpenRouter",
    // GET /models answers without a key; GET /key says whether a key is valid.
    keyCheckPath: "/key",
  },
  ollama: local("ollama", "Ollama", 11434, "start it with `ollama serve`"),
  lmstudio: local(
    "lmstudio",
    "LM Studio",
    1234,
    "start its server in LM Studio (Developer tab) or with `lms server start`",
  ),
  llamacpp: local("llamacpp", "llama.cpp", 8080, "start it with `llama-server -m <model.gguf> --jinja`"),
  vllm: local("vllm", "vLLM", 8000, "start it with `vllm serve <model>`"),
};

/** Local servers cost nothing per token. */
const FREE: Price = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

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
  claude(
    "claude-sonnet-5",
    "Claude Sonnet 5: speed and intelligence",
    1_000_000,
    128_000,
    claudePrice(2, 10),
    "adaptive",
  ),
  claude(
    "claude-fable-5-1",
    "Claude Fable 5.1: demanding reasoning",
    1_000_000,
    128_000,
    claudePrice(10, 50),
    "adaptive",
  ),
  claude("claude-haiku-4-5", "Claude Haiku 4.5: fastest", 200_000, 64_000, claudePrice(1, 5), "extended"),
  claude("claude-opus-4-8", "Claude Opus 4.8", 1_000_000, 64_000, claudePrice(5, 25), "adaptive"),
  claude("claude-sonnet-4-6", "Claude Sonnet 4.6", 1_000_000, 64_000, claudePrice(3, 15), "adaptive"),
];

/** What a Claude id that the catalog does not know gets: safe, conservative limits. */
const UNKNOWN_CLAUDE_LIMITS = { contextWindow: 200_000, maxTokens: 32_000 } as const;

/** What a model of an OpenAI-compatible provider gets when models.json does not say: a small local model's limits. */
export const UNKNOWN_OPENAI_LIMITS = { contextWindow: 32_768, maxTokens: 4_096 } as const;

/** The limits of a model the catalog does not list, by its provider's type. */
export function unknownLimits(type: ProviderType): { contextWindow: number; maxTokens: number } {
  return type === "anthropic" ? UNKNOWN_CLAUDE_LIMITS : UNKNOWN_OPENAI_LIMITS;
}

/** A keyless provider's server runs on this machine (or the local network): its tokens cost nothing. */
export function defaultPrice(provider: ProviderInfo): Price | null {
  return provider.type === "openai-compatible" && provider.apiKeyEnv === undefined ? FREE : null;
}
