// The models an OpenAI-compatible server says it has (GET {baseUrl}/models), for the model
// menu of `garuda setup`: a local server's own list, or OpenRouter's. A local server that is
// not running is told apart from other failures, so setup can say how to start it.
import type { ModelsFile } from "../../config/modelsFile.ts";
import { messageOf } from "../../errors/caught.ts";
import {
  defaultPrice,
  type ModelInfo,
  notRunningMessage,
  type Price,
  type ProviderInfo,
  providerTitle,
  serverAddress,
  UNKNOWN_OPENAI_LIMITS,
} from "../../model/catalog.ts";
import { isLocalUrl } from "../../model/openaiCompatible.ts";
import { CHECK_TIMEOUT_MS } from "./check.ts";

/** The menu shows at most this many of the server's models. */
export const MAX_LISTED = 50;

export type ServerListing =
  /** Every model the server listed, in its order (the menu shows the first MAX_LISTED). */
  | { result: "ok"; url: string; models: ModelInfo[] }
  | { result: "not-running"; url: string }
  | { result: "failed"; url: string; reason: string };

function errorCode(error: unknown): string | undefined {
  const own = (error as { code?: unknown } | undefined)?.code;
  if (typeof own === "string") return own;
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof cause === "string" ? cause : undefined;
}

const positive = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;

/** OpenRouter's prices are US dollars per token, as strings. */
function perMillion(value: unknown): number | undefined {
  const number = typeof value === "string" ? Number(value) : typeof value === "number" ? value : Number.NaN;
  return Number.isFinite(number) && number >= 0 ? Math.round(number * 1_000_000 * 1e6) / 1e6 : undefined;
}

/**
 * One entry of the list as a model: its limits when the server says (OpenRouter's
 * context_length and max_completion_tokens, vLLM's max_model_len), else the defaults for a
 * model Garuda does not know; its price when the server says, else free for a keyless server.
 */
function listedModel(provider: ProviderInfo, entry: Record<string, unknown>): ModelInfo | undefined {
  const id = entry.id;
  if (typeof id !== "string" || id === "" || /[\s]/.test(id)) return undefined;
  const top =
    typeof entry.top_provider === "object" && entry.top_provider !== null
      ? (entry.top_provider as Record<string, unknown>)
      : {};
  const context = positive(entry.context_length) ?? positive(top.context_length) ?? positive(entry.max_model_len);
  const output = positive(top.max_completion_tokens);
  const contextWindow = context ?? UNKNOWN_OPENAI_LIMITS.contextWindow;
  const maxTokens = Math.min(
    output ?? (context ? Math.min(32_000, Math.floor(context / 4)) : UNKNOWN_OPENAI_LIMITS.maxTokens),
    contextWindow,
  );
  const pricing =
    typeof entry.pricing === "object" && entry.pricing !== null
      ? (entry.pricing as Record<string, unknown>)
      : undefined;
  const input = perMillion(pricing?.prompt);
  const outputPrice = perMillion(pricing?.completion);
  const price: Price | null =
    input !== undefined && outputPrice !== undefined
      ? {
          input,
          output: outputPrice,
          cacheRead: perMillion(pricing?.input_cache_read) ?? input,
          cacheWrite: perMillion(pricing?.input_cache_write) ?? input,
        }
      : defaultPrice(provider);
  const name = typeof entry.name === "string" && entry.name !== id ? entry.name : undefined;
  return {
    spec: `${provider.name}/${id}`,
    provider: provider.name,
    id,
    contextWindow,
    maxTokens,
    price,
    thinking: "none",
    ...(name && { label: name }),
  };
}

/**
 * What to write under "models" in models.json for a model taken from the server's list, so
 * its limits (and price) are known next time; undefined when the server said nothing the
 * defaults do not say already.
 */
export function modelsFileEntry(
  model: ModelInfo,
  provider: ProviderInfo,
): NonNullable<ModelsFile["models"]>[string] | undefined {
  const limitsKnown =
    model.contextWindow !== UNKNOWN_OPENAI_LIMITS.contextWindow || model.maxTokens !== UNKNOWN_OPENAI_LIMITS.maxTokens;
  const priceKnown = model.price !== null && JSON.stringify(model.price) !== JSON.stringify(defaultPrice(provider));
  if (!limitsKnown && !priceKnown) return undefined;
  return {
    contextWindow: model.contextWindow,
    maxTokens: model.maxTokens,
    ...(priceKnown && model.price && { price: model.price }),
  };
}

/**
 * GET {baseUrl}/models with a time limit, no redirects followed. `apiKey` is sent when given
 * (a server started with a key). `signal` cancels it (Ctrl-C), which rejects with its reason.
 */
export async function listServerModels(options: {
  provider: ProviderInfo;
  baseUrl: string;
  apiKey?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}): Promise<ServerListing> {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/models`;
  const timeoutMs = options.timeoutMs ?? CHECK_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const headers: Record<string, string> = {
    accept: "application/json",
    ...(options.apiKey && { authorization: `Bearer ${options.apiKey}` }),
  };
  let body: unknown;
  try {
    const response = await fetch(url, { method: "GET", headers, redirect: "manual", signal });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return { result: "failed", url, reason: `it answered HTTP ${response.status}` };
    }
    body = await response.json();
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeout.aborted)
      return {
        result: "failed",
        url,
        reason: `no answer within ${timeoutMs >= 1000 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`}`,
      };
    const code = errorCode(error);
    if ((code === "ECONNREFUSED" || code === "ConnectionRefused") && isLocalUrl(url))
      return { result: "not-running", url };
    if (error instanceof SyntaxError) return { result: "failed", url, reason: "its answer is not JSON" };
    return { result: "failed", url, reason: `${url} could not be reached (${messageOf(error)})` };
  }
  const data =
    typeof body === "object" && body !== null
      ? ((body as { data?: unknown; models?: unknown }).data ?? (body as { models?: unknown }).models)
      : undefined;
  if (!Array.isArray(data)) return { result: "failed", url, reason: "its answer has no list of models" };
  const seen = new Set<string>();
  const models: ModelInfo[] = [];
  for (const entry of data) {
    if (typeof entry !== "object" || entry === null) continue;
    const model = listedModel(options.provider, entry as Record<string, unknown>);
    if (!model || seen.has(model.id)) continue;
    seen.add(model.id);
    models.push(model);
  }
  return { result: "ok", url, models };
}

export type ServerCheck = { ok: true; text: string; listed?: ModelInfo } | { ok: false; problem: string };

/**
 * Whether a keyless provider's server runs and has the model (the check of `garuda setup
 * --model <provider>/<model>`, in place of a key's): one GET {baseUrl}/models.
 */
export async function checkServerModel(options: {
  provider: ProviderInfo;
  baseUrl: string;
  model: ModelInfo;
  timeoutMs?: number;
  signal?: AbortSignal;
}): Promise<ServerCheck> {
  const { provider, baseUrl, model } = options;
  const title = providerTitle(provider);
  const address = serverAddress(baseUrl);
  const listing = await listServerModels(options);
  if (listing.result === "not-running") return { ok: false, problem: notRunningMessage(provider, baseUrl) };
  if (listing.result === "failed")
    return { ok: false, problem: `${title} at ${address} could not be checked: ${listing.reason}.` };
  const found = listing.models.find((entry) => entry.id === model.id);
  if (found) return { ok: true, text: `${title} is running at ${address} and has ${model.id}.`, listed: found };
  const names = listing.models.map((entry) => entry.id);
  const has =
    names.length === 0 ? "it has no models" : `it has: ${names.slice(0, 8).join(", ")}${names.length > 8 ? ", …" : ""}`;
  return { ok: false, problem: `${title} at ${address} does not list the model "${model.id}" (${has}).` };
}
