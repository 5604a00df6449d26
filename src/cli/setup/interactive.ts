// `garuda setup` in a terminal: provider → model → key (hidden) → check → save → summary.
import { ConfigError } from "../../config/errors.ts";
import { findModel, parseSpec } from "../../config/modelsFile.ts";
import type { ModelInfo, ProviderInfo } from "../../model/catalog.ts";
import { oneLine } from "../../text/visible.ts";
import { checkKey } from "./check.ts";
import { modelChoices, modelLabel, modelRows, providerChoices, providerRows } from "./choices.ts";
import { maskKey } from "./mask.ts";
import { confirm, secret, select } from "./prompts.ts";
import { saveSetup, type SetupResult, summaryLines } from "./save.ts";
import { existingKey, type FoundKey, keyProblem, providerBaseUrl, type SetupState, shortPath } from "./state.ts";
import { SetupCancelled, type SetupIO, TerminalSession } from "./terminal.ts";

export interface InteractiveOptions {
  /** --model: the model is chosen already, no menus. */
  model?: string;
  /** False with --no-check. */
  check: boolean;
  checkTimeoutMs?: number;
}

async function chooseProvider(session: TerminalSession, state: SetupState): Promise<ProviderInfo> {
  const providers = providerChoices(state.catalog);
  const current = state.catalog.default ? parseSpec(state.catalog.default).provider : undefined;
  const only = providers.length === 1 ? providers[0] : undefined;
  if (only) {
    session.write(`Provider: ${only.name}\n`);
    return only;
  }
  const index = await select(session, {
    title: "Choose a provider",
    items: providerRows(providers, current),
    initial: Math.max(0, providers.findIndex((provider) => provider.name === current)),
    chosen: (i) => `Provider: ${providers[i]?.name}`,
  });
  return providers[index] as ProviderInfo;
}

async function chooseModel(session: TerminalSession, state: SetupState, provider: ProviderInfo): Promise<ModelInfo> {
  const models = modelChoices(state.catalog, provider);
  if (models.length === 0) {
    throw new ConfigError(state.catalog.file, `the provider "${provider.name}" has no models`, "Add its models under \"models\", or run `garuda setup --model <provider>/<model>`");
  }
  const current = state.catalog.default ? findModel(state.catalog, state.catalog.default).spec : undefined;
  const index = await select(session, {
    title: "Choose a model",
    items: modelRows(models, current),
    initial: Math.max(0, models.findIndex((model) => model.spec === current)),
    chosen: (i) => {
      const model = models[i] as ModelInfo;
      return `Model: ${model.spec}${model.label ? ` (${modelLabel(model)})` : ""}`;
    },
  });
  return models[index] as ModelInfo;
}

function describeSource(state: SetupState, key: FoundKey): string {
  return key.source === "environment" ? `the environment (${key.name})` : `${shortPath(state, state.ctx.paths.credentials)} (${key.name})`;
}

/** Asks for the key (or to keep the one there is) until it passes the check or the user saves it anyway. */
async function obtainKey(
  session: TerminalSession,
  state: SetupState,
  provider: ProviderInfo,
  options: InteractiveOptions,
): Promise<Pick<SetupResult, "key" | "newKey" | "checked">> {
  const baseUrl = providerBaseUrl(state, provider);
  let existing = existingKey(state, provider);
  let explained = false;
  for (;;) {
    let key: FoundKey | undefined;
    let newKey = false;
    if (existing) {
      const found = existing;
      const index = await select(session, {
        title: `A key for ${provider.name} is already set`,
        items: [`Keep the key from ${describeSource(state, found)}: ${maskKey(found.value)}`, "Enter a new key"],
        chosen: (i) => (i === 0 ? `Key: keeping ${found.name} ${maskKey(found.value)}` : "Key: a new one"),
      });
      if (index === 0) key = found;
    }
    if (!key) {
      if (!explained) {
        session.write(`Paste the API key for ${provider.name} and press Enter. It is saved as ${provider.apiKeyEnv}; it is not shown as you type.\n`);
        explained = true;
      }
      const value = await secret(session, "Key: ");
      const problem = keyProblem(value);
      if (problem) {
        session.write(`${problem}. Paste it again, or press Ctrl-C to stop.\n`);
        existing = undefined;
        continue;
      }
      key = { name: provider.apiKeyEnv, kind: "apiKey", value, source: "credentials" };
      newKey = true;
    }
    if (!options.check) return { key, newKey, checked: "skipped" };

    session.draw([`Checking the key with ${oneLine(baseUrl ?? "api.anthropic.com")} …`]);
    const result = await checkKey({ baseUrl, key, signal: session.signal, ...(options.checkTimeoutMs ? { timeoutMs: options.checkTimeoutMs } : {}) });
    session.erase();
    if (result.result === "ok") {
      session.write(`The key works (${result.url}).\n`);
      return { key, newKey, checked: "ok" };
    }
    if (result.result === "refused") {
      session.write(`${session.style.warn(`The key was refused (HTTP ${result.status} from ${result.url}).`)} Paste a valid key, or press Ctrl-C to stop.\n`);
      existing = undefined;
      continue;
    }
    session.write(`${session.style.warn(`The key could not be checked: ${result.reason}.`)} Are you offline?\n`);
    if (await confirm(session, "Save it anyway?", false)) return { key, newKey, checked: "unchecked" };
    existing = undefined;
  }
}

/** The whole interactive flow; returns the exit code. Nothing is written before the last step. */
export async function runInteractive(io: SetupIO, state: SetupState, options: InteractiveOptions): Promise<number> {
  const session = new TerminalSession(io, state.ctx.env);
  try {
    session.write(`${session.style.bold("Garuda setup")}: choose a model and enter its API key. Nothing is saved until the end; Ctrl-C stops.\n\n`);
    let model: ModelInfo;
    let provider: ProviderInfo;
    if (options.model) {
      model = findModel(state.catalog, options.model);
      provider = state.catalog.providers[model.provider] as ProviderInfo;
      session.write(`Model: ${model.spec} (from --model)\n`);
    } else {
      provider = await chooseProvider(session, state);
      model = await chooseModel(session, state, provider);
    }
    const key = await obtainKey(session, state, provider, options);
    session.throwIfCancelled();
    const result: SetupResult = { spec: model.spec, ...key };
    const outcome = saveSetup(state, result);
    session.write(`\n${summaryLines(state, result, outcome).join("\n")}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof SetupCancelled)) throw error;
    session.erase();
    session.write("\nSetup cancelled. Nothing was saved.\n");
    return error.exitCode;
  } finally {
    session.close();
  }
}
