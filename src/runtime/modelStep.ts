// One model response, streamed: deltas go out as events while they come; the response itself
// is message_end's content (a `retry` voids what was streamed before it, so only the last
// attempt's answer is kept), its tool calls held to the bounds of model/toolInput.ts. Abort ends
// the wait at once and closes the stream.
import { abortError } from "../model/abort.ts";
import {
  type AssistantBlock,
  type ModelClient,
  ModelError,
  type ModelRequest,
  type ModelStopReason,
} from "../model/types.ts";
import type { Usage } from "../core-types/usage.ts";
import { serverToolInfo, serverToolSummary } from "../model/serverTools.ts";
import { boundResponse } from "../model/toolInput.ts";
import { abortable } from "./abortable.ts";
import type { AgentEvent } from "../core-types/events.ts";
import { type MessageKind, newMessageId } from "../store/messageIds.ts";

export interface ModelResponse {
  content: AssistantBlock[];
  stopReason: ModelStopReason;
  usage: Usage;
  /** The messages shown while it streamed (the last attempt's), in order: their kinds and ids. */
  streamed: { kind: MessageKind; id: string }[];
}

/** The longest run of events handled without giving the event loop a turn. */
const YIELD_EVERY_MS = 5;

/**
 * Streams one response. `emit` undefined: nothing is shown (a compaction summary). Throws the
 * client's error, or an AbortError when `signal` aborts.
 */
export async function streamResponse(
  client: ModelClient,
  request: ModelRequest,
  signal: AbortSignal,
  emit: ((event: AgentEvent) => void) | undefined,
): Promise<ModelResponse> {
  if (signal.aborted) throw abortError();
  const iterator = client.stream(request, signal)[Symbol.asyncIterator]();
  const serverTools = new Map<string, string>();
  // The messages this attempt showed (a retry voids them), and the one that streams now.
  let streamed: { kind: MessageKind; id: string }[] = [];
  let current: { kind: MessageKind; id: string } | undefined;
  // Whether the client's generator ran to its end. It is suspended at its message_end (or
  // mid-stream on an abort or a bad response) when this returns, and a suspended generator
  // never runs its finally: the attempt's idle watchdog (a 180 s timer holding the request's
  // controller) and its listener on the turn's signal would live on until the timer fired.
  let ended = false;
  let ranSince = performance.now();
  try {
    for (;;) {
      // Events a fast server sent at once come without a wait between them: now and then the
      // event loop gets a turn, for a key that stops the turn (the chat), a cancel (ACP), a frame.
      if (performance.now() - ranSince > YIELD_EVERY_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        ranSince = performance.now();
        if (signal.aborted) throw abortError();
      }
      const next = await abortable(iterator.next(), signal);
      if (next.done) {
        ended = true;
        break;
      }
      const event = next.value;
      switch (event.type) {
        case "text_delta":
        case "thinking_delta": {
          const kind = event.type === "text_delta" ? "text" : "thinking";
          if (current?.kind !== kind) {
            current = { kind, id: newMessageId() };
            streamed.push(current);
          }
          emit?.({ type: event.type, text: event.text, messageId: current.id });
          break;
        }
        case "server_tool_use":
          current = undefined;
          serverTools.set(event.id, event.name);
          emit?.({
            type: "server_tool",
            callId: event.id,
            name: event.name,
            input: event.input,
            status: "started",
            info: serverToolInfo(event.name, event.input),
          });
          break;
        case "server_tool_result": {
          current = undefined;
          const name = serverTools.get(event.toolUseId) ?? event.blockType;
          emit?.({
            type: "server_tool",
            callId: event.toolUseId,
            name,
            input: null,
            status: "completed",
            result: event.content,
            summary: serverToolSummary(name, event.content),
          });
          break;
        }
        case "retry":
          serverTools.clear();
          emit?.({
            type: "model_retry",
            attempt: event.attempt,
            delayMs: event.delayMs,
            reason: event.reason,
            partial: streamed.length > 0,
          });
          streamed = [];
          current = undefined;
          break;
        case "warning":
          emit?.({ type: "notice", level: "warning", text: event.text });
          break;
        case "message_end": {
          // Whatever the client: a tool call out of bounds is not kept (it would go back with
          // every later request, and into the session file), only a refusal the model reads.
          const bounded = boundResponse(event.content);
          if (bounded.serverProblem !== undefined) throw new ModelError(bounded.serverProblem);
          return { content: [...bounded.content], stopReason: event.stopReason, usage: event.usage, streamed };
        }
        case "tool_use":
          // Shown when it runs (tool_call), after the whole response is in; text after it is a message of its own.
          current = undefined;
          break;
      }
    }
  } catch (error) {
    if (signal.aborted) throw abortError();
    throw error;
  } finally {
    // Not awaited: after an abort the generator may still be waiting for the network, and the
    // turn ends now; return() runs the generator's finally as soon as it is resumed.
    if (!ended) iterator.return?.().catch(() => {});
  }
  throw new ModelError("The model's response ended without its final message. Try again.");
}
