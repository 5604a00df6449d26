// The last step of setup, and the only one that writes: the key (if a new one was entered)
// into ~/.garuda/credentials, the model as the default in ~/.garuda/models.json.
import { saveCredential } from "../../config/credentials.ts";
import { modelsFileWithDefault, setDefaultModel } from "../../config/setupFiles.ts";
import { maskKey } from "./mask.ts";
import { type FoundKey, type SetupState, shortPath } from "./state.ts";

export interface SetupResult {
  spec: string;
  /** The key that will be used: a new one (saved now) or one that was kept. */
  key: FoundKey;
  /** True when `key` was entered now and is to be saved. */
  newKey: boolean;
  /** The check's outcome, for the summary. */
  checked: "ok" | "unchecked" | "skipped";
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
  const modelChanged = modelsFileWithDefault(paths.models, result.spec) !== undefined;
  if (result.newKey) saveCredential(paths.credentials, result.key.name, result.key.value);
  if (modelChanged) setDefaultModel(paths.models, result.spec);
  return { modelChanged, keySaved: result.newKey };
}

/** What was saved, with the key masked, and what in the environment would override it. */
export function summaryLines(state: SetupState, result: SetupResult, outcome: SaveOutcome): string[] {
  const { paths, env, keys } = state.ctx;
  const models = shortPath(state, paths.models);
  const credentials = shortPath(state, paths.credentials);
  const masked = maskKey(result.key.value);
  const lines = ["Garuda is set up."];
  lines.push(`  Model: ${result.spec}, the default in ${models}${outcome.modelChanged ? "" : " (unchanged)"}`);
  if (outcome.keySaved) lines.push(`  Key:   ${result.key.name} ${masked}, saved in ${credentials} (readable only by you)`);
  else {
    const where = result.key.source === "environment" ? "the environment" : credentials;
    lines.push(`  Key:   ${result.key.name} ${masked} from ${where} (kept as it is)`);
  }
  if (result.checked === "unchecked") lines.push("  The key could not be checked; if Garuda cannot reach the model, run `garuda setup` again.");
  if (result.checked === "skipped") lines.push("  The key was not checked (--no-check).");
  const garudaModel = env.GARUDA_MODEL;
  if (garudaModel && garudaModel !== result.spec) {
    lines.push(`  Note: GARUDA_MODEL=${garudaModel} is set in this environment and overrides the default here.`);
  }
  if (outcome.keySaved && keys.fromEnvironment(result.key.name)) {
    lines.push(`  Note: ${result.key.name} is also set in this environment, and that value wins; unset it to use the saved key.`);
  }
  lines.push("Editors pick this up at their next session. `garuda setup --show` shows it again.");
  return lines;
}
