import { dollars } from "../../text/money.ts";
import type { ModelCatalog } from "../../config/modelsFile.ts";
import type { ModelInfo, ProviderInfo } from "../../model/catalog.ts";
import { oneLine } from "../../text/visible.ts";

/** Anthropic's public endpoint: what a provider with no baseUrl talks to. */
export const ANTHROPIC_API_URL = "https://api.anthropic.com";

/** The providers to choose from: the built-in ones first, then those models.json adds. */
export function providerChoices(catalog: ModelCatalog): ProviderInfo[] {
  return Object.values(catalog.providers);
}

/**
 * The models of one provider. A provider from models.json that lists no models of its own
 * (an Anthropic-compatible gateway) is offered the built-in Claude models under its name.
 */
export function modelChoices(catalog: ModelCatalog, provider: ProviderInfo): ModelInfo[] {
  const own = [...catalog.models.values()].filter((model) => model.provider === provider.name);
  if (own.length > 0 || provider.type !== "anthropic") return own;
  return [...catalog.models.values()]
    .filter((model) => model.provider === "anthropic")
    .map((model) => ({ ...model, spec: `${provider.name}/${model.id}`, provider: provider.name }));
}

export function tokens(count: number): string {
  if (count >= 1_000_000) return `${Number((count / 1_000_000).toFixed(1))}M`;
  return `${Math.round(count / 1000)}K`;
}

function priceText(model: ModelInfo): string {
  if (!model.price) return "price unknown";
  if (model.price.input === 0 && model.price.output === 0) return "free";
  return `$${dollars(model.price.input)}/$${dollars(model.price.output)} per MTok`;
}

/** A label from models.json may hold anything: one line, hidden characters shown. */
export function modelLabel(model: ModelInfo): string {
  return model.label ? oneLine(model.label, 60) : "";
}

/** One row per model, in aligned columns: name, label, context window, price. */
export function modelRows(models: readonly ModelInfo[], current?: string): string[] {
  const specWidth = Math.max(...models.map((model) => model.spec.length));
  const labelWidth = Math.max(...models.map((model) => modelLabel(model).length));
  return models.map((model) => {
    const context = `${tokens(model.contextWindow)} context`.padEnd(13);
    const mark = model.spec === current ? "  (default)" : "";
    return (
      `${model.spec.padEnd(specWidth)}  ${modelLabel(model).padEnd(labelWidth)}  ` +
      `${context}${priceText(model)}${mark}`
    );
  });
}

/**
 * One row per provider: name, the endpoint Garuda will really call (`endpoint`: ANTHROPIC_BASE_URL
 * when it is set, marked so), its key. Default: the provider's own.
 */
export function providerRows(
  providers: readonly ProviderInfo[],
  current?: string,
  endpoint: (provider: ProviderInfo) => string = (provider) => provider.baseUrl ?? ANTHROPIC_API_URL,
): string[] {
  const nameWidth = Math.max(...providers.map((provider) => provider.name.length));
  const urls = providers.map(endpoint);
  const urlWidth = Math.max(...urls.map((url) => url.length));
  return providers.map((provider, i) => {
    const mark = provider.name === current ? "  (default)" : "";
    const key = provider.apiKeyEnv ? `key ${provider.apiKeyEnv}` : "no key";
    return `${provider.name.padEnd(nameWidth)}  ${(urls[i] as string).padEnd(urlWidth)}  ${key}${mark}`;
  });
}
