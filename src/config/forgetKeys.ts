// Forgetting the provider keys Garuda signs in with. `garuda setup --forget` in a terminal
// (cli/setup/forget.ts) and an editor's ACP `logout` (acp/server.ts, through acpCommand.ts) both
// come here, so they remove the same names the same way: from ~/.garuda/credentials, atomically
// and with every other key kept (forgetCredential), and from the keys this process took out of
// its environment, so its next session finds none and asks for a sign-in again.
import { chooseModel } from "./modelSetup.ts";
import { findModel, loadModelCatalog } from "./modelsFile.ts";
import type { GarudaPaths } from "./paths.ts";
import type { ProviderKeys } from "./providerKeys.ts";
import { forgetCredential } from "./setupFiles.ts";

export interface KeysContext {
  paths: GarudaPaths;
  env: Record<string, string | undefined>;
  keys: ProviderKeys;
}

/** The names a model signs in with, or the model's spec when its provider needs no key (a local server). */
export type ModelKeys = { names: string[] } | { keyless: string };

/** The bearer token an Anthropic provider takes instead of its key (modelSetup.ts resolveCredential). */
const ANTHROPIC_TOKEN = "ANTHROPIC_AUTH_TOKEN";

/**
 * The key names of the model in use (`modelFlag`, GARUDA_MODEL, the default in models.json):
 * its provider's apiKeyEnv, and for an Anthropic provider the bearer token too, since either
 * signs it in. With no model set: Anthropic's.
 */
export function modelKeyNames(ctx: KeysContext, modelFlag?: string): ModelKeys {
  const catalog = loadModelCatalog(ctx.paths.models);
  const choice = chooseModel(modelFlag, ctx.env, catalog);
  if (!choice) return { names: ["ANTHROPIC_API_KEY", ANTHROPIC_TOKEN] };
  const model = findModel(catalog, choice.spec);
  const provider = catalog.providers[model.provider];
  if (provider && !provider.apiKeyEnv) return { keyless: model.spec };
  const names = [provider?.apiKeyEnv ?? "ANTHROPIC_API_KEY"];
  if (!provider || provider.type === "anthropic") names.push(ANTHROPIC_TOKEN);
  return { names: [...new Set(names)] };
}

export interface ForgottenKey {
  name: string;
  /** What became of the credentials file: the key removed, the file removed with its last key, or no such key. */
  file: "removed" | "removed-file" | "absent";
  /** The key was also in this process's environment (and is forgotten there too). */
  inEnvironment: boolean;
}

/** Forgets each name: in ~/.garuda/credentials and in this process's environment keys. */
export function forgetKeys(ctx: KeysContext, names: readonly string[]): ForgottenKey[] {
  return names.map((name) => ({
    name,
    file: forgetCredential(ctx.paths.credentials, name),
    inEnvironment: ctx.keys.forget(name),
  }));
}

/** ACP `logout`: forgets the keys of the model in use; a model that needs no key has none to forget. */
export function logout(ctx: KeysContext, modelFlag?: string): ForgottenKey[] {
  const keys = modelKeyNames(ctx, modelFlag);
  return "names" in keys ? forgetKeys(ctx, keys.names) : [];
}
