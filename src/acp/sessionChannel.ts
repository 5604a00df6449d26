// A session's way to the editor. SessionChannel sends the updates in order, and only while a
// prompt runs (the editor ignores updates for a turn it no longer waits for). KnownCalls is the
// set of tool calls the editor has been shown and whether each is still open, so a question can
// name its call, and so a stop can tell which calls it ended and close every one of them.
import type { SessionUpdate, ToolCallContent, ToolKind } from "@agentclientprotocol/sdk";
import { CallTracker, type TrackedCall } from "../display/callTracker.ts";
import type { OutputStyle } from "./toolText.ts";

/**
 * Sends one session's updates; drops them while no prompt runs. Each update is handed to the
 * connection at once, and the connection writes messages in the order it was given them, so
 * updates, questions and the prompt's response keep their order on the wire.
 */
export class SessionChannel {
  #open = false;
  #tail: Promise<void> = Promise.resolve();

  /** `deliver` sends on this session, or on `sessionId` (a child session's update, subagentUpdates.ts). */
  constructor(private readonly deliver: (update: SessionUpdate, sessionId?: string) => Promise<void>) {}

  get isOpen(): boolean {
    return this.#open;
  }

  open(): void {
    this.#open = true;
  }

  /** No update goes out after this until the next open(). */
  close(): void {
    this.#open = false;
  }

  /** Queues the update; false when no prompt runs. A transport error loses the update, nothing else. */
  send(update: SessionUpdate, sessionId?: string): boolean {
    if (!this.#open) return false;
    this.#tail = this.deliver(update, sessionId).catch(() => {});
    return true;
  }

  /** Resolves when every update sent so far has been written (or failed). */
  flush(): Promise<void> {
    return this.#tail;
  }
}

export interface KnownCall extends TrackedCall {
  kind: ToolKind;
  /** The diff shown on the card, kept when the call completes. */
  diff?: ToolCallContent;
  /** How its output is sent (toolText.ts); absent: as code. */
  output?: OutputStyle;
  /** Its tool runs (tool_start): a question it asks now is one from inside the run. */
  running?: boolean;
}

/** The tool calls the editor knows, and which of them a stop ended. */
export class KnownCalls extends CallTracker<KnownCall> {}
