import { garudaPaths, homeFrom, type GarudaPaths } from "../config/paths.ts";
import { keepProviderKeys, type ProviderKeys } from "../config/providerKeys.ts";

/** What every command gets: where ~/.garuda is, the environment, and the provider keys. */
export interface CliContext {
  paths: GarudaPaths;
  env: Record<string, string | undefined>;
  keys: ProviderKeys;
}

/**
 * Takes the provider keys out of the environment first thing, so that nothing started later
 * (commands, hooks, MCP servers) can inherit them.
 */
export function createCliContext(env: Record<string, string | undefined>): CliContext {
  const keys = keepProviderKeys(env);
  return { paths: garudaPaths(homeFrom(env)), env, keys };
}
