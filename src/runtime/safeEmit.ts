// The Runtime's guard around a front end's event sink.
import type { EventSink } from "../core-types/events.ts";

/** A front end's mistake in onEvent must not leave the conversation half-recorded. */
export function safeEmit(onEvent: EventSink): EventSink {
  return (event) => {
    try {
      const held = onEvent(event);
      // Only a command's output waits for the front end (EventSink); a failure there frees it.
      if (event.type === "tool_output" && held instanceof Promise) return held.catch(() => {});
    } catch {
      // The event is lost for display; the turn and its records go on.
    }
    return undefined;
  };
}
