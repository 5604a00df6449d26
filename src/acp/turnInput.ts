// What an editor sends to a session while its turn runs. A second session/prompt waits behind the
// turn (the session's PromptQueue, src/runtime/promptQueue.ts) and a stop drops it with a line.
// `_session/steering` (the extension claude-agent-acp and codex-acp serve, advertised as
// `_meta.steering.supported` in the answer to initialize) puts a message into the running turn:
// the Runtime's loop gives it to the model at its next step, after the running tool calls end.
// With no turn running, the request's `_meta.steering.idleBehavior` decides: "promptRequired"
// answers so (the editor sends it as a prompt of its own); without it a turn starts (queued like a
// prompt); any other value is taken as "promptRequired", so nothing unrecognised starts a turn.
//
// The params are read here, not by the SDK (an extension has no schema there): the nesting is
// measured first without recursion, and only the fields used are copied, so nothing of an
// attacker's shape reaches the conversation or the session file. The message's size is the
// Runtime's to bound (the prompt bound, src/runtime/promptBound.ts).
import * as acp from "@agentclientprotocol/sdk";
import { MAX_QUEUED_PROMPTS, type PromptQueue, QueueFullError } from "../runtime/promptQueue.ts";
import { jsonShape } from "../text/jsonShape.ts";
import { oneLine } from "../text/visible.ts";
import { promptText } from "./prompt.ts";
import { promptBlocks } from "./promptBlocks.ts";

export const STEERING_METHOD = "_session/steering";

/** The deepest nesting of a steering request's params (a content block with its resource and annotations needs 5). */
export const MAX_STEERING_DEPTH = 16;
/** The most content blocks one steering message holds. */
export const MAX_STEERING_BLOCKS = 256;

export interface SteeringRequest {
  sessionId: string;
  /** Only the fields Garuda reads, copied from what the editor sent. */
  prompt: acp.ContentBlock[];
  /** What to do when no turn runs. */
  idle: "promptRequired" | "startNewTurn";
}

export type SteeringResponse =
  | { outcome: "injected" }
  | { outcome: "startedNewTurn" }
  | { outcome: "promptRequired"; reason: "noRunningTurn" }
  | { outcome: "failed"; reason: string };

/** What turnInput needs of a session: its runtime and its prompt (which queues behind a running turn). */
export interface SteerableSession {
  readonly runtime: {
    readonly root: string;
    steer(text: string, shown: ReturnType<typeof promptBlocks>): { id: number } | { idle: true } | { refused: string };
  };
  prompt(blocks: acp.ContentBlock[], signal: AbortSignal): Promise<acp.PromptResponse>;
  readonly queue: Pick<PromptQueue, "full">;
}

const invalid = (message: string) => acp.RequestError.invalidParams(undefined, message);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** One content block reduced to what Garuda reads; refused (thrown) when it is not one Garuda takes. */
function steeringBlock(value: unknown, index: number): acp.ContentBlock {
  const where = `prompt[${index}]`;
  if (!isRecord(value) || typeof value.type !== "string") throw invalid(`${where} is not a content block.`);
  switch (value.type) {
    case "text":
      if (typeof value.text !== "string") throw invalid(`${where}: a text block needs its text.`);
      return { type: "text", text: value.text };
    case "resource_link":
      if (typeof value.uri !== "string" || typeof value.name !== "string")
        throw invalid(`${where}: a resource_link needs its uri and name.`);
      return { type: "resource_link", uri: value.uri, name: value.name };
    case "resource": {
      const resource = value.resource;
      if (!isRecord(resource) || typeof resource.uri !== "string") throw invalid(`${where}: a resource needs its uri.`);
      if (typeof resource.text === "string")
        return { type: "resource", resource: { uri: resource.uri, text: resource.text } };
      if (typeof resource.blob === "string")
        return { type: "resource", resource: { uri: resource.uri, blob: resource.blob } };
      throw invalid(`${where}: a resource needs its text or blob.`);
    }
    case "image":
    case "audio":
      throw invalid(
        `${where}: a steering message takes text, links and embedded context; send the ${value.type} with a prompt.`,
      );
    default:
      throw invalid(`${where}: "${oneLine(value.type, 40)}" is not a content block Garuda takes.`);
  }
}

/** The SDK's params parser for `_session/steering`: the request, or -32602 with what is wrong. */
export function parseSteering(params: unknown): SteeringRequest {
  const depth = jsonShape(params, MAX_STEERING_DEPTH).depth;
  if (depth > MAX_STEERING_DEPTH)
    throw invalid(`The steering request is nested deeper than ${MAX_STEERING_DEPTH} levels, more than Garuda reads.`);
  if (!isRecord(params)) throw invalid("The steering request needs its params.");
  if (typeof params.sessionId !== "string") throw invalid("The steering request needs a sessionId.");
  const prompt = params.prompt;
  if (!Array.isArray(prompt) || prompt.length === 0) throw invalid("The steering request needs a non-empty prompt.");
  if (prompt.length > MAX_STEERING_BLOCKS)
    throw invalid(
      `The steering message has ${prompt.length} blocks, more than the ${MAX_STEERING_BLOCKS} Garuda takes.`,
    );
  const meta = isRecord(params._meta) ? params._meta : undefined;
  const steering = meta && isRecord(meta.steering) ? meta.steering : undefined;
  const behavior = steering?.idleBehavior;
  return {
    sessionId: params.sessionId,
    prompt: prompt.map(steeringBlock),
    idle: behavior === undefined ? "startNewTurn" : "promptRequired",
  };
}

/** `_session/steering` for one session. */
export function steer(
  session: SteerableSession,
  request: SteeringRequest,
  log: (text: string) => void,
): SteeringResponse {
  const runtime = session.runtime;
  const put = runtime.steer(promptText(request.prompt, runtime.root), promptBlocks(request.prompt));
  if ("id" in put) return { outcome: "injected" };
  if ("refused" in put) return { outcome: "failed", reason: put.refused };
  if (request.idle === "promptRequired") return { outcome: "promptRequired", reason: "noRunningTurn" };
  if (session.queue.full) return { outcome: "failed", reason: new QueueFullError().message };
  // A turn of its own, answered by no request: its updates show it; it waits behind a turn that
  // is starting (a /command, the project's settings asked about).
  session.prompt(request.prompt, new AbortController().signal).catch((error: unknown) => {
    log(
      `garuda acp: the turn a steering message started failed: ` +
        `${error instanceof Error ? error.message : String(error)}`,
    );
  });
  return { outcome: "startedNewTurn" };
}

/**
 * Waits for the session's turn; false when the prompt was dropped (a stop) or its request cancelled. A full queue is
 * the editor's error.
 */
export async function enterQueue(queue: PromptQueue, signal: AbortSignal): Promise<boolean> {
  try {
    return await queue.enter(signal);
  } catch (error) {
    if (error instanceof QueueFullError)
      throw acp.RequestError.invalidRequest({ queued: MAX_QUEUED_PROMPTS }, error.message);
    throw error;
  }
}

/** The line said in the stopped turn when prompts queued behind it were dropped. */
export function droppedLine(count: number): string {
  return count === 1
    ? "The prompt queued behind this turn was dropped with the stop; it did not run."
    : `The ${count} prompts queued behind this turn were dropped with the stop; none of them ran.`;
}
