// JetBrains AIR's `_meta` extensions Garuda reads: the file-change report (acp/turnChanges.ts: the
// request a prompt carries, the client's capability and the agent's answer to it in initialize)
// and a fork point (acp/fork.ts: session/fork's `_meta.jetbrains.air.fork {version: 1,
// messageId}`, the message the fork keeps last, as claude-agent-acp reads it). Types only from
// the SDK, and nothing else loaded: initialize.ts answers before the SDK loads.
import type * as acp from "@agentclientprotocol/sdk";

export const FILE_CHANGE_REPORT = "agentFileChangeReport";
export const AIR_VERSION = 1;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The `air` object of a `_meta`, when there is one. */
function airOf(meta: unknown): Record<string, unknown> | undefined {
  const jetbrains = isRecord(meta) ? meta.jetbrains : undefined;
  const air = isRecord(jetbrains) ? jetbrains.air : undefined;
  return isRecord(air) ? air : undefined;
}

/** The request id of the prompt's file-change report request, when it asks for one in the known form. */
export function fileChangeRequestId(meta: unknown): string | undefined {
  const request = airOf(meta)?.agentFileChangeReportRequest;
  if (!isRecord(request) || request.version !== AIR_VERSION) return undefined;
  return typeof request.requestId === "string" && REQUEST_ID.test(request.requestId) ? request.requestId : undefined;
}

/** Whether the client said it reads the report (initialize: `_meta.jetbrains.air.capabilities`). */
export function wantsFileChangeReport(capabilities: acp.ClientCapabilities | undefined): boolean {
  const air = airOf(capabilities?._meta);
  return (
    typeof air?.version === "number" &&
    air.version >= AIR_VERSION &&
    Array.isArray(air.capabilities) &&
    air.capabilities.includes(FILE_CHANGE_REPORT)
  );
}

/** initialize's `_meta` part that confirms the report to a client that reads it. */
export function fileChangeReportMeta(): Record<string, unknown> {
  return { jetbrains: { air: { version: AIR_VERSION, capabilities: [FILE_CHANGE_REPORT] } } };
}

/** The message a fork keeps last, when session/fork's `_meta` names one in the known form. */
export function forkPoint(meta: unknown): string | undefined {
  const fork = airOf(meta)?.fork;
  if (!isRecord(fork) || fork.version !== AIR_VERSION || typeof fork.messageId !== "string") return undefined;
  const id = fork.messageId.trim();
  return id === "" ? undefined : id;
}
