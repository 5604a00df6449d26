/**
 * A problem in the user's configuration. The message names the file, says what is wrong and
 * what to do; front ends print it as is, without a stack trace.
 */
export class ConfigError extends Error {
  constructor(
    readonly file: string | undefined,
    readonly problem: string,
    readonly fix?: string,
  ) {
    super([file ? `${file}: ${problem}` : problem, fix].filter(Boolean).join(". ") + (fix ? "." : ""));
    this.name = "ConfigError";
  }
}

/**
 * Garuda cannot talk to a model yet: no model chosen, or no key for it. Front ends map this to
 * their own sign-in path (ACP answers -32000 "auth required"; the terminal offers setup).
 */
export class SetupRequiredError extends Error {
  constructor(
    readonly missing: "model" | "key",
    message: string,
  ) {
    super(message);
    this.name = "SetupRequiredError";
  }
}
