// `garuda setup --forget [NAME]`: removes a key (NAME, or the keys of the model in use) from
// ~/.garuda/credentials, the same way as an editor's ACP logout (config/forgetKeys.ts).
import { readCredentials } from "../../config/credentials.ts";
import { ConfigError } from "../../errors/configError.ts";
import { forgetKeys, modelKeyNames } from "../../config/forgetKeys.ts";
import type { CliContext } from "../context.ts";
import { maskKey } from "./mask.ts";
import { confirm } from "./prompts.ts";
import { SetupCancelled, type SetupIO, isInteractive, TerminalSession } from "./terminal.ts";

const KEY_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** With NAME: that key. Without: the keys of the model in use (config/forgetKeys.ts, shared with ACP's logout). */
function keyNamesToForget(ctx: CliContext, name: string | undefined, modelFlag?: string): string[] {
  if (name) {
    if (!KEY_NAME.test(name))
      throw new ConfigError(
        undefined,
        `"${name}" is not a key name`,
        "Give a name such as ANTHROPIC_API_KEY (see `garuda setup --show`)",
      );
    return [name];
  }
  const keys = modelKeyNames(ctx, modelFlag);
  if ("keyless" in keys) {
    throw new ConfigError(
      undefined,
      `${keys.keyless} needs no key, so there is no key of it to forget`,
      "Name the key to forget: garuda setup --forget NAME (`garuda setup --show` lists them)",
    );
  }
  return keys.names;
}

/** Asks first in a terminal; a script (no terminal) has said what it wants. Returns the exit code. */
export async function runForget(
  io: SetupIO,
  ctx: CliContext,
  options: { name?: string; model?: string },
): Promise<number> {
  const names = keyNamesToForget(ctx, options.name, options.model);
  const file = ctx.paths.credentials;
  const saved = readCredentials(file) ?? {};
  const held = names.filter((name) => saved[name] !== undefined);
  const inEnvironment = names.filter((name) => ctx.keys.fromEnvironment(name));
  const stillInEnv = inEnvironment
    .map((name) => `\n${name} is still set in the environment; unset it there too.`)
    .join("");
  if (held.length === 0) {
    // The model's own key is the one named: its Anthropic token is said only when it is there.
    io.stdout.write(`${names[0]} is not in ${file}: nothing to forget.${stillInEnv}\n`);
    return 0;
  }
  if (isInteractive(io)) {
    const session = new TerminalSession(io, ctx.env);
    try {
      const what = held.map((name) => `${name} (${maskKey(saved[name] ?? "")})`).join(" and ");
      if (!(await confirm(session, `Remove ${what} from ${file}?`, false))) {
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
  for (const forgotten of forgetKeys(ctx, held)) {
    if (forgotten.file === "absent")
      io.stdout.write(`${forgotten.name} is not in ${file} any more: nothing to forget.\n`);
    else
      io.stdout.write(
        `Removed ${forgotten.name} from ` +
          `${file}${forgotten.file === "removed-file" ? "; it was the last key, so the file is removed" : ""}.\n`,
      );
  }
  if (stillInEnv !== "") io.stdout.write(`${stillInEnv.slice(1)}\n`);
  return 0;
}
