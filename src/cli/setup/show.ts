// `garuda setup --show`: the model in use and where it comes from, each known key name with
// its source (env, file or missing), masked. Needs no terminal.
import { ConfigError } from "../../errors/configError.ts";
import { chooseModel } from "../../config/modelSetup.ts";
import { findModel, loadModelCatalog, providerKeyNames } from "../../config/modelsFile.ts";
import { BUILTIN_KEY_NAMES } from "../../config/providerKeys.ts";
import { readCredentials, type Credentials } from "../../config/credentials.ts";
import type { CliContext } from "../context.ts";
import { ANTHROPIC_API_URL } from "./choices.ts";
import { maskKey } from "./mask.ts";
import { existingKey, providerBaseUrl, type SetupState, shortPath } from "./state.ts";

const SOURCE_TEXT = {
  "--model": "--model",
  GARUDA_MODEL: "GARUDA_MODEL",
  "models.json": "the default in models.json",
  "environment key": "the Anthropic key in the environment; `garuda setup` saves another",
} as const;

/** The report's lines and whether every file could be read (the exit code: 0 or 1). */
export function showLines(ctx: CliContext, modelFlag?: string): { lines: string[]; ok: boolean } {
  const catalog = loadModelCatalog(ctx.paths.models);
  ctx.keys.take(ctx.env, providerKeyNames(catalog));
  let credentials: Credentials = {};
  let problem: string | undefined;
  try {
    credentials = readCredentials(ctx.paths.credentials) ?? {};
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problem = error.message;
  }
  const state: SetupState = { ctx, catalog, credentials };
  const lines: string[] = [];

  const choice = chooseModel(modelFlag, ctx.env, catalog, ctx.keys);
  let keyInUse: string | undefined;
  if (choice) {
    const model = findModel(catalog, choice.spec);
    const provider = catalog.providers[model.provider];
    lines.push(`Model:    ${model.spec} (from ${SOURCE_TEXT[choice.source]})`);
    if (provider) {
      const baseUrl = providerBaseUrl(state, provider);
      const fromEnv = provider.type === "anthropic" && ctx.env.ANTHROPIC_BASE_URL;
      lines.push(`Endpoint: ${baseUrl ?? ANTHROPIC_API_URL}${fromEnv ? " (from ANTHROPIC_BASE_URL)" : ""}`);
      keyInUse = existingKey(state, provider)?.name ?? provider.apiKeyEnv;
      if (!provider.apiKeyEnv) lines.push("Key:      none needed (a local server)");
    }
  } else {
    lines.push("Model:    none. Run `garuda setup` in a terminal to choose one.");
  }
  lines.push(`Files:    ${shortPath(state, ctx.paths.models)}, ${shortPath(state, ctx.paths.credentials)}`);

  const names = [...new Set([...BUILTIN_KEY_NAMES, ...providerKeyNames(catalog), ...Object.keys(credentials)])];
  const width = Math.max(...names.map((name) => name.length));
  lines.push("Keys (env: the environment, file: the credentials file):");
  for (const name of names) {
    const fromEnv = ctx.keys.fromEnvironment(name);
    const fromFile = credentials[name];
    let text = "missing";
    if (fromEnv) text = `env   ${maskKey(fromEnv)}${fromFile ? ` (the file's ${maskKey(fromFile)} is not used)` : ""}`;
    else if (fromFile) text = `file  ${maskKey(fromFile)}`;
    lines.push(`  ${name.padEnd(width)}  ${text}${name === keyInUse ? "  ← the model's key" : ""}`);
  }
  if (problem) lines.push(`The credentials file was not read: ${problem}`);
  return { lines, ok: problem === undefined };
}
