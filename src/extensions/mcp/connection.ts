// One running MCP server: its client (the official SDK, imported only when a server starts),
// its tools and prompts as listed, and what became of it. A local server is a process the
// Executor started inside the OS sandbox, spoken to over ProcessTransport; a remote one is
// reached over Streamable HTTP, falling back to SSE for older servers.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, GetPromptResult, Prompt, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { asError, codeOf, messageOf } from "../../errors/caught.ts";
import type { Executor, RunningProcess, SandboxSpec } from "../../sandbox/types.ts";
import { VERSION } from "../../version.ts";
import { cleanText } from "../clean.ts";
import type { McpServerConfig, RemoteServerConfig, StdioServerConfig } from "./config.ts";
import { ProcessTransport } from "./processTransport.ts";
import type { ServerLaunch } from "./serverLaunch.ts";

/** Connecting and the first listing, together. */
const START_TIMEOUT_MS = 30_000;
const MAX_TOOLS = 100;
const STDERR_LINES = 10;
/**
 * While a call to a remote server runs, it is pinged this often: a server whose process died may
 * just end its response stream, and the SDK then waits for the call's whole timeout. Only a
 * refused or reset connection counts as gone; a slow answer (a busy server) does not.
 */
const PROBE_EVERY_MS = 3_000;
const PROBE_TIMEOUT_MS = 2_000;

export interface StartDeps {
  executor: Executor;
  root: string;
  /** The sandbox a local server runs in; null: on the host (only after a question). */
  sandbox: SandboxSpec | null;
  /** How a local server is started (serverLaunch.ts): its command line, folder, variables and readable files. */
  launch?: ServerLaunch | undefined;
  /**
   * The fetch a remote server's transports use (remoteAccess.ts: every request checked, no redirect followed by fetch).
   */
  fetchFor?: (config: RemoteServerConfig) => (url: string | URL, init?: RequestInit) => Promise<Response>;
}

const quote = (word: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** The shell line the Executor runs: `exec` so the server is the process the group signals reach. */
export function commandLine(config: Pick<StdioServerConfig, "command" | "args">): string {
  return `exec ${[config.command, ...config.args].map(quote).join(" ")}`;
}

/** A network failure (not an answer of the server's): the remote server is gone. */
function unreachable(error: unknown): boolean {
  return (
    codeOf(error) !== undefined ||
    /ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|Unable to connect|fetch failed|socket connection was closed/i.test(
      messageOf(error),
    )
  );
}

export class McpConnection {
  tools: McpTool[] = [];
  prompts: Prompt[] = [];
  /** The server said its tool list changed; it is listed again at the next turn. */
  toolsChanged = false;
  promptsChanged = false;
  /** Why the server is gone (undefined while it runs). */
  dead: string | undefined;
  #client: Client | undefined;
  #process: RunningProcess | undefined;
  #closing = false;
  readonly config: McpServerConfig;

  private constructor(config: McpServerConfig) {
    this.config = config;
  }

  get name(): string {
    return this.config.name;
  }

  /** Starts the server, connects and lists its tools and prompts, within START_TIMEOUT_MS. */
  static async open(config: McpServerConfig, deps: StartDeps, signal: AbortSignal): Promise<McpConnection> {
    const connection = new McpConnection(config);
    const limit = AbortSignal.any([signal, AbortSignal.timeout(START_TIMEOUT_MS)]);
    try {
      await connection.#connect(deps, limit);
      await connection.listTools(limit);
      await connection.listPrompts(limit);
      return connection;
    } catch (error) {
      if (!limit.aborted) await connection.#settleExit();
      const exited =
        connection.dead !== undefined && connection.dead !== "its connection closed" ? connection.dead : undefined;
      const why =
        limit.aborted && !signal.aborted
          ? `it did not answer within ${START_TIMEOUT_MS / 1000} s`
          : (exited ?? messageOf(error));
      const tail = connection.#stderrTail();
      await connection.close();
      throw new Error(`${why}${tail}`);
    }
  }

  async #connect(deps: StartDeps, signal: AbortSignal): Promise<void> {
    const config = this.config;
    if (config.transport === "stdio") {
      const launch = deps.launch;
      this.#process = await deps.executor.start({
        command: commandLine(launch ?? config),
        cwd: launch?.cwd ?? deps.root,
        sandbox: deps.sandbox,
        env: launch?.env ?? config.env,
        raw: true,
        // The server's own program and script files must be visible in the sandbox wherever they
        // live; never a folder an argument names (under /tmp one may hold tmux's or ssh-agent's socket).
        readPaths: launch?.readPaths ?? [],
      });
      await this.#attach(new ProcessTransport(this.#process), signal);
      return;
    }
    const url = new URL(config.url);
    const requestInit = { headers: config.headers };
    const fetch = deps.fetchFor?.(config);
    const options = fetch ? { requestInit, fetch } : { requestInit };
    if (config.transport === "http") {
      const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
      try {
        await this.#attach(new StreamableHTTPClientTransport(url, options), signal);
        return;
      } catch (error) {
        if (signal.aborted) throw error;
        // An older server speaks only the SSE transport: try that before giving up.
        const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
        try {
          await this.#attach(new SSEClientTransport(url, options), signal);
          return;
        } catch (sseError) {
          throw new Error(`Streamable HTTP: ${messageOf(error)}; SSE: ${messageOf(sseError)}`);
        }
      }
    }
    const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
    await this.#attach(new SSEClientTransport(url, options), signal);
  }

  async #attach(transport: Transport, signal: AbortSignal): Promise<void> {
    const [{ Client }, { ToolListChangedNotificationSchema, PromptListChangedNotificationSchema }] = await Promise.all([
      import("@modelcontextprotocol/sdk/client/index.js"),
      import("@modelcontextprotocol/sdk/types.js"),
    ]);
    // No sampling, roots or elicitation: a server cannot call back into the model or the user.
    const client = new Client({ name: "garuda", version: VERSION }, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.toolsChanged = true;
    });
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      this.promptsChanged = true;
    });
    // Only the connected client counts: a transport that failed to connect (before the SSE fallback) closes too.
    client.onclose = () => {
      if (this.#client === client && !this.#closing && this.dead === undefined) this.dead = "its connection closed";
    };
    client.onerror = () => {
      // Reported through the calls that fail; a stray error does not end the server.
    };
    await client.connect(transport, { signal, timeout: START_TIMEOUT_MS });
    this.#client = client;
  }

  #live(): Client {
    if (this.dead !== undefined || !this.#client)
      throw new Error(`the MCP server "${this.name}" is not running (${this.dead ?? "not started"})`);
    return this.#client;
  }

  async listTools(signal: AbortSignal): Promise<void> {
    const client = this.#live();
    this.toolsChanged = false;
    if (!client.getServerCapabilities()?.tools) {
      this.tools = [];
      return;
    }
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
        signal,
        timeout: START_TIMEOUT_MS,
      });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined && tools.length < MAX_TOOLS);
    this.tools = tools.slice(0, MAX_TOOLS);
  }

  async listPrompts(signal: AbortSignal): Promise<void> {
    const client = this.#live();
    this.promptsChanged = false;
    if (!client.getServerCapabilities()?.prompts) {
      this.prompts = [];
      return;
    }
    const prompts: Prompt[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listPrompts(cursor === undefined ? {} : { cursor }, {
        signal,
        timeout: START_TIMEOUT_MS,
      });
      prompts.push(...page.prompts);
      cursor = page.nextCursor;
    } while (cursor !== undefined && prompts.length < MAX_TOOLS);
    this.prompts = prompts.slice(0, MAX_TOOLS);
  }

  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const client = this.#live();
    try {
      return (await this.#watched(client, signal, (watched) =>
        client.callTool({ name, arguments: args }, undefined, {
          signal: watched,
          timeout: this.config.timeoutMs,
          resetTimeoutOnProgress: true,
        }),
      )) as CallToolResult;
    } catch (error) {
      throw await this.#failure(error, signal);
    }
  }

  async getPrompt(name: string, args: Record<string, string>, signal: AbortSignal): Promise<GetPromptResult> {
    const client = this.#live();
    try {
      return await this.#watched(client, signal, (watched) =>
        client.getPrompt({ name, arguments: args }, { signal: watched, timeout: this.config.timeoutMs }),
      );
    } catch (error) {
      throw await this.#failure(error, signal);
    }
  }

  /**
   * Runs a request to a remote server, pinging it meanwhile; one that cannot be reached ends the request (and the
   * server).
   */
  async #watched<T>(client: Client, signal: AbortSignal, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.config.transport === "stdio") return request(signal); // a local server's exit is seen at once
    const gone = new AbortController();
    const watched = AbortSignal.any([signal, gone.signal]);
    let probing = false;
    const timer = setInterval(() => {
      if (probing) return;
      probing = true;
      client
        .ping({ signal: watched, timeout: PROBE_TIMEOUT_MS })
        .catch((error: unknown) => {
          if (watched.aborted || this.dead !== undefined || !unreachable(error)) return;
          this.dead = `it could not be reached: ${messageOf(error)}`;
          gone.abort();
        })
        .finally(() => {
          probing = false;
        });
    }, PROBE_EVERY_MS);
    try {
      return await request(watched);
    } finally {
      clearInterval(timer);
    }
  }

  /** A failed request as a clear error: the server stopped (and how), or what it said. */
  async #failure(error: unknown, signal: AbortSignal): Promise<Error> {
    if (signal.aborted) return asError(error);
    if (this.dead === undefined && this.config.transport !== "stdio" && unreachable(error)) {
      this.dead = `it could not be reached: ${messageOf(error)}`;
      return new Error(
        `the MCP server "${this.name}" could not be reached (${messageOf(error)}); its ` +
          `tools go away from the next turn`,
      );
    }
    if (this.dead === undefined) return new Error(messageOf(error));
    await this.#settleExit();
    return new Error(`the MCP server "${this.name}" stopped during the call (${this.dead})${this.#stderrTail()}`);
  }

  /** Waits briefly for a local server's exit status and puts it in `dead`. */
  async #settleExit(): Promise<void> {
    const process = this.#process;
    if (!process) return;
    const result = await Promise.race([process.exited, Bun.sleep(1_000).then(() => undefined)]);
    if (!result || this.#closing) return;
    const how = result.signal ? `it was ended by ${result.signal}` : `it exited with code ${result.exitCode}`;
    if (this.dead === undefined || this.dead === "its connection closed") this.dead = how;
  }

  /** Waits for a local server's exit after its connection closed (for a notice). */
  async exitReason(): Promise<string> {
    await this.#settleExit();
    return `${this.dead ?? "it stopped"}${this.#stderrTail()}`;
  }

  /** The last lines a local server wrote to stderr, for messages. */
  #stderrTail(): string {
    const output = this.#process?.output().trim();
    if (!output) return "";
    const lines = output.split("\n").slice(-STDERR_LINES).join("\n");
    return `. Its last output:\n${cleanText(lines, 2_000)}`;
  }

  /** Ends the connection (and a local server's process). */
  async close(): Promise<void> {
    this.#closing = true;
    try {
      await this.#client?.close();
    } catch {
      // Closing a broken connection fails; the process is stopped below either way.
    }
    if (this.#process) await this.#process.stop().catch(() => undefined);
  }
}
