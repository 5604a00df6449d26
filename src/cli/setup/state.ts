// What every setup path reads first, and the pieces they share: the key a provider already
// has, its endpoint, and how a key is checked for shape before it is sent anywhere.
import { checkBaseUrl } from "../../config/baseUrl.ts";
import { type Credentials, readCredentials } from "../../config/credentials.ts";
import { ConfigError } from "../../errors/configError.ts";
import {
  checkKnownModel,
  findModel,
  type ModelCatalog,
  loadModelCatalog,
  providerKeyNames,
} from "../../config/modelsFile.ts";
import type { ProviderInfo } from "../../model/catalog.ts";
import type { CliContext } from "../context.ts";

export interface SetupState {
  ctx: CliContext;
  catalog: ModelCatalog;
  /** ~/.garuda/credentials as it is now ({} when absent). */
  credentials: Credentials;
}

/**
 * Reads models.json and the credentials file before any question, so a broken file is
 * reported (naming it) before the user types anything, and nothing is overwritten.
 */
export function loadSetupState(ctx: CliContext): SetupState {
  const catalog = loadModelCatalog(ctx.paths.models);
  // A provider from models.json may name a variable still in the environment.
  ctx.keys.take(ctx.env, providerKeyNames(catalog));
  return { ctx, catalog, credentials: readCredentials(ctx.paths.credentials) ?? {} };
}

export interface FoundKey {
  name: string;
  kind: "apiKey" | "authToken";
  value: string;
  source: "environment" | "credentials";
}

/** Where a key name's value comes from now: the environment wins over the file. */
function findKey(state: SetupState, name: string, kind: FoundKey["kind"] = "apiKey"): FoundKey | undefined {
  const fromEnv = state.ctx.keys.fromEnvironment(name);
  if (fromEnv) return { name, kind, value: fromEnv, source: "environment" };
  const fromFile = state.credentials[name];
  if (fromFile) return { name, kind, value: fromFile, source: "credentials" };
  return undefined;
}

/** The key the provider would use today, in the order the runtime looks (prepareModel). None for a keyless provider. */
export function existingKey(state: SetupState, provider: ProviderInfo): FoundKey | undefined {
  if (!provider.apiKeyEnv) return undefined;
  return (
    findKey(state, provider.apiKeyEnv) ??
    (provider.type === "anthropic" ? findKey(state, "ANTHROPIC_AUTH_TOKEN", "authToken") : undefined)
  );
}

/** The endpoint the runtime will call: ANTHROPIC_BASE_URL first, as in prepareModel. */
export function providerBaseUrl(state: SetupState, provider: ProviderInfo): string | undefined {
  const fromEnv = provider.type === "anthropic" ? state.ctx.env.ANTHROPIC_BASE_URL : undefined;
  return fromEnv ? checkBaseUrl(fromEnv, "ANTHROPIC_BASE_URL") : provider.baseUrl;
}

export const MAX_KEY_LENGTH = 2048;

/** Why a pasted text cannot be a key (it goes in an HTTP header), or undefined if it can. */
export function keyProblem(key: string): string | undefined {
  if (key.length === 0) return "No key was entered";
  if (key.length > MAX_KEY_LENGTH) return `That is too long for a key (${key.length} characters)`;
  if (!/^[\x21-\x7e]+$/.test(key))
    return "That does not look like a key: it has spaces or characters a key cannot have";
  return undefined;
}

/** A path under the home folder written as ~/…, for messages. */
export function shortPath(state: SetupState, path: string): string {
  const home = state.ctx.paths.home.replace(/\/+$/, "");
  return home.length > 1 && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/** Why `spec` (given to setup) names no model Garuda knows, or undefined when it does. */
export function unknownModelProblem(state: SetupState, spec: string): string | undefined {
  // An unknown provider is an error of its own (exit 1), thrown here.
  findModel(state.catalog, spec);
  try {
    checkKnownModel(
      state.catalog,
      spec,
      state.catalog.default === spec ? "the default in models.json" : "from --model",
    );
    return undefined;
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
}
