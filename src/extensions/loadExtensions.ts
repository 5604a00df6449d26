// A session's extensions, from the files on disk: custom commands, skills, custom agents and MCP
// servers, with the consents the project's need. prepareRuntime calls this once per session;
// only names and descriptions are read now (bodies when used, servers at the first turn).
import type { GarudaPaths } from "../config/paths.ts";
import { ApprovedToolLists } from "../config/approvedTools.ts";
import type { TrustStore } from "../config/trust.ts";
import type { PermissionEngine } from "../permission/engine.ts";
import type { Approver } from "../permission/types.ts";
import type { CommandProvider, TurnExtensions } from "../runtime/services.ts";
import type { Executor, SandboxSpec } from "../sandbox/types.ts";
import type { Tool } from "../tools/types.ts";
import { agentTool } from "./agentTool.ts";
import { loadAgents } from "./agents.ts";
import { loadCommandFiles } from "./commandFiles.ts";
import { createCommandProvider } from "./commandProvider.ts";
import { consentTool, createConsents } from "./consent.ts";
import { loadMcpConfig } from "./mcp/config.ts";
import { type EditorMcpServer, editorServerConfigs } from "./mcp/editorServers.ts";
import { McpManager } from "./mcp/manager.ts";
import { type EgressRules, RemoteAccess } from "./mcp/remoteAccess.ts";
import { skillTool } from "./skillTool.ts";
import { loadSkills, skillFolders } from "./skills.ts";
import { join } from "node:path";

export interface ExtensionOptions {
  /** The project root (real path). */
  root: string;
  paths: GarudaPaths;
  /** Garuda's environment, provider keys removed (the source of ${NAME} in mcp.json). */
  env: Record<string, string | undefined>;
  trust: TrustStore;
  engine: Pick<PermissionEngine, "authorize" | "refusal">;
  /** The team policy's network rules: remote MCP servers are held to them as sandboxed commands are. */
  network: Pick<EgressRules, "allow" | "blocked" | "strict" | "resolve">;
  approver?: Approver | undefined;
  executor: Executor;
  /** The sandbox local MCP servers run in (build mode), or null when there is no OS sandbox. */
  sandbox: () => SandboxSpec | null;
  /** Without a sandbox, may a local MCP server run on the host after a question? */
  hostAllowed: boolean;
  /** The editor's MCP servers (ACP session/new), asked about at the first turn. */
  editorServers?: readonly EditorMcpServer[];
  /** The session's other tools: an agent that lists only read-only ones only reads. */
  tools: readonly Tool[];
}

export interface SessionExtensions {
  /** skill and agent, when there are skills and agents. */
  tools: Tool[];
  commands: CommandProvider;
  /** The MCP servers, when any is configured. */
  turns: TurnExtensions | undefined;
  /** Files that could not be used, clashes, consents needed: for the first turn. */
  notices: string[];
  /** Stops the MCP servers. */
  close(): Promise<void>;
}

export function loadExtensions(options: ExtensionOptions): SessionExtensions {
  const { root, paths } = options;
  const notices: string[] = [];
  const consents = createConsents({ root, trust: options.trust, engine: options.engine, approver: options.approver });

  const commands = [
    ...loadCommandFiles(paths.commands, "user", notices),
    ...loadCommandFiles(join(root, ".garuda", "commands"), "project", notices),
  ];
  const skills = loadSkills(skillFolders(paths, root), notices);
  const agents = loadAgents(paths, root, notices);
  const { servers: own, projectServers } = loadMcpConfig(
    { userFile: paths.mcp, root, home: paths.home, env: options.env },
    notices,
  );
  const servers = [
    ...own,
    ...editorServerConfigs(
      options.editorServers ?? [],
      own.map((server) => server.name),
      notices,
    ),
  ];
  const engine = options.engine;
  const remoteAccess = new RemoteAccess(
    {
      ...options.network,
      // The engine's deny rules (the policy's blocked hosts and strict allowlist, your own `network(…)` denials),
      // audited.
      veto: (host, port, server) =>
        engine.refusal(
          {
            tool: consentTool("mcp_server", server),
            readOnly: false,
            target: { kind: "network", host, port },
            title: `MCP server ${server}: ${host}:${port}`,
            preview: `The MCP server "${server}" is at ${host} (port ${port}).`,
          },
          "build",
        ),
    },
    projectServers.allowHosts,
  );

  const mcp =
    servers.length > 0
      ? new McpManager({
          servers,
          remoteAccess,
          userFile: paths.mcp,
          consents,
          executor: options.executor,
          root,
          sandbox: options.sandbox,
          hostAllowed: options.hostAllowed,
          approvedTools: new ApprovedToolLists(paths.mcpApproved),
          path: options.env.PATH,
        })
      : undefined;

  const tools: Tool[] = [];
  const skill = skillTool(skills, consents);
  if (skill) tools.push(skill);
  const known = [...options.tools, ...tools];
  // A tool the session does not have is dropped now, so the agent's prompt and its consent
  // question name only what it gets (MCP tools are known only once their servers start).
  for (const agent of agents) {
    const missing = agent.tools.filter(
      (name) => !name.startsWith("mcp__") && !known.some((tool) => tool.name === name),
    );
    if (missing.length === 0) continue;
    notices.push(
      `The agent "${agent.name}" (${agent.path}) lists ` +
        `${missing.map((name) => `"${name}"`).join(", ")}, which this session does not ` +
        `have; left out.`,
    );
    agent.tools = agent.tools.filter((name) => !missing.includes(name));
  }
  const readOnly = agents.every((agent) =>
    agent.tools.every((name) => known.find((tool) => tool.name === name)?.readOnly === true),
  );
  const agent = agentTool(agents, consents, readOnly);
  if (agent) tools.push(agent);

  return {
    tools,
    commands: createCommandProvider({ commands, skills, consents, notices, ...(mcp && { prompts: mcp }) }),
    turns: mcp,
    notices,
    close: async () => {
      await mcp?.close();
    },
  };
}
