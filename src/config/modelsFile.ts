import { z } from "zod";
import {
  BUILTIN_MODELS,
  BUILTIN_PROVIDERS,
  defaultPrice,
  type ModelInfo,
  type ProviderInfo,
  unknownLimits,
} from "../model/catalog.ts";
import { checkBaseUrl } from "./baseUrl.ts";
import { ConfigError } from "../errors/configError.ts";
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
  /** May be left out when the entry changes a built-in provider (its base URL, say). */
  type: z.enum(["anthropic", "openai-compatible"]).optional(),
  baseUrl: z.string().optional(),
  /** Optional for an OpenAI-compatible provider: without it the provider needs no key. */
  apiKeyEnv: z.string().regex(ENV_NAME, "must be an environment variable name").optional(),
  /** Allow plain http:// to another machine (a server on the local network). */
  allowInsecureHttp: z.boolean().optional(),
});

const modelSchema = z.strictObject({
  contextWindow: z.number().int().positive().optional(),
  maxTokens: z.number().int().positive().optional(),
  price: priceSchema.optional(),
  thinking: z.enum(["adaptive", "extended", "none"]).optional(),
  label: z.string().optional(),
  /** The model cannot call tools through the API: it writes ```tool_call blocks instead. */
  textToolCalls: z.boolean().optional(),
  /** false: the model takes text only (images in a prompt are not sent). */
  images: z.boolean().optional(),
  /** The reasoning levels an OpenAI-compatible model takes as reasoning_effort, e.g. ["low", "medium", "high"]. */
  effort: z
    .array(z.string().regex(/^[a-z][a-z_-]{0,19}$/, "an effort level is a short lower-case word"))
    .min(1)
    .max(8)
    .optional(),
});

export const modelsFileSchema = z.strictObject({
  default: z.string().min(1).optional(),
  providers: z
    .record(z.string().regex(PROVIDER_NAME, "provider names are lower-case letters, digits, . _ -"), providerSchema)
    .optional(),
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

/** The key variables the catalog's providers name (keyless providers name none). */
export function providerKeyNames(catalog: Pick<ModelCatalog, "providers">): string[] {
  return Object.values(catalog.providers).flatMap((provider) => (provider.apiKeyEnv ? [provider.apiKeyEnv] : []));
}

/** Splits a model spec: `<provider>/<model>` at the first slash, or a bare Claude id. */
export function parseSpec(spec: string): { provider: string; id: string } {
  const slash = spec.indexOf("/");
  if (slash <= 0) return { provider: "anthropic", id: spec };
  return { provider: spec.slice(0, slash), id: spec.slice(slash + 1) };
}

/** Loads ~/.garuda/models.json (absent is fine) over the built-in catalog. */
export function loadModelCatalog(file: string): ModelCatalog {
  const parsed = readJsonConfig(
    file,
    modelsFileSchema,
    "Fix it, or move it aside and run `garuda setup` to write a new one",
  );
  return buildCatalog(file, parsed ?? {});
}

export function buildCatalog(file: string, parsed: ModelsFile): ModelCatalog {
  const providers: Record<string, ProviderInfo> = { ...BUILTIN_PROVIDERS };
  for (const [name, entry] of Object.entries(parsed.providers ?? {})) {
    providers[name] = providerEntry(file, name, entry, providers[name]);
  }

  const models = new Map<string, ModelInfo>(BUILTIN_MODELS.map((model) => [model.spec, model]));
  for (const [spec, entry] of Object.entries(parsed.models ?? {})) {
    const { provider, id } = parseSpec(spec);
    if (!providers[provider]) {
      throw new ConfigError(
        file,
        `model "${spec}" names the unknown provider "${provider}"`,
        `Add it under "providers" or use one of: ${Object.keys(providers).join(", ")}`,
      );
    }
    const providerInfo = providers[provider] as ProviderInfo;
    const key = provider === "anthropic" ? id : spec;
    const base = models.get(key);
    const price = entry.price
      ? {
          input: entry.price.input,
          output: entry.price.output,
          cacheRead: entry.price.cacheRead ?? 0,
          cacheWrite: entry.price.cacheWrite ?? 0,
        }
      : (base?.price ?? defaultPrice(providerInfo));
    const limits = unknownLimits(providerInfo.type);
    const textToolCalls = entry.textToolCalls ?? base?.textToolCalls;
    const images = entry.images ?? base?.images;
    const effort = entry.effort ?? base?.effort;
    models.set(key, {
      spec: key,
      provider,
      id,
      contextWindow: entry.contextWindow ?? base?.contextWindow ?? limits.contextWindow,
      maxTokens: entry.maxTokens ?? base?.maxTokens ?? limits.maxTokens,
      price,
      thinking: entry.thinking ?? base?.thinking ?? "none",
      ...((entry.label ?? base?.label) ? { label: entry.label ?? base?.label } : {}),
      ...(textToolCalls ? { textToolCalls } : {}),
      ...(images === false ? { images } : {}),
      ...(effort ? { effort: [...new Set(effort)] } : {}),
    });
  }
  return { providers, models, file, ...(parsed.default ? { default: parsed.default } : {}) };
}

/** Family names that agent files (Claude Code's format) and people use for "the current one". */
const CLAUDE_FAMILIES: ReadonlySet<string> = new Set(["opus", "sonnet", "haiku", "fable"]);

/** `claude-sonnet-4-5` → [4, 5]; a part that is not a number ends the version. */
function familyVersion(id: string, prefix: string): number[] {
  const version: number[] = [];
  for (const part of id.slice(prefix.length).split("-")) {
    if (!/^\d+$/.test(part)) break;
    version.push(Number(part));
  }
  return version;
}

function newerThan(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? -1;
    const y = b[i] ?? -1;
    if (x !== y) return x > y;
  }
  return false;
}

/** `sonnet` → the Claude model of that family with the highest version in the catalog (models.json's included). */
function newestOfFamily(catalog: ModelCatalog, alias: string): ModelInfo | undefined {
  if (!CLAUDE_FAMILIES.has(alias)) return undefined;
  const prefix = `claude-${alias}-`;
  let newest: { model: ModelInfo; version: number[] } | undefined;
  for (const model of catalog.models.values()) {
    if (model.provider !== "anthropic" || !model.id.startsWith(prefix)) continue;
    const version = familyVersion(model.id, prefix);
    if (!newest || newerThan(version, newest.version)) newest = { model, version };
  }
  return newest?.model;
}

/** The model a spec names. A model the catalog does not list gets conservative limits. */
export function findModel(catalog: ModelCatalog, spec: string): ModelInfo {
  const { provider, id } = parseSpec(spec);
  const providerInfo = catalog.providers[provider];
  if (!providerInfo) {
    throw new ConfigError(
      undefined,
      `The model "${spec}" names the unknown provider "${provider}"`,
      `Known providers: ${Object.keys(catalog.providers).join(", ")} (add others in ${catalog.file})`,
    );
  }
  const key = provider === "anthropic" ? id : spec;
  const known = catalog.models.get(key) ?? (provider === "anthropic" ? newestOfFamily(catalog, id) : undefined);
  if (known) return known;
  if (id.length === 0) throw new ConfigError(undefined, `The model "${spec}" has no model name after "${provider}/"`);
  return {
    spec: key,
    provider,
    id,
    ...unknownLimits(providerInfo.type),
    price: defaultPrice(providerInfo),
    thinking: "none",
  };
}

type ProviderEntry = NonNullable<ModelsFile["providers"]>[string];

/**
 * One provider of models.json, over the built-in one of that name if there is one: an entry
 * may change a built-in provider's base URL alone. An Anthropic provider needs a key; an
 * OpenAI-compatible one needs a base URL and may do without a key (a local server).
 */
function providerEntry(file: string, name: string, entry: ProviderEntry, base: ProviderInfo | undefined): ProviderInfo {
  const where = `${file} (provider "${name}")`;
  const type = entry.type ?? base?.type;
  if (!type) throw new ConfigError(file, `provider "${name}" needs "type"`, 'Use "anthropic" or "openai-compatible"');
  // A built-in provider of another type is replaced, not extended.
  const inherited = base?.type === type ? base : undefined;
  const allowInsecureHttp = entry.allowInsecureHttp ?? inherited?.allowInsecureHttp ?? false;
  const apiKeyEnv = entry.apiKeyEnv ?? inherited?.apiKeyEnv;
  if (type === "anthropic" && !apiKeyEnv)
    throw new ConfigError(file, `provider "${name}" needs "apiKeyEnv"`, "Name the variable that holds its key");
  const baseUrl =
    entry.baseUrl !== undefined ? checkBaseUrl(entry.baseUrl, where, allowInsecureHttp) : inherited?.baseUrl;
  if (type === "openai-compatible" && !baseUrl) {
    throw new ConfigError(
      file,
      `provider "${name}" needs "baseUrl"`,
      "Give the server's OpenAI-compatible endpoint, such as http://127.0.0.1:8080/v1",
    );
  }
  const { title, startHint, keyCheckPath } = inherited ?? {};
  return {
    name,
    type,
    ...(baseUrl ? { baseUrl } : {}),
    ...(apiKeyEnv ? { apiKeyEnv } : {}),
    ...(allowInsecureHttp ? { allowInsecureHttp } : {}),
    ...(title ? { title } : {}),
    ...(startHint ? { startHint } : {}),
    ...(keyCheckPath ? { keyCheckPath } : {}),
  };
}

/**
 * Whether the catalog lists every model a provider has: Anthropic's own (the built-in list, plus
 * models.json). An OpenAI-compatible server, or another Anthropic-type endpoint (a gateway),
 * names its own models, which Garuda cannot know ahead: any name is taken there.
 */
export function modelsKnownAhead(catalog: Pick<ModelCatalog, "providers">, provider: string): boolean {
  return provider === "anthropic" && catalog.providers[provider]?.type === "anthropic";
}

/** The names of a provider's models the catalog lists, for a message. */
export function knownModelNames(catalog: Pick<ModelCatalog, "models">, provider: string): string[] {
  return [...catalog.models.values()].filter((model) => model.provider === provider).map((model) => model.spec);
}

/**
 * Refuses a name for one of Anthropic's models that the catalog does not list (a typo, or a model
 * newer than this build): without this it would be taken silently and fail only at the first
 * request. `from` says where the name came from ("--model", "GARUDA_MODEL" …). Names of
 * providers whose models are not known ahead pass.
 */
export function checkKnownModel(catalog: ModelCatalog, spec: string, from: string): void {
  const model = findModel(catalog, spec);
  if (catalog.models.has(model.spec) || !modelsKnownAhead(catalog, model.provider)) return;
  const known = knownModelNames(catalog, model.provider);
  throw new ConfigError(
    undefined,
    `There is no model "${spec}" (${from}): the models Garuda knows are ${known.join(", ")}`,
    `Use one of them; a model newer than this build can be added to ${catalog.file} under "models" (as "${spec}": {})`,
  );
}
