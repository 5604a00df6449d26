// The last step of setup, and the only one that writes: the key (if a new one was entered)
// into ~/.garuda/credentials, the model as the default in ~/.garuda/models.json.
import { saveCredential } from "../../config/credentials.ts";
import { findModel, type ModelsFile } from "../../config/modelsFile.ts";
import { modelsFileWithDefault, setDefaultModel } from "../../config/setupFiles.ts";
import { providerTitle, serverAddress } from "../../model/catalog.ts";
import { tokens } from "./choices.ts";
import { maskKey } from "./mask.ts";
import { type FoundKey, type SetupState, shortPath } from "./state.ts";

export interface SetupResult {
  spec: string;
  /**
   * The key that will be used: a new one (saved now) or one that was kept. None for a keyless provider (a local
   * server).
   */
  key?: FoundKey;
  /** True when `key` was entered now and is to be saved. */
  newKey: boolean;
  /** The check's outcome (of the key, or of a keyless server), for the summary. */
  checked: "ok" | "unchecked" | "skipped";
  /** Limits (and price) the server reported for the model, to add under "models" in models.json. */
  modelEntry?: NonNullable<ModelsFile["models"]>[string];
}

export interface SaveOutcome {
  modelChanged: boolean;
  keySaved: boolean;
}

/**
 * Writes what setup decided. models.json is read and checked first, so a broken file stops
 * setup before the credentials change; each file is written atomically, keeping the rest.
 */
export function saveSetup(state: SetupState, result: SetupResult): SaveOutcome {
  const { paths } = state.ctx;
  const modelChanged = modelsFileWithDefault(paths.models, result.spec, result.modelEntry) !== undefined;
  const keySaved = result.newKey && result.key !== undefined;
  if (keySaved && result.key) saveCredential(paths.credentials, result.key.name, result.key.value);
  if (modelChanged) setDefaultModel(paths.models, result.spec, result.modelEntry);
  return { modelChanged, keySaved };
}

/** What was saved, with the key masked, and what in the environment would override it. */
export function summaryLines(state: SetupState, result: SetupResult, outcome: SaveOutcome): string[] {
  const { paths, env, keys } = state.ctx;
  const models = shortPath(state, paths.models);
  const credentials = shortPath(state, paths.credentials);
  const lines = ["Garuda is set up."];
  lines.push(`  Model: ${result.spec}, the default in ${models}${outcome.modelChanged ? "" : " (unchanged)"}`);
  const key = result.key;
  const model = findModel(state.catalog, result.spec);
  const provider = state.catalog.providers[model.provider];
  if (!key) {
    const where = provider?.baseUrl ? ` (${providerTitle(provider)} at ${serverAddress(provider.baseUrl)})` : "";
    lines.push(`  Key:   none needed${where}`);
  } else if (outcome.keySaved)
    lines.push(`  Key:   ${key.name} ${maskKey(key.value)}, saved in ${credentials} (readable only by you)`);
  else {
    const where = key.source === "environment" ? "the environment" : credentials;
    lines.push(`  Key:   ${key.name} ${maskKey(key.value)} from ${where} (kept as it is)`);
  }
  if (provider?.type === "openai-compatible") {
    const limits = result.modelEntry ?? state.catalog.models.get(model.spec) ?? model;
    lines.push(
      `  Limits: ${tokens(limits.contextWindow ?? model.contextWindow)} context, ` +
        `${tokens(limits.maxTokens ?? model.maxTokens)} output; change them under ` +
        `"models" in ${models}`,
    );
  }
  if (result.checked === "unchecked") {
    lines.push(
      key
        ? "  The key could not be checked; if Garuda cannot reach the model, run `garuda setup` again."
        : "  The server could not be checked; start it before you use Garuda.",
    );
  }
  if (result.checked === "skipped")
    lines.push(key ? "  The key was not checked (--no-check)." : "  The server was not checked (--no-check).");
  const garudaModel = env.GARUDA_MODEL;
  if (garudaModel && garudaModel !== result.spec) {
    lines.push(`  Note: GARUDA_MODEL=${garudaModel} is set in this environment and overrides the default here.`);
  }
  if (outcome.keySaved && key && keys.fromEnvironment(key.name)) {
    lines.push(
      `  Note: ${key.name} is also set in this environment, and that value wins; unset it to use the saved key.`,
    );
  }
  lines.push("Editors pick this up at their next session. `garuda setup --show` shows it again.");
  return lines;
}
