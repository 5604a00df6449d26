// The shapes of mcp.json's servers once read (config.ts reads and checks them): what the
// launcher, the consent and the editor's servers (editorServers.ts) are given. Its own file so
// that config.ts holds the reading alone.
/** What the user's mcp.json lets the project's servers have (`projectServers`). */
export interface ProjectServerRules {
  /** Variables a project's `${NAME}` may take. */
  allowEnv: string[];
  /** Host patterns (host, host:port, *.host) project servers may reach beyond the egress rules. */
  allowHosts: string[];
}

/** "editor": an ACP editor's session/new mcpServers (editorServers.ts). */
export type ServerScope = "user" | "project" | "editor";

export interface BaseConfig {
  name: string;
  scope: ServerScope;
  /** The mcp.json it came from. */
  file: string;
  /** Per request. */
  timeoutMs: number;
  /** SHA-256 of the definition as written: what a project consent pins. */
  hash: string;
  /**
   * A project server's `${NAME}`s the user's projectServers.allowEnv does not list: left unexpanded, and the server is
   * not started.
   */
  refusedEnv: string[];
}

export interface StdioServerConfig extends BaseConfig {
  transport: "stdio";
  command: string;
  args: string[];
  /** Values with ${NAME} filled in. */
  env: Record<string, string>;
  /** The names each value took from Garuda's environment, for the consent's listing. */
  envSources: Record<string, string[]>;
  /** The arguments as written (`${NAME}` kept), for the consent: never the values. */
  argsWritten: string[];
  network: boolean;
  /** Absolute. */
  writePaths: string[];
  /**
   * Absolute, the project folder or one in it: the definition asked to start there, and what the
   * server finds there is the project's code (serverLaunch.ts). Absent: it starts in /.
   */
  cwd?: string;
}

export interface RemoteServerConfig extends BaseConfig {
  /** "http": Streamable HTTP, falling back to SSE; "sse": SSE only. */
  transport: "http" | "sse";
  url: string;
  headers: Record<string, string>;
  /** As written (`${NAME}` kept), for the consent: never the values. */
  urlWritten: string;
  /** Each header and the variables its value takes (none: the value is written in the file). */
  headerSources: Record<string, string[]>;
  /** The variables the address takes. */
  urlSources: string[];
}

export type McpServerConfig = StdioServerConfig | RemoteServerConfig;
