// The session's MCP servers. Nothing starts at session creation: at the first turn the project's
// and the editor's servers are asked about (a consent pinned to the definition's hash), and so is
// any server that runs the project's code (serverLaunch.ts: pinned to its files' content too);
// then every server starts at once, in parallel, each within START_TIMEOUT_MS. Their tools join
// the session from that turn, and stay byte-stable until something changes: a server that dies,
// or whose tool list changes, is dealt with at the start of the next turn (a project server's new
// tool list needs a new yes). A server that fails gives a notice; the session goes on without its
// tools.
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { messageOf } from "../../errors/caught.ts";
import type { CommandInfo, DeferredCommand, Notice, TurnExtensions } from "../../runtime/services.ts";
import type { Executor, SandboxSpec } from "../../sandbox/types.ts";
import type { Tool } from "../../tools/types.ts";
import type { PromptSource } from "../commandProvider.ts";
import { type Consents, consentTool } from "../consent.ts";
import type { McpServerConfig, RemoteServerConfig } from "./config.ts";
import { McpConnection } from "./connection.ts";
import { launchHash, planLaunch, type ServerLaunch } from "./serverLaunch.ts";
import { hostPort, type RemoteAccess } from "./remoteAccess.ts";
import { describeServer, describeToolChange } from "./describe.ts";
import { promptArguments, promptCommandName, promptInfo, promptText } from "./prompts.ts";
import { adaptTools, toolKeys, toolsHash } from "./tools.ts";
import type { ApprovedToolLists } from "../../config/approvedTools.ts";

export interface McpManagerOptions {
  servers: readonly McpServerConfig[];
  consents: Consents;
  executor: Executor;
  /** The project root (real path): local servers' working folder. */
  root: string;
  /** The session's sandbox (build mode), or null when there is no OS sandbox. */
  sandbox: () => SandboxSpec | null;
  /** Without a sandbox, a local server may still run on the host after a question (false: the policy forbids it). */
  hostAllowed: boolean;
  /** The tool lists approved with "remember", so a later change can be shown as such. */
  approvedTools?: ApprovedToolLists;
  /** The egress rules remote servers are held to. */
  remoteAccess: RemoteAccess;
  /** The user's mcp.json, named in the notices that say what to add there. */
  userFile: string;
  /** Garuda's own PATH: a local server's unless its definition sets one (the project's folders are left out). */
  path: string | undefined;
}

type Say = (notice: Notice) => void;
const toolsPin = (server: string) => `${server}#tools`;
const warn = (say: Say, text: string) => say({ level: "warning", text });

export class McpManager implements TurnExtensions, PromptSource {
  readonly #options: McpManagerOptions;
  readonly #live = new Map<string, McpConnection>();
  #started = false;
  #tools: readonly Tool[] = [];

  constructor(options: McpManagerOptions) {
    this.#options = options;
  }

  /** The servers running now, by name. */
  running(): string[] {
    return [...this.#live.keys()];
  }

  async beforeTurn(signal: AbortSignal, say: Say): Promise<readonly Tool[]> {
    let changed = false;
    if (!this.#started && this.#options.servers.length > 0) changed = await this.#startAll(signal, say);
    for (const connection of [...this.#live.values()]) {
      if (signal.aborted) break;
      if (connection.dead !== undefined) {
        warn(
          say,
          `The MCP server "${connection.name}" stopped ` +
            `(${await connection.exitReason()}); its tools are gone for the rest of this ` +
            `session.`,
        );
        await this.#drop(connection);
        changed = true;
        continue;
      }
      if (connection.promptsChanged) await connection.listPrompts(signal).catch(() => undefined);
      if (connection.toolsChanged) changed = (await this.#relist(connection, signal, say)) || changed;
    }
    if (changed) this.#tools = this.#build(say);
    return this.#tools;
  }

  /** Asks the consents, starts the approved servers. True when tools may have changed. */
  async #startAll(signal: AbortSignal, say: Say): Promise<boolean> {
    const starting: Array<{
      config: McpServerConfig;
      sandbox: SandboxSpec | null;
      launch: ServerLaunch | undefined;
      justAsked: { remember: boolean } | undefined;
    }> = [];
    for (const config of this.#options.servers) {
      const refused = await this.#refusal(config);
      if (signal.aborted) return false;
      if (refused !== undefined) {
        warn(say, refused);
        continue;
      }
      const sandbox = config.transport === "stdio" ? this.#sandboxFor(config) : null;
      if (config.transport === "stdio" && sandbox === null && !this.#options.hostAllowed) {
        warn(
          say,
          `The MCP server "${config.name}" was not started: there is no OS sandbox here, ` +
            `and the team policy does not let commands run outside it.`,
        );
        continue;
      }
      const unsandboxed = config.transport === "stdio" && sandbox === null;
      // What it runs, read now: the project's files in it are pinned by content, whoever defined the server.
      const launch =
        config.transport === "stdio" ? planLaunch(config, this.#options.root, this.#options.path) : undefined;
      const projectCode = launch !== undefined && launch.projectFiles.length > 0;
      // Code that cannot be pinned (too large to hash, found through the project folder): asked about in every session.
      const unpinnable = launch?.projectFiles.some((file) => file.hash === undefined) ?? false;
      let justAsked: { remember: boolean } | undefined;
      if (config.scope !== "user" || unsandboxed || projectCode) {
        const whose = config.scope === "user" ? "" : `${config.scope}'s `;
        const answer = await this.#options.consents.ask(
          {
            kind: "mcp",
            // A server that would run on the host is asked about in every session (never pinned).
            // An editor's server is pinned apart from a project server of the same name, and a
            // user's server (asked about only when it runs the project's code) apart from both.
            name: `${unsandboxed ? "host:" : ""}${config.scope === "project" ? "" : `${config.scope}:`}${config.name}`,
            hash: launch ? launchHash(config.hash, launch) : config.hash,
            tool: consentTool("mcp_server", config.name),
            title: `MCP server: ${config.name}${projectCode ? " (runs the project's code)" : ""}`,
            preview: describeServer(config, !unsandboxed, launch),
            question: projectCode
              ? `Start the ${whose}MCP server "${config.name}"? It runs code from this project ` +
                `(${launch?.projectFiles.map((file) => file.shown).join(", ")}), which the ` +
                `project can change.`
              : `Start the ${whose}MCP server "${config.name}"?`,
            sessionOnly: unsandboxed || unpinnable,
          },
          signal,
        );
        if (signal.aborted) return false;
        if (!answer.allowed) {
          warn(say, `The MCP server "${config.name}" was not started: ${answer.reason}.`);
          continue;
        }
        if (answer.asked) justAsked = { remember: answer.remembered };
      }
      starting.push({ config, sandbox, launch, justAsked });
    }

    const access = this.#options.remoteAccess;
    const deps = {
      executor: this.#options.executor,
      root: this.#options.root,
      fetchFor: (config: RemoteServerConfig) => access.fetch(config),
    };
    const opened = await Promise.allSettled(
      starting.map(({ config, sandbox, launch }) => McpConnection.open(config, { ...deps, sandbox, launch }, signal)),
    );
    if (signal.aborted) {
      // Cancelled while starting: nothing stays half-started; the next turn tries again.
      await Promise.all(opened.map((result) => (result.status === "fulfilled" ? result.value.close() : undefined)));
      return false;
    }
    this.#started = true;
    for (const [index, result] of opened.entries()) {
      const entry = starting[index];
      if (!entry) continue;
      if (result.status === "rejected") {
        warn(
          say,
          `The MCP server "${entry.config.name}" could not start: ` +
            `${messageOf(result.reason)}. Its tools are not available in this session.`,
        );
        continue;
      }
      const connection = result.value;
      if (
        entry.config.scope === "project" &&
        !(await this.#toolsApproved(connection, entry.justAsked, undefined, signal, say))
      ) {
        await connection.close();
        continue;
      }
      this.#live.set(entry.config.name, connection);
    }
    if (signal.aborted) {
      // Cancelled during a question about a server's tools: start again at the next turn.
      await this.close();
      this.#started = false;
      return false;
    }
    return true;
  }

  /**
   * Why a server may not start, before anyone is asked: a project's server that uses variables the
   * user did not name for project servers, or a remote address the egress rules refuse.
   */
  async #refusal(config: McpServerConfig): Promise<string | undefined> {
    const whose = config.scope === "project" ? "project's " : "";
    const userFile = this.#options.userFile;
    if (config.refusedEnv.length > 0) {
      const names = config.refusedEnv;
      const listed = names.map((name) => `"${name}"`).join(", ");
      return (
        `The ${whose}MCP server "${config.name}" was not started: it uses ` +
        `${names.map((name) => `\${${name}}`).join(", ")} from your environment, and ` +
        `Garuda gives a project's server only the variables you name for it. If it ` +
        `should have ${names.length === 1 ? "it" : "them"}, add ${listed} to ` +
        `"projectServers": {"allowEnv": [...]} in ${userFile}.`
      );
    }
    if (config.transport === "stdio") return undefined;
    const refused = await this.#options.remoteAccess.resolvedRefusal(config);
    if (!refused) return undefined;
    const address = hostPort(refused.host, refused.port);
    const fix =
      refused.byPolicy || config.scope === "user"
        ? ""
        : ` If you trust it, add "${address}" to "projectServers": {"allowHosts": [...]} in ${userFile}.`;
    return (
      `The ${whose}MCP server "${config.name}" was not started: Garuda does not ` +
      `connect to ${address} (${refused.reason}).${fix}`
    );
  }

  #sandboxFor(config: McpServerConfig & { transport: "stdio" }): SandboxSpec | null {
    const base = this.#options.sandbox();
    if (!base) return null;
    return {
      ...base,
      network: config.network ? base.network : { mode: "none" },
      writePaths: [...base.writePaths, ...config.writePaths],
    };
  }

  /**
   * Whether a project server's tools may be used: the list approved before (pinned or in this
   * session), or a yes now. Right after the server's own consent the list is recorded with it.
   */
  async #toolsApproved(
    connection: McpConnection,
    justAsked: { remember: boolean } | undefined,
    before: readonly McpTool[] | undefined,
    signal: AbortSignal,
    say: Say,
  ): Promise<boolean> {
    const consents = this.#options.consents;
    const name = connection.name;
    const hash = toolsHash(connection.tools);
    const approvedTools = this.#options.approvedTools;
    const keep = () => approvedTools?.set(this.#options.root, name, toolKeys(connection.tools));
    if (consents.approved("mcp", toolsPin(name), hash)) {
      // A pin from before the lists were kept: keep this one now, for the next change.
      if (
        before === undefined &&
        consents.hasPin("mcp", toolsPin(name)) &&
        approvedTools?.get(this.#options.root, name) === undefined
      )
        keep();
      return true;
    }
    // Right after the server's own yes, or the first time its tools are seen: this list is the approved one.
    if (justAsked || (before === undefined && !consents.hasPin("mcp", toolsPin(name)))) {
      const remember = justAsked ? justAsked.remember : true;
      consents.record("mcp", toolsPin(name), hash, remember);
      if (remember) keep();
      return true;
    }
    // What was approved: the list before this change in this session, or the one kept at the last "remember".
    const approvedKeys = before ? toolKeys(before) : approvedTools?.get(this.#options.root, name);
    const answer = await consents.ask(
      {
        kind: "mcp",
        name: toolsPin(name),
        hash,
        tool: consentTool("mcp_server", name),
        title: `MCP server: ${name} (tools changed)`,
        preview: describeToolChange(name, connection.tools, approvedKeys),
        question: `The project's MCP server "${name}" changed its tools. Keep using it?`,
      },
      signal,
    );
    if (answer.allowed) {
      if (answer.remembered) keep();
      return true;
    }
    warn(say, `The MCP server "${name}" was stopped: its tools changed and ${answer.reason}.`);
    return false;
  }

  /** Lists a server's tools again after it said they changed. True when the tools changed. */
  async #relist(connection: McpConnection, signal: AbortSignal, say: Say): Promise<boolean> {
    const before = connection.tools;
    try {
      await connection.listTools(signal);
    } catch (error) {
      if (signal.aborted) return false;
      warn(say, `The MCP server "${connection.name}" could not list its tools (${messageOf(error)}); it was stopped.`);
      await this.#drop(connection);
      return true;
    }
    if (toolsHash(before) === toolsHash(connection.tools)) return false;
    if (connection.config.scope === "project") {
      if (!(await this.#toolsApproved(connection, undefined, before, signal, say))) {
        await this.#drop(connection);
        return true;
      }
    } else {
      say({
        level: "info",
        text: `The MCP server "${connection.name}" changed its tools; the new list applies from this turn.`,
      });
    }
    return true;
  }

  async #drop(connection: McpConnection): Promise<void> {
    this.#live.delete(connection.name);
    await connection.close();
  }

  #build(say: Say): Tool[] {
    const taken = new Set<string>();
    const tools: Tool[] = [];
    for (const config of this.#options.servers) {
      const connection = this.#live.get(config.name);
      if (!connection) continue;
      const adapted = adaptTools(
        config.name,
        connection.tools,
        (tool, args, signal) => connection.callTool(tool, args, signal),
        taken,
      );
      if (adapted.skipped.length > 0)
        warn(
          say,
          `The MCP server "${config.name}" has tools with schemas too large to send ` +
            `(${adapted.skipped.join(", ")}); they were left out.`,
        );
      tools.push(...adapted.tools);
    }
    return tools;
  }

  list(): CommandInfo[] {
    const commands: CommandInfo[] = [];
    for (const connection of this.#live.values()) {
      for (const prompt of connection.prompts) {
        const info = promptInfo(connection.name, prompt);
        if (info) commands.push(info);
      }
    }
    return commands;
  }

  resolve(name: string, args: string): DeferredCommand | undefined {
    const [server, part, ...more] = name.split(":");
    if (!server || !part || more.length > 0 || !this.#options.servers.some((config) => config.name === server))
      return undefined;
    return {
      expand: async (signal) => {
        const connection = this.#live.get(server);
        if (!connection || connection.dead !== undefined)
          return { refused: `/${name} did not run: the MCP server "${server}" is not running.` };
        const prompt = connection.prompts.find((p) => promptCommandName(p.name) === part);
        if (!prompt) return { refused: `/${name} did not run: the MCP server "${server}" has no prompt "${part}".` };
        const values = promptArguments(prompt, args);
        if ("problem" in values) return { refused: `/${name} did not run: ${values.problem}.` };
        try {
          return { text: promptText(await connection.getPrompt(prompt.name, values.values, signal)) };
        } catch (error) {
          return { refused: `/${name} did not run: ${messageOf(error)}.` };
        }
      },
    };
  }

  /** Stops every server (the session ends). */
  async close(): Promise<void> {
    const connections = [...this.#live.values()];
    this.#live.clear();
    await Promise.all(connections.map((connection) => connection.close()));
  }
}
