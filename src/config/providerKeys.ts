import { BUILTIN_PROVIDERS } from "../model/catalog.ts";

/** Names that always count as provider keys, whatever models.json says. */
export const BUILTIN_KEY_NAMES: readonly string[] = [
  ...new Set([
    ...Object.values(BUILTIN_PROVIDERS).flatMap((provider) => (provider.apiKeyEnv ? [provider.apiKeyEnv] : [])),
    "ANTHROPIC_AUTH_TOKEN",
    "OPENROUTER_API_KEY",
  ]),
];

/**
 * Provider keys taken out of the process environment, so no child process (a command, a hook,
 * an MCP server) ever inherits them. Garuda keeps them in memory only.
 */
export class ProviderKeys {
  readonly #fromEnvironment = new Map<string, string>();
  /** Keys forgotten (a logout): no longer used, still redacted wherever they might show. */
  readonly #forgotten = new Set<string>();

  /**
   * Moves the named variables from `env` into this store (keepProviderKeys). Safe to call
   * again with more names: a later models.json may name a provider's variable.
   */
  take(env: Record<string, string | undefined>, names: Iterable<string>): this {
    for (const name of names) {
      const value = env[name];
      if (value === undefined) continue;
      // An empty value (an editor entry with "ANTHROPIC_API_KEY": "") means "not set".
      if (value.length > 0 && !this.#fromEnvironment.has(name)) this.#fromEnvironment.set(name, value);
      delete env[name];
    }
    return this;
  }

  fromEnvironment(name: string): string | undefined {
    return this.#fromEnvironment.get(name);
  }

  /** Stops using the key `name` from the environment (a logout); true when there was one. */
  forget(name: string): boolean {
    const value = this.#fromEnvironment.get(name);
    if (value === undefined) return false;
    this.#forgotten.add(value);
    this.#fromEnvironment.delete(name);
    return true;
  }

  /** Every key value held or forgotten, for the redactor. */
  secrets(): string[] {
    return [...new Set([...this.#fromEnvironment.values(), ...this.#forgotten])];
  }
}

/** Takes the built-in provider keys out of `env` (process.env in the binary). */
export function keepProviderKeys(
  env: Record<string, string | undefined>,
  extraNames: Iterable<string> = [],
  keys = new ProviderKeys(),
): ProviderKeys {
  return keys.take(env, [...BUILTIN_KEY_NAMES, ...extraNames]);
}
