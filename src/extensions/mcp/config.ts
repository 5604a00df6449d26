// mcp.json: the user's MCP servers (~/.garuda/mcp.json, trusted) and the project's
// (<root>/.garuda/mcp.json, started only after a consent pinned to the definition's hash).
// `{"servers": {"name": {command, args, env, network, writePaths, cwd, timeoutMs, enabled}}}` for a
// local server (stdio; it starts in / unless `cwd` names the project folder or one in it), `{url,
// type: "http" | "sse", headers, timeoutMs, enabled}` for a remote one; "mcpServers" is read as
// "servers" (the common name in other tools). `${NAME}` in args, env, url and headers takes
// Garuda's environment: any name in the user's file, only the names the user's
// `projectServers.allowEnv` lists in a project's (a project cannot send itself your secrets).
// `projectServers.allowHosts` in the user's file lets project servers reach addresses the egress
// rules refuse (loopback, link-local, IP literals, other ports). A bad file or entry is a notice,
// never the end of the session.
import { isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { messageOf } from "../../errors/caught.ts";
import { ConfigError } from "../../errors/configError.ts";
import { readConfigText } from "../../config/jsonFile.ts";
import { sha256Hex } from "../../config/trust.ts";
import { parseHostRule } from "../../sandbox/proxyPolicy.ts";
import { isInside } from "../../files/isInside.ts";

export const SERVER_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

const timeoutMs = z.number().int().min(1_000).max(3_600_000).optional();
const stdioSchema = z.strictObject({
  type: z.literal("stdio").optional(),
  command: z.string().trim().min(1),
  args: z.array(z.string()).max(200).optional(),
  env: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name"), z.string())
    .optional(),
  network: z.boolean().optional(),
  writePaths: z.array(z.string().min(1)).max(50).optional(),
  cwd: z.string().min(1).optional(),
  timeoutMs,
  enabled: z.boolean().optional(),
});
const remoteSchema = z.strictObject({
  type: z.enum(["http", "sse"]).optional(),
  url: z.string().url(),
  headers: z.record(z.string(), z.string()).optional(),
  timeoutMs,
  enabled: z.boolean().optional(),
});
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const projectServersSchema = z.strictObject({
  allowEnv: z.array(z.string().regex(ENV_NAME, "must be an environment variable name")).max(100).optional(),
  allowHosts: z.array(z.string().min(1)).max(100).optional(),
});
const fileSchema = z.strictObject({
  servers: z.record(z.string(), z.unknown()).optional(),
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  projectServers: z.unknown().optional(),
});

export type {
  McpServerConfig,
  ProjectServerRules,
  RemoteServerConfig,
  ServerScope,
  StdioServerConfig,
} from "./configTypes.ts";
import type { McpServerConfig, ProjectServerRules, ServerScope } from "./configTypes.ts";

export interface LoadMcpOptions {
  userFile: string;
  root: string;
  home: string;
  /** Garuda's environment (provider keys already removed): the source of ${NAME}. */
  env: Record<string, string | undefined>;
}

const projectMcpFile = (root: string) => join(root, ".garuda", "mcp.json");

/** Variable names that usually hold a secret. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH/i;

/** How `${NAME}` is filled for one server: from where, and which names it may take. */
interface Expansion {
  env: Record<string, string | undefined>;
  /** undefined: every name (the user's own file). */
  allowed: ReadonlySet<string> | undefined;
  missing: Set<string>;
  refused: Set<string>;
}

/**
 * `${NAME}` filled from the environment; unset names are reported (and become ""), names not allowed stay as written.
 */
function expand(text: string, expansion: Expansion, used: string[]): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (all, name: string) => {
    used.push(name);
    if (expansion.allowed !== undefined && !expansion.allowed.has(name)) {
      expansion.refused.add(name);
      return all;
    }
    const value = expansion.env[name];
    if (value === undefined) expansion.missing.add(name);
    return value ?? "";
  });
}

function canonical(entries: Record<string, string> | undefined): Array<[string, string]> {
  return Object.entries(entries ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function absolutePath(path: string, root: string, home: string): string {
  if (path === "~" || path.startsWith("~/")) return join(home, path.slice(2));
  return isAbsolute(path) ? path : resolve(root, path);
}

function parseServer(
  name: string,
  raw: unknown,
  scope: ServerScope,
  file: string,
  options: LoadMcpOptions,
  rules: ProjectServerRules,
  notices: string[],
): McpServerConfig | undefined {
  const where = `MCP server "${name}" in ${file}`;
  if (!SERVER_NAME.test(name)) {
    notices.push(
      `The ${where} has a name Garuda cannot use (a-z, 0-9, "_" and "-", at most 32, ` +
        `starting with a letter or digit); it was skipped.`,
    );
    return undefined;
  }
  const isRemote = typeof raw === "object" && raw !== null && "url" in raw;
  const parsed = isRemote ? remoteSchema.safeParse(raw) : stdioSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    notices.push(`The ${where} is not valid (${issue?.message ?? "unknown problem"}${at}); it was skipped.`);
    return undefined;
  }
  const data = parsed.data;
  if (data.enabled === false) return undefined;
  const expansion: Expansion = {
    env: options.env,
    allowed: scope === "project" ? new Set(rules.allowEnv) : undefined,
    missing: new Set(),
    refused: new Set(),
  };
  const missing = expansion.missing;
  const base = { name, scope, file, timeoutMs: data.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, refusedEnv: [] as string[] };
  let config: McpServerConfig;
  if ("url" in data) {
    const urlSources: string[] = [];
    const url = expand(data.url, expansion, urlSources);
    const headerSources: Record<string, string[]> = {};
    const headers = Object.fromEntries(
      canonical(data.headers).map(([key, value]) => {
        const used: string[] = [];
        const expanded = expand(value, expansion, used);
        headerSources[key] = used;
        return [key, expanded];
      }),
    );
    const transport = data.type ?? "http";
    const hash = sha256Hex(JSON.stringify({ type: transport, url: data.url, headers: canonical(data.headers) }));
    let parsedUrl: URL;
    try {
      parsedUrl = new URL(url);
    } catch {
      notices.push(`The ${where} has the address "${url}", which is not a URL; it was skipped.`);
      return undefined;
    }
    if (parsedUrl.protocol !== "https:" && parsedUrl.protocol !== "http:") {
      notices.push(`The ${where} must use an https:// address; it was skipped.`);
      return undefined;
    }
    // Plain http only on this machine: elsewhere its headers (tokens) and the code it reads would cross the network
    // unencrypted.
    if (parsedUrl.protocol === "http:" && !LOOPBACK.has(parsedUrl.hostname)) {
      notices.push(
        `The ${where} uses plain http:// to another computer; a remote server must use ` +
          `https:// (http:// only to localhost). It was skipped.`,
      );
      return undefined;
    }
    config = { ...base, transport, url, headers, hash, urlWritten: data.url, headerSources, urlSources };
  } else {
    const envSources: Record<string, string[]> = {};
    const env: Record<string, string> = {};
    for (const [key, value] of canonical(data.env)) {
      const used: string[] = [];
      env[key] = expand(value, expansion, used);
      envSources[key] = used;
    }
    const argVars: string[] = [];
    const args = (data.args ?? []).map((arg) => expand(arg, expansion, argVars));
    // An argument is readable by every user of this computer (ps, /proc/<pid>/cmdline); the environment is not.
    const secrets = [...new Set(argVars.filter((name) => SECRET_NAME.test(name)))];
    if (secrets.length > 0) {
      notices.push(
        `The ${where} puts ${secrets.map((n) => `\${${n}}`).join(", ")} in its ` +
          `arguments, where every user of this computer can read it (ps). If the server ` +
          `can read it from its environment, move it to "env".`,
      );
    }
    let writePaths = (data.writePaths ?? []).map((path) => absolutePath(path, options.root, options.home));
    // The host's /tmp holds other programs' sockets (tmux, ssh-agent, X): a project does not open a folder of it.
    const underTmp =
      scope === "project"
        ? writePaths.filter((path) => isInside(path, "/tmp") && !isInside(path, resolve(options.root)))
        : [];
    if (underTmp.length > 0) {
      writePaths = writePaths.filter((path) => !underTmp.includes(path));
      notices.push(
        `The ${where} asks to write ${underTmp.join(", ")}, under the host's /tmp, ` +
          `where other programs keep their sockets; a project's server does not get that ` +
          `(add the server to your own ${options.userFile} if it needs it). Left out.`,
      );
    }
    // Only a folder of the project: the server is then the project's code, and the folder is in its sandbox.
    const cwd = data.cwd === undefined ? undefined : resolve(options.root, data.cwd);
    if (cwd !== undefined && !isInside(cwd, resolve(options.root))) {
      notices.push(
        `The ${where} sets cwd to ${data.cwd}, which is not the project folder or a ` +
          `folder in it ("." is the project); it was skipped.`,
      );
      return undefined;
    }
    const hash = sha256Hex(
      JSON.stringify({
        command: data.command,
        args: data.args ?? [],
        env: canonical(data.env),
        network: data.network ?? false,
        writePaths: data.writePaths ?? [],
        // Only when set: the definitions written before cwd existed keep their hash (and consents).
        ...(cwd === undefined ? {} : { cwd: data.cwd }),
      }),
    );
    config = {
      ...base,
      transport: "stdio",
      command: data.command,
      args,
      argsWritten: data.args ?? [],
      env,
      envSources,
      network: data.network ?? false,
      writePaths,
      ...(cwd === undefined ? {} : { cwd }),
      hash,
    };
  }
  config.refusedEnv = [...expansion.refused];
  if (missing.size > 0)
    notices.push(
      `The ${where} uses ${[...missing].map((m) => `\${${m}}`).join(", ")}, which ` +
        `${missing.size === 1 ? "is" : "are"} not set; ` +
        `${missing.size === 1 ? "it is" : "they are"} empty.`,
    );
  return config;
}

interface ServerFile {
  servers: McpServerConfig[];
  /** The file's `projectServers` (only the user's counts). */
  projectServers: ProjectServerRules;
}

/** The user's `projectServers`, checked: a bad entry is a notice and left out. */
function projectRules(raw: unknown, file: string, notices: string[]): ProjectServerRules {
  const rules: ProjectServerRules = { allowEnv: [], allowHosts: [] };
  if (raw === undefined) return rules;
  const parsed = projectServersSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    notices.push(
      `projectServers in ${file} is not valid ` +
        `(${issue?.message ?? "unknown problem"}${where}); ` +
        `project MCP servers get no variables and no extra hosts. The form is ` +
        `{"allowEnv": ["NAME"], "allowHosts": ["localhost:8080"]}.`,
    );
    return rules;
  }
  rules.allowEnv = parsed.data.allowEnv ?? [];
  for (const host of parsed.data.allowHosts ?? []) {
    try {
      parseHostRule(host);
      rules.allowHosts.push(host);
    } catch (error) {
      notices.push(`projectServers.allowHosts in ${file}: ${messageOf(error)}; left out.`);
    }
  }
  return rules;
}

function readServers(
  file: string,
  scope: ServerScope,
  options: LoadMcpOptions,
  rules: ProjectServerRules,
  notices: string[],
): ServerFile {
  const none: ServerFile = { servers: [], projectServers: { allowEnv: [], allowHosts: [] } };
  let text: string | undefined;
  try {
    text = readConfigText(file);
  } catch (error) {
    notices.push(
      error instanceof ConfigError
        ? `${error.message}; its MCP servers were not started.`
        : `${file} cannot be read; its MCP servers were not started.`,
    );
    return none;
  }
  if (text === undefined) return none;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    notices.push(`${file} is not valid JSON (${messageOf(error)}); its MCP servers were not started.`);
    return none;
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    notices.push(
      `${file} is not an MCP server list Garuda understands (the form is {"servers": ` +
        `{"name": {"command": "…", "args": […]}}}); its servers were not started.`,
    );
    return none;
  }
  let projectServers = none.projectServers;
  if (scope === "user") projectServers = projectRules(parsed.data.projectServers, file, notices);
  else if (parsed.data.projectServers !== undefined)
    notices.push(`${file} sets projectServers, which only your own ~/.garuda/mcp.json can; it was ignored.`);
  const servers: McpServerConfig[] = [];
  for (const [name, raw] of Object.entries({ ...parsed.data.mcpServers, ...parsed.data.servers })) {
    const config = parseServer(name, raw, scope, file, options, rules, notices);
    if (config) servers.push(config);
  }
  return { servers, projectServers };
}

export interface McpConfig {
  /** The user's servers, then the project's. */
  servers: McpServerConfig[];
  /** What the user lets project servers have. */
  projectServers: ProjectServerRules;
}

/** The user's servers, then the project's (a project server with a user server's name is left out). */
export function loadMcpConfig(options: LoadMcpOptions, notices: string[]): McpConfig {
  const user = readServers(options.userFile, "user", options, { allowEnv: [], allowHosts: [] }, notices);
  const projectFile = projectMcpFile(options.root);
  const project = readServers(projectFile, "project", options, user.projectServers, notices).servers.filter(
    (server) => {
      if (!user.servers.some((mine) => mine.name === server.name)) return true;
      notices.push(
        `The project's MCP server "${server.name}" (${projectFile}) has the name of one of yours; yours is used.`,
      );
      return false;
    },
  );
  return { servers: [...user.servers, ...project], projectServers: user.projectServers };
}
