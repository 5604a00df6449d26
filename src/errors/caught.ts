// What a `catch` gets is `unknown`: usually an Error, but a library may throw a string or a
// plain object. These read it the one way every layer shows it.

/**
 * Bun's own advice inside the errors it throws: a question after a failed fetch ("Unable to
 * connect. Is the computer able to access the url?"), a hint to pass `verbose: true`, and the
 * "Bun v1.x (Linux x64)" and "note: …" lines of its crash reports. They speak to a developer
 * of Bun programs, not to Garuda's user, and name a runtime the user never chose.
 */
const RUNTIME_HINTS = [
  / ?Is the computer able to access the url\?/g,
  / ?Was there a typo in the url or port\?/g,
  / ?For more information, pass `verbose: true` in the second argument to fetch\(\)\.?/g,
  /^\s*Bun v\d+\.\d+\.\d+[^\n]*(?:\n|$)/gm,
  /^\s*note: [^\n]*(?:\n|$)/gm,
];

/** `text` without Bun's hints (RUNTIME_HINTS); what it says of the failure stays. */
export function withoutRuntimeHints(text: string): string {
  let out = text;
  for (const hint of RUNTIME_HINTS) out = out.replace(hint, "");
  return out.trimEnd();
}

/** The message of a caught value: an Error's message, anything else as a string (without Bun's hints). */
export const messageOf = (error: unknown): string =>
  withoutRuntimeHints(error instanceof Error ? error.message : String(error));

/** The stack of a caught Error (its message where it has none), for logs a developer reads. */
export const stackOf = (error: unknown): string =>
  withoutRuntimeHints(error instanceof Error ? (error.stack ?? error.message) : String(error));

/** A caught value as an Error, for callbacks and rejections that promise one. */
export const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** The errno code of a caught file-system error (ENOENT, EACCES, …), or undefined. */
export const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" ? code : undefined;
};
