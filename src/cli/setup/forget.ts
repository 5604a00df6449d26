// `garuda setup --forget [NAME]`: removes one key from ~/.garuda/credentials.
import { readCredentials } from "../../config/credentials.ts";
import { ConfigError } from "../../errors/configError.ts";
import { chooseModel } from "../../config/modelSetup.ts";
import { findModel, loadModelCatalog } from "../../config/modelsFile.ts";
import { forgetCredential } from "../../config/setupFiles.ts";
import type { CliContext } from "../context.ts";
import { maskKey } from "./mask.ts";
import { confirm } from "./prompts.ts";
import { SetupCancelled, type SetupIO, isInteractive, TerminalSession } from "./terminal.ts";

const KEY_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** With no NAME: the key of the model in use (--model, GARUDA_MODEL, the default), else Anthropic's. */
function keyNameToForget(ctx: CliContext, name: string | undefined, modelFlag?: string): string {
  if (name) {
    if (!KEY_NAME.test(name))
      throw new ConfigError(
        undefined,
        `"${name}" is not a key name`,
        "Give a name such as ANTHROPIC_API_KEY (see `garuda setup --show`)",
      );
    return name;
  }
  const catalog = loadModelCatalog(ctx.paths.models);
  const choice = chooseModel(modelFlag, ctx.env, catalog);
  if (!choice) return "ANTHROPIC_API_KEY";
  const model = findModel(catalog, choice.spec);
  const provider = catalog.providers[model.provider];
  if (provider && !provider.apiKeyEnv) {
    throw new ConfigError(
      undefined,
      `${model.spec} needs no key, so there is no key of it to forget`,
      "Name the key to forget: garuda setup --forget NAME (`garuda setup --show` lists them)",
    );
  }
  return provider?.apiKeyEnv ?? "ANTHROPIC_API_KEY";
}

/** Asks first in a terminal; a script (no terminal) has said what it wants. Returns the exit code. */
export async function runForget(
  io: SetupIO,
  ctx: CliContext,
  options: { name?: string; model?: string },
): Promise<number> {
  const name = keyNameToForget(ctx, options.name, options.model);
  const file = ctx.paths.credentials;
  const value = readCredentials(file)?.[name];
  const stillInEnv = ctx.keys.fromEnvironment(name)
    ? `\n${name} is still set in the environment; unset it there too.`
    : "";
  if (value === undefined) {
    io.stdout.write(`${name} is not in ${file}: nothing to forget.${stillInEnv}\n`);
    return 0;
  }
  if (isInteractive(io)) {
    const session = new TerminalSession(io, ctx.env);
    try {
      if (!(await confirm(session, `Remove ${name} (${maskKey(value)}) from ${file}?`, false))) {
        session.write("Nothing was removed.\n");
        return 0;
      }
    } catch (error) {
      if (!(error instanceof SetupCancelled)) throw error;
      session.write("\nCancelled. Nothing was removed.\n");
      return error.exitCode;
    } finally {
      session.close();
    }
  }
  const outcome = forgetCredential(file, name);
  if (outcome === "absent") io.stdout.write(`${name} is not in ${file} any more: nothing to forget.${stillInEnv}\n`);
  else
    io.stdout.write(
      `Removed ${name} from ${file}${outcome === "removed-file" ? "; it was the last key, so the file is removed" : ""}.${stillInEnv}\n`,
    );
  return 0;
}
