// What a `catch` gets is `unknown`: usually an Error, but a library may throw a string or a
// plain object. These read it the one way every layer shows it.

/** The message of a caught value: an Error's message, anything else as a string. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The stack of a caught Error (its message where it has none), for logs a developer reads. */
export const stackOf = (error: unknown): string =>
  error instanceof Error ? (error.stack ?? error.message) : String(error);

/** A caught value as an Error, for callbacks and rejections that promise one. */
export const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** The errno code of a caught file-system error (ENOENT, EACCES, …), or undefined. */
export const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" ? code : undefined;
};
