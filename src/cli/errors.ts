import { codeOf, stackOf } from "../errors/caught.ts";
import { ConfigError, SetupRequiredError } from "../errors/configError.ts";
import { ModelError } from "../model/types.ts";
import { visible } from "../text/visible.ts";

/** The exit code of a wrong command line (an unknown option, a bad value), as the shell's builtins use it. */
export const EXIT_USAGE = 2;

/** A wrong command line, found before the command ran: one line for the user and exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** A wrong command line, ours or citty's. */
export function isUsageError(error: unknown): error is Error {
  return error instanceof UsageError || isCittyError(error);
}

/** Errors whose message is written for the user: printed as is, no stack trace. */
function isUserFacing(error: unknown): error is Error {
  return error instanceof ConfigError || error instanceof SetupRequiredError || error instanceof ModelError;
}

/**
 * citty's own parse errors (a missing positional argument, an enum value it refuses, an unknown
 * subcommand). citty does not export the class, so its name tells them apart.
 */
function isCittyError(error: unknown): error is Error {
  return error instanceof Error && error.name === "CLIError";
}

/** citty colours the names in its messages; stderr gets them plain. */
function plain(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}

/** What a start in a folder that was deleted (or moved) under the shell says, instead of a stack. */
export const CWD_GONE =
  "the current folder no longer exists (it was deleted or moved while the shell " +
  "was in it). cd into a folder that exists, then start Garuda again.";

/** process.cwd() failed: the working folder is gone (libuv's uv_cwd gets ENOENT). */
function isCwdGone(error: unknown): boolean {
  return error instanceof Error && codeOf(error) === "ENOENT" && /process\.cwd|uv_cwd/.test(error.message);
}

export interface Failure {
  /** The line for stderr, prefixed ("garuda: …", "garuda run: …"). */
  text: string;
  /** The same without the prefix (`garuda run --format json`'s error line). */
  message: string;
  exitCode: number;
}

/**
 * One line for stderr, and the exit code. `prefix` names the command ("garuda run"). A wrong
 * command line says where to read the usage; unexpected errors keep their stack: they are bugs.
 */
export function describeFailure(error: unknown, prefix = "garuda"): Failure {
  // The terminal line shows what a server or a file name put in the message, made visible.
  const make = (message: string, exitCode: number): Failure => ({
    text: `${prefix}: ${visible(message)}`,
    message,
    exitCode,
  });
  if (isUserFacing(error)) return make(error.message, 1);
  if (isUsageError(error)) {
    const message = plain(error.message)
      .replace(/\s*\n\s*/g, " ")
      .trim();
    return make(`${message}${/[.!?]$/.test(message) ? "" : "."} See \`${prefix} --help\`.`, EXIT_USAGE);
  }
  if (isCwdGone(error)) return make(CWD_GONE, 1);
  const detail = stackOf(error);
  return make(`unexpected error (please report it):\n${detail}`, 1);
}
