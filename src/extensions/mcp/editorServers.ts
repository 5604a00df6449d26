// The editor's MCP servers (ACP session/new `mcpServers`) as server configurations the session's
// McpManager starts like the user's and the project's: a local one through the Executor inside
// the OS sandbox, a remote one over HTTP. They are the editor's, not the user's files, so each is
// a consent at the first turn (scope "editor"), pinned — after "remember" — by the server's exact
// definition (and, when it runs the project's code, that code's content: serverLaunch.ts). The consent shows the
// command line or address and the NAMES of the environment
// variables and headers only: their values (tokens, often) go to the server and nowhere else.
import { sha256Hex } from "../../config/trust.ts";
import { DEFAULT_CALL_TIMEOUT_MS, type McpServerConfig, SERVER_NAME } from "./config.ts";

/** One name and value (an environment variable, an HTTP header), as ACP sends them. */
export interface EditorNameValue {
  name: string;
  value: string;
}

/** An editor's server as ACP's McpServer has it (the core keeps its own type, not the protocol's). */
export type EditorMcpServer =
  | { type?: "stdio" | undefined; name: string; command: string; args: string[]; env: EditorNameValue[] }
  | { type: "http" | "sse"; name: string; url: string; headers: EditorNameValue[] };

/** Where the consent says the server came from. */
const EDITOR_SOURCE = "the editor (session/new)";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** The editor's name made a server name (a-z, 0-9, "_", "-"; at most 32): the tools' prefix. */
function editorServerName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .slice(0, 32)
    .replace(/-+$/, "");
}

const pairs = (items: readonly EditorNameValue[]) =>
  items.map((item) => [item.name, item.value] as [string, string]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * The editor's servers as configurations. `taken`: the names of the user's and project's servers
 * (theirs win). Only Streamable HTTP is taken remotely (what Garuda advertises in mcpCapabilities).
 * A server Garuda cannot use is left out with a notice naming it.
 */
export function editorServerConfigs(
  servers: readonly EditorMcpServer[],
  taken: readonly string[],
  notices: string[],
): McpServerConfig[] {
  const names = new Set(taken);
  const configs: McpServerConfig[] = [];
  for (const server of servers) {
    const shown = JSON.stringify(server.name.slice(0, 80));
    const name = editorServerName(server.name);
    const skip = (why: string) => notices.push(`The editor's MCP server ${shown} was not started: ${why}.`);
    if (!SERVER_NAME.test(name)) {
      skip("its name has no letters or digits Garuda can use as the prefix of its tools");
      continue;
    }
    if (names.has(name)) {
      skip(`another server is named "${name}" (yours and the project's come first)`);
      continue;
    }
    const base = {
      name,
      scope: "editor" as const,
      file: EDITOR_SOURCE,
      timeoutMs: DEFAULT_CALL_TIMEOUT_MS,
      refusedEnv: [] as string[],
    };
    if (server.type === undefined || server.type === "stdio") {
      if (
        typeof server.command !== "string" ||
        server.command.trim() === "" ||
        !Array.isArray(server.args) ||
        !Array.isArray(server.env)
      ) {
        skip("it has no command");
        continue;
      }
      const bad = server.env.find((item) => !ENV_NAME.test(item.name));
      if (bad) {
        skip(`${JSON.stringify(bad.name.slice(0, 80))} is not an environment variable name`);
        continue;
      }
      const env = Object.fromEntries(pairs(server.env));
      // The values are part of the definition a "remember" pins (NODE_OPTIONS changes what runs).
      const hash = sha256Hex(
        JSON.stringify({ editor: "stdio", command: server.command, args: server.args, env: pairs(server.env) }),
      );
      const envSources = Object.fromEntries(Object.keys(env).map((key) => [key, [] as string[]]));
      configs.push({
        ...base,
        transport: "stdio",
        command: server.command,
        args: [...server.args],
        argsWritten: [...server.args],
        env,
        envSources,
        network: false,
        writePaths: [],
        hash,
      });
    } else {
      if (server.type !== "http") {
        skip(`Garuda takes an editor's remote servers over Streamable HTTP only, not ${server.type}`);
        continue;
      }
      let url: URL;
      try {
        url = new URL(server.url);
      } catch {
        skip("its address is not a URL");
        continue;
      }
      if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK.has(url.hostname))) {
        skip("a remote server must use https:// (plain http:// only to localhost)");
        continue;
      }
      if (!Array.isArray(server.headers)) {
        skip("its headers are not a list");
        continue;
      }
      const bad = server.headers.find((item) => !HEADER_NAME.test(item.name));
      if (bad) {
        skip(`${JSON.stringify(bad.name.slice(0, 80))} is not an HTTP header name`);
        continue;
      }
      const hash = sha256Hex(JSON.stringify({ editor: "http", url: server.url, headers: pairs(server.headers) }));
      const headers = Object.fromEntries(pairs(server.headers));
      const headerSources = Object.fromEntries(Object.keys(headers).map((key) => [key, [] as string[]]));
      configs.push({
        ...base,
        transport: "http",
        url: server.url,
        urlWritten: server.url,
        urlSources: [],
        headers,
        headerSources,
        hash,
      });
    }
    names.add(name);
  }
  return configs;
}
