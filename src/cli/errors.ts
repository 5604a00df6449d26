import { ConfigError, SetupRequiredError } from "../config/errors.ts";
import { ModelError } from "../model/types.ts";

/** Errors whose message is written for the user: printed as is, no stack trace. */
export function isUserFacing(error: unknown): error is Error {
  return error instanceof ConfigError || error instanceof SetupRequiredError || error instanceof ModelError;
}

/** One line for stderr, and the exit code. Unexpected errors keep their stack: they are bugs. */
export function describeFailure(error: unknown): { text: string; exitCode: number } {
  if (isUserFacing(error)) return { text: `garuda: ${error.message}`, exitCode: 1 };
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { text: `garuda: unexpected error (please report it):\n${detail}`, exitCode: 1 };
}
