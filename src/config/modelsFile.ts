import { z } from "zod";
import {
  BUILTIN_MODELS,
  BUILTIN_PROVIDERS,
  type ModelInfo,
  type ProviderInfo,
  UNKNOWN_CLAUDE_LIMITS,
} from "../model/catalog.ts";
import { checkBaseUrl } from "./baseUrl.ts";
import { ConfigError } from "./errors.ts";
import { readJsonConfig } from "./jsonFile.ts";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PROVIDER_NAME = /^[a-z0-9][a-z0-9._-]*$/;

const priceSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
});

const providerSchema = z.strictObject({
  type: z.literal("anthropic"),
  baseUrl: z.string().optional(),
  apiKeyEnv: z.string().regex(ENV_NAME, "must be an environment variable name").optional(),
});

const modelSchema = z.strictObject({
  contextWindow: z.number().int().positive().optional(),
  maxTokens: z.number().int().positive().optional(),
  price: priceSchema.optional(),
  thinking: z.enum(["adaptive", "extended", "none"]).optional(),
  label: z.string().optional(),
});

export const modelsFileSchema = z.strictObject({
  default: z.string().min(1).optional(),
  providers: z.record(z.string().regex(PROVIDER_NAME, "provider names are lower-case letters, digits, . _ -"), providerSchema).optional(),
  models: z.record(z.string().min(1), modelSchema).optional(),
});
export type ModelsFile = z.infer<typeof modelsFileSchema>;

/** The built-in catalog extended by models.json. */
export interface ModelCatalog {
  providers: Readonly<Record<string, ProviderInfo>>;
  models: ReadonlyMap<string, ModelInfo>;
  default?: string;
  /** The file it came from, for messages. */
  file: string;
}

/** Splits a model spec: `<provider>/<model>` at the first slash, or a bare Claude id. */
export function parseSpec(spec: string): { provider: string; id: string } {
  const slash = spec.indexOf("/");
  if (slash <= 0) return { provider: "anthropic", id: spec };
  return { provider: spec.slice(0, slash), id: spec.slice(slash + 1) };
}

/** Loads ~/.garuda/models.json (absent is fine) over the built-in catalog. */
export function loadModelCatalog(file: string): ModelCatalog {
  const parsed = readJsonConfig(file, modelsFileSchema, "Fix it, or run `garuda setup` to write a new one");
  return buildCatalog(file, parsed ?? {});
}

export function buildCatalog(file: string, parsed: ModelsFile): ModelCatalog {
  const providers: Record<string, ProviderInfo> = { ...BUILTIN_PROVIDERS };
  for (const [name, entry] of Object.entries(parsed.providers ?? {})) {
    const base = providers[name];
    const apiKeyEnv = entry.apiKeyEnv ?? base?.apiKeyEnv;
    if (!apiKeyEnv) throw new ConfigError(file, `provider "${name}" needs "apiKeyEnv"`, "Name the variable that holds its key");
    const baseUrl = entry.baseUrl ? checkBaseUrl(entry.baseUrl, `${file} (provider "${name}")`) : base?.baseUrl;
    providers[name] = { name, type: entry.type, apiKeyEnv, ...(baseUrl ? { baseUrl } : {}) };
  }

  const models = new Map<string, ModelInfo>(BUILTIN_MODELS.map((model) => [model.spec, model]));
  for (const [spec, entry] of Object.entries(parsed.models ?? {})) {
    const { provider, id } = parseSpec(spec);
    if (!providers[provider]) {
      throw new ConfigError(file, `model "${spec}" names the unknown provider "${provider}"`, `Add it under "providers" or use one of: ${Object.keys(providers).join(", ")}`);
    }
    const key = provider === "anthropic" ? id : spec;
    const base = models.get(key);
    const price = entry.price
      ? { input: entry.price.input, output: entry.price.output, cacheRead: entry.price.cacheRead ?? 0, cacheWrite: entry.price.cacheWrite ?? 0 }
      : (base?.price ?? null);
    models.set(key, {
      spec: key,
      provider,
      id,
      contextWindow: entry.contextWindow ?? base?.contextWindow ?? UNKNOWN_CLAUDE_LIMITS.contextWindow,
      maxTokens: entry.maxTokens ?? base?.maxTokens ?? UNKNOWN_CLAUDE_LIMITS.maxTokens,
      price,
      thinking: entry.thinking ?? base?.thinking ?? "none",
      ...((entry.label ?? base?.label) ? { label: entry.label ?? base?.label } : {}),
    });
  }
  return { providers, models, file, ...(parsed.default ? { default: parsed.default } : {}) };
}

/** The model a spec names. A model the catalog does not list gets conservative limits. */
export function findModel(catalog: ModelCatalog, spec: string): ModelInfo {
  const { provider, id } = parseSpec(spec);
  const providerInfo = catalog.providers[provider];
  if (!providerInfo) {
    throw new ConfigError(undefined, `The model "${spec}" names the unknown provider "${provider}"`, `Known providers: ${Object.keys(catalog.providers).join(", ")} (add others in ${catalog.file})`);
  }
  const key = provider === "anthropic" ? id : spec;
  const known = catalog.models.get(key);
  if (known) return known;
  if (id.length === 0) throw new ConfigError(undefined, `The model "${spec}" has no model name after "${provider}/"`);
  return { spec: key, provider, id, ...UNKNOWN_CLAUDE_LIMITS, price: null, thinking: "none" };
}
