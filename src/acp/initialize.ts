// The answer to initialize: what Garuda offers (prompt contents, MCP over HTTP, the history when
// it has a sessions folder) and how an editor runs its setup (Terminal Auth, both forms). The SDK
// has checked the request before this is asked.
import * as acp from "@agentclientprotocol/sdk";
import { VERSION } from "../version.ts";
import { fileChangeReportMeta, wantsFileChangeReport } from "./airMeta.ts";

export interface InitializeOptions {
  /** How an editor with the older Terminal Auth form runs the setup: this binary and `acp setup`. */
  setup: { command: string; args: string[] };
  platform?: NodeJS.Platform;
  /** With it, the history methods are offered. */
  sessionsDir?: string;
}

type Capabilities = { subagents?: unknown; _meta?: { [key: string]: unknown } | null } | null | undefined;

/**
 * Whether the client takes subagents as child sessions (subagentUpdates.ts): `subagents` as an
 * object, or JetBrains AIR's `nativeSubagentSessions` — the gate of codex-acp and claude-agent-acp.
 */
export function wantsSubagents(capabilities: Capabilities): boolean {
  const subagents = capabilities?.subagents;
  if (typeof subagents === "object" && subagents !== null && !Array.isArray(subagents)) return true;
  const air = (capabilities?._meta?.jetbrains as { air?: { version?: unknown; capabilities?: unknown } } | undefined)
    ?.air;
  return (
    Number.isInteger(air?.version) &&
    (air?.version as number) >= 1 &&
    Array.isArray(air?.capabilities) &&
    air.capabilities.includes("nativeSubagentSessions")
  );
}

/**
 * The capabilities the SDK parsed, with the draft `subagents` of the request as the editor sent it
 * (`sent`: initialize's params): the SDK's schema drops the keys it does not know.
 */
export function withSentSubagents(
  parsed: acp.ClientCapabilities | undefined,
  sent: unknown,
): (acp.ClientCapabilities & { subagents?: unknown }) | undefined {
  const subagents = (sent as { clientCapabilities?: { subagents?: unknown } } | null | undefined)?.clientCapabilities
    ?.subagents;
  return subagents === undefined ? parsed : { ...parsed, subagents };
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
  // session/fork (fork.ts) is in the SDK's unstable schema only, so not in this type's fields.
  const history: acp.SessionCapabilities = { list: {}, resume: {}, ...{ fork: {} } };
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
        ...(options.sessionsDir !== undefined && history),
        close: {},
        ...(options.sessionsDir !== undefined && { delete: {} }),
        additionalDirectories: {},
        // Subagents as child sessions (subagentUpdates.ts), to a client that takes them.
        ...(wantsSubagents(caps) && { subagents: {} }),
      },
    },
    authMethods,
    // The steering extension (acp/turnInput.ts), where claude-agent-acp and codex-acp advertise it;
    // JetBrains AIR's file-change report (acp/turnChanges.ts) confirmed to a client that reads it;
    // rewind (acp/rewind.ts) beside steering.
    _meta: {
      steering: { supported: true },
      rewind: { supported: true },
      ...(wantsFileChangeReport(caps) && fileChangeReportMeta()),
    },
  };
}
