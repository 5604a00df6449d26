import { ConfigError } from "../errors/configError.ts";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname) || hostname.endsWith(".localhost");
}

/**
 * Checks a provider base URL: http(s) only, no user:password part (it would leak into logs),
 * and plain http only to this machine unless the provider allows it explicitly.
 */
export function checkBaseUrl(url: string, where: string, allowInsecureHttp = false): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(where, `base URL "${url}" is not a URL`, "Give a full URL such as https://api.example.com");
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new ConfigError(where, `base URL "${url}" must start with https:// or http://`);
  }
  if (parsed.username || parsed.password) {
    throw new ConfigError(
      where,
      "base URL must not contain a user name or password",
      "Put the key in ~/.garuda/credentials (garuda setup) instead",
    );
  }
  if (parsed.protocol === "http:" && !allowInsecureHttp && !isLoopback(parsed.hostname)) {
    throw new ConfigError(
      where,
      `plain http:// is only allowed to this machine, not to ${parsed.hostname}`,
      "Use https://",
    );
  }
  return url.replace(/\/+$/, "");
}
