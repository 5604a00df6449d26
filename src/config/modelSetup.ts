import type { ModelInfo, ProviderInfo } from "../model/catalog.ts";
import { checkBaseUrl } from "./baseUrl.ts";
import { readCredentials } from "./credentials.ts";
import { SetupRequiredError } from "../errors/configError.ts";
import { checkKnownModel, findModel, loadModelCatalog, type ModelCatalog, providerKeyNames } from "./modelsFile.ts";
import type { GarudaPaths } from "./paths.ts";
import type { ProviderKeys } from "./providerKeys.ts";

export type ModelChoiceSource = "--model" | "GARUDA_MODEL" | "models.json" | "environment key";
export interface ModelChoice {
  spec: string;
  source: ModelChoiceSource;
}

/** What every front end passes to read the model configuration, fresh each time. */
export interface ModelSetupContext {
  paths: GarudaPaths;
  /** The process environment, provider keys already taken out of it. */
  env: Record<string, string | undefined>;
  keys: ProviderKeys;
  /** The value of --model, if given. */
  modelFlag?: string | undefined;
}

export interface ProviderCredential {
  /** apiKey goes in x-api-key; authToken in Authorization: Bearer (gateways). */
  kind: "apiKey" | "authToken";
  name: string;
  value: string;
  source: "environment" | "credentials";
}

export interface PreparedModel {
  choice: ModelChoice;
  model: ModelInfo;
  provider: ProviderInfo;
  baseUrl?: string;
  /** Undefined when the provider needs no key (a local server). */
  credential?: ProviderCredential;
}

export const SETUP_HINT = "Run `garuda setup` in a terminal, or use your editor's sign-in.";

/**
 * The model of someone who never ran setup but has an Anthropic key in the environment (as they
 * would for any other agent): Claude Sonnet, the one setup puts first for speed and intelligence.
 * Asking them to run setup only to pick it would be asking for nothing. (OpenRouter's key has no
 * such model: its models are the server's, and setup lists them.)
 */
export const ENVIRONMENT_KEY_MODEL = "claude-sonnet-5";
const ANTHROPIC_KEY_NAMES = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"];

/**
 * `--model` > `GARUDA_MODEL` > the models.json default > with an Anthropic key in the environment
 * (`keys`), ENVIRONMENT_KEY_MODEL; an empty value counts as unset.
 */
export function chooseModel(
  flag: string | undefined,
  env: Record<string, string | undefined>,
  catalog: ModelCatalog,
  keys?: Pick<ProviderKeys, "fromEnvironment">,
): ModelChoice | undefined {
  if (flag) return { spec: flag, source: "--model" };
  const fromEnv = env.GARUDA_MODEL;
  if (fromEnv) return { spec: fromEnv, source: "GARUDA_MODEL" };
  if (catalog.default) return { spec: catalog.default, source: "models.json" };
  if (keys && ANTHROPIC_KEY_NAMES.some((name) => keys.fromEnvironment(name)))
    return { spec: ENVIRONMENT_KEY_MODEL, source: "environment key" };
  return undefined;
}

function findCredential(
  name: string,
  kind: ProviderCredential["kind"],
  ctx: Pick<ModelSetupContext, "keys">,
  file: () => Record<string, string> | undefined,
): ProviderCredential | undefined {
  const fromEnv = ctx.keys.fromEnvironment(name);
  if (fromEnv) return { kind, name, value: fromEnv, source: "environment" };
  const fromFile = file()?.[name];
  if (fromFile) return { kind, name, value: fromFile, source: "credentials" };
  return undefined;
}

/** Where a model's name came from, for a refusal. */
const CHOICE_FROM: Readonly<Record<ModelChoiceSource, string>> = {
  "--model": "from --model",
  GARUDA_MODEL: "from GARUDA_MODEL",
  "models.json": "the default in models.json",
  "environment key": "picked for the Anthropic key in the environment",
};

/**
 * Reads models.json and the credentials again and decides the model, its provider, base URL
 * and key. Throws SetupRequiredError when no model is chosen or it has no key, ConfigError
 * when a file is broken.
 */
export function prepareModel(ctx: ModelSetupContext): PreparedModel {
  const catalog = loadModelCatalog(ctx.paths.models);
  // A provider added to models.json since start-up may name a variable still in the environment.
  ctx.keys.take(ctx.env, providerKeyNames(catalog));

  const choice = chooseModel(ctx.modelFlag, ctx.env, catalog, ctx.keys);
  if (!choice) throw new SetupRequiredError("model", `Garuda has no model. ${SETUP_HINT}`);
  checkKnownModel(catalog, choice.spec, CHOICE_FROM[choice.source]);
  const model = findModel(catalog, choice.spec);
  const provider = catalog.providers[model.provider];
  if (!provider)
    throw new SetupRequiredError(
      "model",
      `Garuda has no provider "${model.provider}" for ${model.spec}. ${SETUP_HINT}`,
    );

  // The environment's base URL is the more specific one (an editor's agent entry sets it).
  const envBaseUrl = provider.type === "anthropic" ? ctx.env.ANTHROPIC_BASE_URL : undefined;
  const baseUrl = envBaseUrl ? checkBaseUrl(envBaseUrl, "ANTHROPIC_BASE_URL") : provider.baseUrl;
  const keyName = provider.apiKeyEnv;
  if (keyName === undefined) return { choice, model, provider, ...(baseUrl ? { baseUrl } : {}) };

  const credential = providerCredential(provider, ctx, credentialsReader(ctx.paths.credentials));
  if (!credential)
    throw new SetupRequiredError("key", `Garuda has no key for ${model.spec} (${keyName}). ${SETUP_HINT}`);
  return { choice, model, provider, credential, ...(baseUrl ? { baseUrl } : {}) };
}

/** Reads the credentials file on the first call only (a keyless provider never needs it). */
export function credentialsReader(path: string): () => Record<string, string> | undefined {
  let credentials: Record<string, string> | undefined;
  let loaded = false;
  return () => {
    if (!loaded) {
      credentials = readCredentials(path);
      loaded = true;
    }
    return credentials;
  };
}

/**
 * The key a provider's requests carry: its variable from the environment, else from the
 * credentials file; an Anthropic provider may use ANTHROPIC_AUTH_TOKEN instead (gateways).
 * Undefined when it has none (or needs none: a local server).
 */
export function providerCredential(
  provider: ProviderInfo,
  ctx: Pick<ModelSetupContext, "keys">,
  file: () => Record<string, string> | undefined,
): ProviderCredential | undefined {
  const keyName = provider.apiKeyEnv;
  if (keyName === undefined) return undefined;
  return (
    findCredential(keyName, "apiKey", ctx, file) ??
    (provider.type === "anthropic" ? findCredential("ANTHROPIC_AUTH_TOKEN", "authToken", ctx, file) : undefined)
  );
}
