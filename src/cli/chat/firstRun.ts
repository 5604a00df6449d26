// The first run in a terminal: Garuda has no model or no key yet. Instead of ending with a
// sentence about setup, the chat offers to run it there and then (y/n); after a setup that saved
// a model, the chat starts. In a pipe nothing is asked: the error is printed and the chat exits 1.
import { SETUP_HINT } from "../../config/modelSetup.ts";
import { ConfigError, SetupRequiredError } from "../../errors/configError.ts";
import { ModelError } from "../../model/types.ts";
import { describeFailure } from "../errors.ts";
import type { ChatInput } from "./input.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";

export interface FirstRunContext {
  input: ChatInput;
  screen: Screen;
  style: Style;
}

/** What is missing, without the hint for editors and scripts (the question replaces it). */
export function missingText(error: SetupRequiredError): string {
  return error.message.replace(SETUP_HINT, "").trim();
}

/** Asks whether to run setup now; true for yes. Any other answer, Ctrl-C or the input's end is no. */
export async function offerSetup(
  error: SetupRequiredError,
  { input, screen, style }: FirstRunContext,
): Promise<boolean> {
  screen.line(style.yellow(missingText(error)));
  screen.line(style.cyan("Set it up now with `garuda setup`?  [y] Yes   [n] No"));
  for (;;) {
    const answer = await input.readAnswer(new AbortController().signal);
    if (answer === "y" || answer === "yes") {
      screen.line(style.green("  → Starting setup."));
      return true;
    }
    if (answer === undefined || answer === "n" || answer === "no" || answer === "escape") {
      screen.line(style.dim("  → Not now. Run `garuda setup` when you are ready."));
      return false;
    }
  }
}

/**
 * The chat's runtime did not start: on a first run in a terminal, offers setup (true: the user
 * wants it now); otherwise prints the error to stderr (false: the chat exits 1).
 */
export async function startFailed(error: unknown, context: FirstRunContext): Promise<boolean> {
  const { input, screen } = context;
  screen.endLine();
  if (error instanceof SetupRequiredError && input.interactive && screen.live) return offerSetup(error, context);
  const text =
    error instanceof SetupRequiredError || error instanceof ConfigError || error instanceof ModelError
      ? `garuda: ${error.message}`
      : describeFailure(error).text;
  process.stderr.write(`${text}\n`);
  return false;
}
