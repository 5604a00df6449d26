// What a front end says when the model is asked again: an answer that broke off mid-stream voids
// the text already shown; a request that failed before any text (an overloaded server, a refused
// connection) voids nothing, and saying so would confuse.
import type { AgentEvent } from "../core-types/events.ts";

/** `delay` is the wait as the front end writes it ("in 2 s"), or "" for none. */
export function retryNotice(event: Extract<AgentEvent, { type: "model_retry" }>, delay: string): string {
  const when = `attempt ${event.attempt}${delay ? `, ${delay}` : ""}`;
  if (event.partial)
    return (
      `the model's answer broke off (${event.reason}); trying again (${when}). The ` +
      `answer starts again below; the text above it is void.`
    );
  return `the model did not answer (${event.reason}); trying again (${when}).`;
}
