// The environment a command gets: an allowlist of the executor's environment, never the whole of
// it, so a provider key that leaked into process.env still cannot reach a child. Bun.spawn without
// `env` would pass the environment the process *started* with, so every spawn passes one explicitly.

/** What commands inherit from Garuda's environment (plus ExecutorOptions.envAllowlist). */
export const ENV_ALLOWLIST = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "TMPDIR",
];

const FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";

export interface ChildEnvOptions {
  /** Where allowlisted values come from (process.env). */
  base: Record<string, string | undefined>;
  /** Extra names allowed on top of ENV_ALLOWLIST. */
  allow?: string[];
  home: string;
  tmpDir: string;
  /** The request's own variables: set as given. */
  extra?: Record<string, string>;
}

export function childEnv(options: ChildEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...ENV_ALLOWLIST, ...(options.allow ?? [])]) {
    const value = options.base[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= FALLBACK_PATH;
  env.HOME = options.home;
  env.TMPDIR = options.tmpDir;
  return { ...env, ...options.extra };
}

/** The proxy URL a sandboxed command uses (the bridge on Linux, the proxy's TCP port on macOS). */
export function proxyUrl(token: string, port: number): string {
  return `http://garuda:${token}@127.0.0.1:${port}`;
}

/** Variables that send HTTP(S) clients (curl, git, npm, pip, Node with NODE_USE_ENV_PROXY) through the proxy. */
export function proxyEnv(url: string): Record<string, string> {
  const noProxy = "localhost,127.0.0.1,::1";
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    NODE_USE_ENV_PROXY: "1",
  };
}
