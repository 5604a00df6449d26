// The editor's stdin and stdout as the SDK's message stream, with what Garuda refuses before the
// SDK sees a line. A line longer than the most Garuda reads is dropped and answered with an error
// for its request (its id found at the line's start), instead of ending the connection as the
// SDK's own limit would. Malformed JSON, batches, unknown methods and wrong params are the SDK's
// to answer (test/acp/robustness.test.ts). Every message sent is held to the most an editor
// reads (messageBound.ts).
import * as acp from "@agentclientprotocol/sdk";
import { type RequestId, dropAnswer } from "./earlyInitialize.ts";
import { boundedStream } from "./messageBound.ts";

export interface EditorStreamOptions {
  /** The longest line read; a longer one is refused, not fatal. */
  maxMessageBytes: number;
  /** The longest message sent; a longer one goes out cut. */
  maxSentBytes: number;
  log: (text: string) => void;
  /** The initialize already answered before the SDK loaded (earlyInitialize.ts): the SDK's answer to it is dropped. */
  answered?: RequestId;
}

export interface EditorStream {
  /** What the SDK's agent connects to. */
  readonly stream: acp.Stream;
  /** Closes the output once the connection has ended; an output already gone is no error. */
  close(): Promise<void>;
}

export function editorStream(streams: { input: ReadableStream<Uint8Array>; output: WritableStream<Uint8Array> }, options: EditorStreamOptions): EditorStream {
  const maxBytes = options.maxMessageBytes;
  // One writer for the SDK's messages and the answers to refused lines, so lines never interleave.
  const writer = streams.output.getWriter();
  const encoder = new TextEncoder();
  const output = new WritableStream<Uint8Array>({ write: (chunk) => writer.write(chunk) });
  const refuse = (head: string) => {
    const error = acp.RequestError.invalidRequest(undefined, `the message is larger than ${Math.floor(maxBytes / (1024 * 1024))} MiB, the most Garuda reads`);
    const line = JSON.stringify({ jsonrpc: "2.0", id: leadingId(head), error: error.toErrorResponse() });
    writer.write(encoder.encode(`${line}\n`)).catch(() => {});
  };
  const input = boundedLines(streams.input, maxBytes, refuse);
  // The SDK's own limit sits above ours, so a long line is always ours to refuse.
  const bounded = boundedStream(acp.ndJsonStream(output, input, { maxMessageBytes: maxBytes + 1024 }), options.maxSentBytes, options.log);
  const stream = options.answered === undefined ? bounded : withoutAnswer(bounded, options.answered, options.log);
  return { stream, close: () => writer.close().catch(() => {}) };
}

/** The stream, with the SDK's answer to the early-answered initialize left out. */
function withoutAnswer(stream: acp.Stream, answered: RequestId, log: (text: string) => void): acp.Stream {
  const writer = stream.writable.getWriter();
  const drop = dropAnswer<acp.AnyMessage>(answered, (message) => log(`garuda acp: initialize was answered before the SDK checked it, and the SDK refused it: ${JSON.stringify(message)}`));
  const writable = new WritableStream<acp.AnyMessage>({
    write: (message) => (drop(message) ? undefined : writer.write(message)),
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  return { readable: stream.readable, writable };
}

/** Lines longer than `maxBytes` are dropped and answered (`reject`) instead of ending the connection. */
function boundedLines(input: ReadableStream<Uint8Array>, maxBytes: number, reject: (head: string) => void): ReadableStream<Uint8Array> {
  let parts: Uint8Array[] = [];
  let length = 0;
  /** The start of a line being dropped, to find its id. */
  let head: string | undefined;
  const take = (part: Uint8Array) => {
    if (head !== undefined) return;
    length += part.length;
    parts.push(part);
    if (length <= maxBytes) return;
    const start = new Uint8Array(Math.min(4096, length));
    let at = 0;
    for (const piece of parts) {
      if (at >= start.length) break;
      const slice = piece.subarray(0, start.length - at);
      start.set(slice, at);
      at += slice.length;
    }
    head = new TextDecoder().decode(start);
    parts = [];
  };
  const endLine = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (head !== undefined) reject(head);
    else for (const part of parts) controller.enqueue(part);
    parts = [];
    length = 0;
    head = undefined;
  };
  return input.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let start = 0;
        while (start < chunk.length) {
          const newline = chunk.indexOf(10, start);
          const end = newline === -1 ? chunk.length : newline + 1;
          take(chunk.subarray(start, end));
          if (newline !== -1) endLine(controller);
          start = end;
        }
      },
      flush: endLine,
    }),
  );
}

/** The id of a request from the start of its line, when it can be found before its params. */
function leadingId(head: string): string | number | null {
  const match = /"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,15})/.exec(head);
  const params = head.indexOf('"params"');
  if (!match || (params !== -1 && params < match.index)) return null;
  return JSON.parse(match[1] as string) as string | number;
}
