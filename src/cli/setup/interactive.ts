// `garuda setup` in a terminal: provider → model (a server's own list for an OpenAI-compatible
// provider) → key (hidden; none for a local server) → check → save → summary.
import { ConfigError } from "../../errors/configError.ts";
import { findModel, parseSpec } from "../../config/modelsFile.ts";
import {
  type ModelInfo,
  notRunningMessage,
  type ProviderInfo,
  providerTitle,
  serverAddress,
} from "../../model/catalog.ts";
import { oneLine } from "../../text/visible.ts";
import { checkKey } from "./check.ts";
import { ANTHROPIC_API_URL, modelChoices, modelLabel, modelRows, providerChoices, providerRows } from "./choices.ts";
import { maskKey } from "./mask.ts";
import { confirm, secret, select } from "./prompts.ts";
import { saveSetup, type SetupResult, summaryLines } from "./save.ts";
import { checkServerModel, listServerModels, MAX_LISTED, modelsFileEntry } from "./serverModels.ts";
import {
  existingKey,
  type FoundKey,
  keyProblem,
  providerBaseUrl,
  type SetupState,
  shortPath,
  unknownModelProblem,
} from "./state.ts";
import { SetupCancelled, type SetupIO, TerminalSession } from "./terminal.ts";

export interface InteractiveOptions {
  /** --model: the model is chosen already, no menus. */
  model?: string;
  /** False with --no-check. */
  check: boolean;
  checkTimeoutMs?: number;
}

/** The endpoint setup will check and the runtime will call, as the menu shows it. */
function endpointText(state: SetupState, provider: ProviderInfo): string {
  const url = providerBaseUrl(state, provider) ?? ANTHROPIC_API_URL;
  return provider.type === "anthropic" && state.ctx.env.ANTHROPIC_BASE_URL
    ? `${oneLine(url, 80)} (ANTHROPIC_BASE_URL)`
    : oneLine(url, 80);
}

async function chooseProvider(session: TerminalSession, state: SetupState, last?: string): Promise<ProviderInfo> {
  const providers = providerChoices(state.catalog);
  const current = state.catalog.default ? parseSpec(state.catalog.default).provider : undefined;
  const only = providers.length === 1 ? providers[0] : undefined;
  if (only) {
    session.write(`Provider: ${only.name}\n`);
    return only;
  }
  const index = await select(session, {
    title: "Choose a provider",
    items: providerRows(providers, current, (provider) => endpointText(state, provider)),
    initial: Math.max(
      0,
      providers.findIndex((provider) => provider.name === (last ?? current)),
    ),
    chosen: (i) => `Provider: ${providers[i]?.name}`,
  });
  return providers[index] as ProviderInfo;
}

/**
 * The models to offer: those models.json lists for the provider and, for an OpenAI-compatible
 * one, those its server lists (GET /models, the first MAX_LISTED). Undefined, with the reason
 * written, when there is none to offer (a local server not running, say).
 */
async function modelsToOffer(
  session: TerminalSession,
  state: SetupState,
  provider: ProviderInfo,
  options: InteractiveOptions,
): Promise<ModelInfo[] | undefined> {
  const own = modelChoices(state.catalog, provider);
  const baseUrl = provider.baseUrl;
  if (provider.type !== "openai-compatible" || !baseUrl) {
    if (own.length > 0) return own;
    throw new ConfigError(
      state.catalog.file,
      `the provider "${provider.name}" has no models`,
      'Add its models under "models", or run `garuda setup --model <provider>/<model>`',
    );
  }
  const title = providerTitle(provider);
  const address = serverAddress(baseUrl);
  session.draw([`Asking ${title} at ${oneLine(address)} for its models …`]);
  const apiKey = existingKey(state, provider)?.value;
  const listing = await listServerModels({
    provider,
    baseUrl,
    ...(apiKey && { apiKey }),
    signal: session.signal,
    ...(options.checkTimeoutMs ? { timeoutMs: options.checkTimeoutMs } : {}),
  });
  session.erase();
  if (listing.result === "ok") {
    const known = new Set(own.map((model) => model.spec));
    const listed = listing.models.filter((model) => !known.has(model.spec));
    if (listed.length > MAX_LISTED) {
      session.write(
        `${title} lists ${listed.length} models; the first ${MAX_LISTED} are shown. For ` +
          `another one: garuda setup --model ${provider.name}/<model>\n`,
      );
    }
    const models = [...own, ...listed.slice(0, MAX_LISTED)];
    if (models.length > 0) return models;
    session.write(
      `${session.style.warn(`${title} at ${oneLine(address)} has no models yet.`)} ` +
        `Download or load one, then choose ${provider.name} again.\n`,
    );
    return undefined;
  }
  const problem =
    listing.result === "not-running"
      ? notRunningMessage(provider, baseUrl)
      : `${title} at ${address} did not list its models: ${listing.reason}.`;
  session.write(`${session.style.warn(oneLine(problem, 300))}\n`);
  if (own.length > 0) return own;
  session.write(
    listing.result === "not-running"
      ? "Choose another provider, or start the server and choose it again.\n"
      : `Choose another provider, or name the model: garuda setup --model ${provider.name}/<model>\n`,
  );
  return undefined;
}

async function chooseModel(session: TerminalSession, state: SetupState, models: ModelInfo[]): Promise<ModelInfo> {
  const current = state.catalog.default ? findModel(state.catalog, state.catalog.default).spec : undefined;
  const index = await select(session, {
    title: "Choose a model",
    items: modelRows(models, current),
    initial: Math.max(
      0,
      models.findIndex((model) => model.spec === current),
    ),
    chosen: (i) => {
      const model = models[i] as ModelInfo;
      return `Model: ${model.spec}${model.label ? ` (${modelLabel(model)})` : ""}`;
    },
  });
  return models[index] as ModelInfo;
}

function describeSource(state: SetupState, key: FoundKey): string {
  return key.source === "environment"
    ? `the environment (${key.name})`
    : `${shortPath(state, state.ctx.paths.credentials)} (${key.name})`;
}

/**
 * A keyless provider's "key step": a model chosen from the server's list needs no check; one
 * given with --model is looked for on the server. Undefined when the user does not want it
 * saved after a failed check.
 */
async function checkServer(
  session: TerminalSession,
  state: SetupState,
  provider: ProviderInfo,
  model: ModelInfo,
  options: InteractiveOptions,
): Promise<Pick<SetupResult, "newKey" | "checked" | "modelEntry"> | undefined> {
  const baseUrl = providerBaseUrl(state, provider);
  if (!options.check || !baseUrl) return { newKey: false, checked: "skipped" };
  session.draw([`Checking ${providerTitle(provider)} at ${oneLine(serverAddress(baseUrl))} …`]);
  const result = await checkServerModel({
    provider,
    baseUrl,
    model,
    signal: session.signal,
    ...(options.checkTimeoutMs ? { timeoutMs: options.checkTimeoutMs } : {}),
  });
  session.erase();
  if (result.ok) {
    session.write(`${result.text}\n`);
    const entry =
      result.listed && !state.catalog.models.has(model.spec) ? modelsFileEntry(result.listed, provider) : undefined;
    return { newKey: false, checked: "ok", ...(entry && { modelEntry: entry }) };
  }
  session.write(`${session.style.warn(oneLine(result.problem, 300))}\n`);
  if (await confirm(session, "Save it anyway?", false)) return { newKey: false, checked: "unchecked" };
  return undefined;
}

/** Asks for the key (or to keep the one there is) until it passes the check or the user saves it anyway. */
async function obtainKey(
  session: TerminalSession,
  state: SetupState,
  provider: ProviderInfo,
  options: InteractiveOptions,
): Promise<Pick<SetupResult, "key" | "newKey" | "checked">> {
  const baseUrl = providerBaseUrl(state, provider);
  const keyName = provider.apiKeyEnv ?? "";
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
        session.write(
          `Paste the API key for ${provider.name} and press Enter. It is saved as ` +
            `${keyName}; it is not shown as you type.\n`,
        );
        explained = true;
      }
      const value = await secret(session, "Key: ");
      const problem = keyProblem(value);
      if (problem) {
        session.write(`${problem}. Paste it again, or press Ctrl-C to stop.\n`);
        existing = undefined;
        continue;
      }
      key = { name: keyName, kind: "apiKey", value, source: "credentials" };
      newKey = true;
    }
    if (!options.check) return { key, newKey, checked: "skipped" };

    session.draw([`Checking the key with ${oneLine(baseUrl ?? ANTHROPIC_API_URL)} …`]);
    const result = await checkKey({
      baseUrl,
      key,
      api: provider,
      signal: session.signal,
      ...(options.checkTimeoutMs ? { timeoutMs: options.checkTimeoutMs } : {}),
    });
    session.erase();
    if (result.result === "ok") {
      session.write(`The key works (${result.url}).\n`);
      return { key, newKey, checked: "ok" };
    }
    if (result.result === "refused") {
      session.write(
        `${session.style.warn(`The key was refused (HTTP ${result.status} from ${result.url}).`)} ` +
          `Paste a valid key, or press Ctrl-C to stop.\n`,
      );
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
    session.write(
      `${session.style.bold("Garuda setup")}: choose a model and, if it needs one, ` +
        `enter its API key. Nothing is saved until the end; Ctrl-C stops.\n\n`,
    );
    let model: ModelInfo | undefined;
    let provider: ProviderInfo;
    if (options.model) {
      const unknown = unknownModelProblem(state, options.model);
      if (unknown) {
        io.stderr.write(`garuda setup: ${unknown}\n`);
        return 2;
      }
      model = findModel(state.catalog, options.model);
      provider = state.catalog.providers[model.provider] as ProviderInfo;
      session.write(`Model: ${model.spec} (from --model)\n`);
    } else {
      let last: string | undefined;
      do {
        provider = await chooseProvider(session, state, last);
        last = provider.name;
        const models = await modelsToOffer(session, state, provider, options);
        if (models) model = await chooseModel(session, state, models);
      } while (!model);
    }
    const chosen = model;
    // A model from the server's list is there: it needs no other check. Its reported limits go into models.json.
    const listed = provider.type === "openai-compatible" && !options.model && !state.catalog.models.has(chosen.spec);
    const entry = listed ? modelsFileEntry(chosen, provider) : undefined;
    let key: Pick<SetupResult, "key" | "newKey" | "checked" | "modelEntry"> | undefined;
    if (provider.apiKeyEnv) key = await obtainKey(session, state, provider, options);
    else key = listed ? { newKey: false, checked: "ok" } : await checkServer(session, state, provider, chosen, options);
    if (!key) {
      session.write("Nothing was saved.\n");
      return 1;
    }
    session.throwIfCancelled();
    const result: SetupResult = { spec: chosen.spec, ...(entry && { modelEntry: entry }), ...key };
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
