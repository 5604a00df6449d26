// The rewind extension, in the shapes of claude-agent-acp's proposal (PR #966), advertised as
// `_meta.rewind.supported` in the answer to initialize:
// - `_session/rewind_points {sessionId}` → `{points: [{messageId, text, index, time, filesChanged?}]}`:
//   each prompt of the session, oldest first, with the files the turns after it changed;
// - `_session/rewind {sessionId, messageId, mode?: "files" | "conversation" | "both", dryRun?}` →
//   `{files?: {canRewind, filesChanged, …}, conversation?: {rewound, messagesDropped}}`.
// The work is the Runtime's (runtime/rewind.ts); a file changed outside Garuda is asked about
// through the session's approver. Refused (-32602) while a turn runs or for an unknown id.
import * as acp from "@agentclientprotocol/sdk";
import { messageOf } from "../errors/caught.ts";
import type { RewindMode, RewindRequest } from "../runtime/rewind.ts";
import type { Runtime } from "../runtime/runtime.ts";

export const REWIND_POINTS_METHOD = "_session/rewind_points";
export const REWIND_METHOD = "_session/rewind";

const MODES: readonly RewindMode[] = ["files", "conversation", "both"];
const invalid = (message: string) => acp.RequestError.invalidParams(undefined, message);
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export interface PointsRequest {
  sessionId: string;
}

export function parsePointsRequest(params: unknown): PointsRequest {
  if (!isRecord(params) || typeof params.sessionId !== "string")
    throw invalid("The rewind_points request needs a sessionId.");
  return { sessionId: params.sessionId };
}

export function parseRewindRequest(params: unknown): RewindRequest & { sessionId: string } {
  if (!isRecord(params) || typeof params.sessionId !== "string") throw invalid("The rewind request needs a sessionId.");
  if (typeof params.messageId !== "string" || params.messageId === "")
    throw invalid("The rewind request needs the messageId of a prompt (from _session/rewind_points).");
  const mode = params.mode ?? "files";
  if (!MODES.includes(mode as RewindMode))
    throw invalid(`The rewind mode is "files", "conversation" or "both", not ${JSON.stringify(mode).slice(0, 40)}.`);
  if (params.dryRun !== undefined && typeof params.dryRun !== "boolean") throw invalid("dryRun is true or false.");
  const request = { messageId: params.messageId, mode: mode as RewindMode, dryRun: params.dryRun === true };
  return { sessionId: params.sessionId, ...request };
}

export async function rewindPoints(runtime: Runtime): Promise<Record<string, unknown>> {
  return { points: await runtime.rewindPoints() };
}

/** The session as a rewind needs it: its runtime, and a way to ask while no prompt runs. */
export interface RewindableSession {
  readonly runtime: Runtime;
  answering<T>(work: () => Promise<T>): Promise<T>;
}

export async function rewind(session: RewindableSession, request: RewindRequest): Promise<Record<string, unknown>> {
  try {
    return { ...(await session.answering(() => session.runtime.rewind(request))) };
  } catch (error) {
    // Loaded here, not at the top: garuda acp answers initialize before the runtime's modules load.
    const { RewindError } = await import("../runtime/rewind.ts");
    if (error instanceof RewindError) throw invalid(error.message);
    throw new acp.RequestError(-32603, `The rewind failed: ${messageOf(error)}`);
  }
}
