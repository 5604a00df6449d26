// The answer to initialize: what Garuda offers (prompt contents, MCP over HTTP, the history when
// it has a sessions folder) and how an editor runs its setup (Terminal Auth, both forms). The SDK
// has checked the request before this is asked.
import * as acp from "@agentclientprotocol/sdk";
import { VERSION } from "../version.ts";

export interface InitializeOptions {
  /** How an editor with the older Terminal Auth form runs the setup: this binary and `acp setup`. */
  setup: { command: string; args: string[] };
  platform?: NodeJS.Platform;
  /** With it, the history methods are offered. */
  sessionsDir?: string;
}

export function initializeResponse(params: acp.InitializeRequest, options: InitializeOptions): acp.InitializeResponse {
  const caps = params.clientCapabilities;
  const legacy = caps?._meta?.["terminal-auth"] === true;
  const terminal = (caps?.auth?.terminal === true || legacy) && (options.platform ?? process.platform) !== "win32";
  const authMethods: acp.AuthMethod[] = [];
  if (terminal) {
    authMethods.push({
      type: "terminal",
      id: "garuda-setup",
      name: "Set up Garuda",
      description: "Choose a model and enter its API key.",
      args: ["setup"],
      ...(legacy && {
        _meta: {
          "terminal-auth": { command: options.setup.command, args: options.setup.args, label: "Set up Garuda" },
        },
      }),
    });
  }
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentInfo: { name: "garuda", title: "Garuda", version: VERSION },
    // Only what is on: ACP's default for a missing field is off, and some clients (agent-shell)
    // list a field that is present as supported even when it is false.
    agentCapabilities: {
      promptCapabilities: { embeddedContext: true, image: true },
      auth: { logout: {} },
      mcpCapabilities: { http: true },
      ...(options.sessionsDir !== undefined && { loadSession: true }),
      sessionCapabilities: {
        ...(options.sessionsDir !== undefined && { list: {}, resume: {} }),
        close: {},
        ...(options.sessionsDir !== undefined && { delete: {} }),
        additionalDirectories: {},
      },
    },
    authMethods,
    // The steering extension (acp/turnInput.ts), where claude-agent-acp and codex-acp advertise it;
    // rewind (acp/rewind.ts) beside it.
    _meta: { steering: { supported: true }, rewind: { supported: true } },
  };
}
