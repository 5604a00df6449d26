// The one place that keeps every message to the editor within what a client reads. ACP SDK
// clients (and Garuda's own reader) refuse a line over 32 MiB and drop the connection; the
// fields Garuda fills are cut where they are made (eventMapper.ts and toolCallContent.ts: rawInput, content, notices,
// questions; a diff over 1 MB is not sent), and this bound catches whatever else grows: each
// message the SDK is given is measured, and one over MAX_EDITOR_MESSAGE_BYTES goes out with its
// strings (and, if need be, its lists) cut, each with a marker that says how much was left out.
import { fitJson } from "../text/cut.ts";

/** Well under the clients' 32 MiB, and far above what any message of Garuda's needs. */
export const MAX_EDITOR_MESSAGE_BYTES = 8 * 1024 * 1024;

type Message = Record<string, unknown>;

/** The message to send in place of `message`, or undefined when nothing of it can be sent. */
export function boundMessage(message: Message, maxBytes: number): Message | undefined {
  const fitted = fitJson(message, maxBytes);
  if (fitted !== undefined) return fitted;
  // A response must still answer its request.
  if ("id" in message && ("result" in message || "error" in message)) {
    return {
      jsonrpc: "2.0",
      id: message.id,
      error: {
        code: -32603,
        message:
          `Garuda's answer was larger than ${Math.floor(maxBytes / (1024 * 1024))} MiB ` +
          `and could not be cut to fit.`,
      },
    };
  }
  return undefined;
}
