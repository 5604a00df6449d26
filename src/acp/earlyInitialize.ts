// The first initialize, answered before the ACP SDK loads. Loading the SDK (it builds its 178 zod
// schemas at import) is ~15 ms of the ~30 ms an editor waited for that answer, and the answer
// needs none of it: it depends only on the request's capabilities (initialize.ts). So the first
// line is read here; when it is a plain initialize request, its answer goes out at once and the
// line is handed on to the SDK all the same, which checks it, records the client's capabilities
// and answers it too — that second answer is dropped (dropAnswer). Anything else (another method
// first, a batch, a line that is not JSON, a protocol version the SDK would refuse) is left whole
// to the SDK, which answers it as before.
//
// The SDK replaces a malformed capability with its default instead of refusing the request
// (defaultOnError in its schemas), and initializeResponse() reads capabilities only with
// `=== true` (and `subagents`, which the SDK drops and server.ts puts back from the request as
// sent), so the answer is the same whichever of the two reads the request; only the
// protocol version can make the SDK refuse it, and that is checked here the SDK's way (an
// integer from 0 to 65535). test/acp/earlyInitialize.test.ts holds the two answers side by side.
import type { InitializeRequest } from "@agentclientprotocol/sdk";
import { type InitializeOptions, initializeResponse } from "./initialize.ts";

/** The most read while looking for the first line; a longer first line is the SDK's (and boundedLines') to handle. */
const FIRST_LINE_LIMIT = 1024 * 1024;

export type RequestId = string | number;

export interface EarlyStart {
  /** The editor's input from its first byte again: what was read here, then the rest. */
  input: ReadableStream<Uint8Array>;
  /** The id of the initialize answered here, whose answer from the SDK must be dropped. */
  answered?: RequestId;
}

/** The id and params of `line` when it is an initialize request the SDK would accept; else undefined. */
export function plainInitialize(line: string): { id: RequestId; params: InitializeRequest } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
  const { jsonrpc, id, method, params, ...rest } = message as Record<string, unknown>;
  if (jsonrpc !== "2.0" || method !== "initialize" || Object.keys(rest).length > 0) return undefined;
  if (!(typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)))) return undefined;
  if (typeof params !== "object" || params === null || Array.isArray(params)) return undefined;
  const version = (params as Record<string, unknown>).protocolVersion;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 0 || version > 65535) return undefined;
  return { id, params: params as InitializeRequest };
}

/**
 * Reads `input` up to its first line; answers it on `output` when it is a plain initialize
 * (plainInitialize), releasing `output` after. Never rejects: a failed read or write leaves
 * everything to the SDK.
 */
export async function answerEarlyInitialize(
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
  options: InitializeOptions,
): Promise<EarlyStart> {
  const reader = input.getReader();
  const read: Uint8Array[] = [];
  let length = 0;
  let newline = -1;
  let ended = false;
  try {
    while (newline < 0 && length <= FIRST_LINE_LIMIT) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      const at = value.indexOf(10);
      if (at >= 0) newline = length + at;
      read.push(value);
      length += value.length;
    }
  } catch {
    ended = true;
  }
  const replay = replayed(read, reader, ended);
  if (newline < 0) return { input: replay };
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const part of read) {
    bytes.set(part, offset);
    offset += part.length;
  }
  const request = plainInitialize(new TextDecoder().decode(bytes.subarray(0, newline)));
  if (!request) return { input: replay };
  const writer = output.getWriter();
  try {
    const answer = { jsonrpc: "2.0", id: request.id, result: initializeResponse(request.params, options) };
    await writer.write(new TextEncoder().encode(`${JSON.stringify(answer)}\n`));
  } catch {
    return { input: replay };
  } finally {
    writer.releaseLock();
  }
  return { input: replay, answered: request.id };
}

/** What was read, then the rest of the reader's stream. */
function replayed(
  read: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
  ended: boolean,
): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index < read.length) {
        controller.enqueue(read[index++] as Uint8Array);
        return;
      }
      if (ended) {
        controller.close();
        return;
      }
      try {
        const { value, done } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * The SDK's own answer to the initialize answered early is dropped, once: the editor already
 * has it. `onRefused` hears of it if the SDK's was an error instead (plainInitialize let through
 * something the SDK refused: the editor has an answer it should not have).
 */
export function dropAnswer<Message>(
  answered: RequestId,
  onRefused: (message: Message) => void,
): (message: Message) => boolean {
  let dropped = false;
  return (message) => {
    if (dropped) return false;
    const { id, result, error } = message as { id?: unknown; result?: unknown; error?: unknown };
    if (id !== answered || (result === undefined && error === undefined)) return false;
    dropped = true;
    if (error !== undefined) onRefused(message);
    return true;
  };
}
