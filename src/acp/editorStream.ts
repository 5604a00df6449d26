// The editor's stdin and stdout as the SDK's message stream, with what Garuda refuses before the
// SDK sees a line. A line longer than the most Garuda reads is dropped and answered with an error
// for its request (its id found at the line's start), instead of ending the connection as the
// SDK's own limit would. Malformed JSON, batches, unknown methods and wrong params are the SDK's
// to answer (test/acp/robustness.test.ts). Every message sent is held to the most an editor
// reads (messageBound.ts).
//
// What the SDK sends goes out through one stream of Garuda's (messageLines): the bound and the
// line in one write each. Layered streams cost promises per message in
// every layer (a WritableStream's write, its sink's, their reactions), and a long answer is
// thousands of messages: 10,000 text chunks sent at once peaked 9 MiB lower with one layer than
// with five (58.9 vs 67.7 MiB anonymous; bench/acp.ts, "10,000 text chunks").
import * as acp from "@agentclientprotocol/sdk";
import { boundMessage } from "./messageBound.ts";

export interface EditorStreamOptions {
  /** The longest line read; a longer one is refused, not fatal. */
  maxMessageBytes: number;
  /** The longest message sent; a longer one goes out cut. */
  maxSentBytes: number;
  log: (text: string) => void;
  /**
   * Hears each initialize request's params as the editor sent them, before the SDK's schema drops
   * what it does not know (the draft `clientCapabilities.subagents`, initialize.ts).
   */
  onInitialize?: (params: unknown) => void;
}

export interface EditorStream {
  /** What the SDK's agent connects to. */
  readonly stream: acp.Stream;
  /** Closes the output once the connection has ended; an output already gone is no error. */
  close(): Promise<void>;
}

export function editorStream(
  streams: { input: ReadableStream<Uint8Array>; output: WritableStream<Uint8Array> },
  options: EditorStreamOptions,
): EditorStream {
  const maxBytes = options.maxMessageBytes;
  // One writer for the SDK's messages and the answers to refused lines, so lines never interleave.
  const writer = streams.output.getWriter();
  const encoder = new TextEncoder();
  const refuse = (head: string) => {
    const error = acp.RequestError.invalidRequest(
      undefined,
      `the message is larger than ${Math.floor(maxBytes / (1024 * 1024))} MiB, the most Garuda reads`,
    );
    const line = JSON.stringify({ jsonrpc: "2.0", id: leadingId(head), error: error.toErrorResponse() });
    writer.write(encoder.encode(`${line}\n`)).catch(() => {});
  };
  const input = boundedLines(streams.input, maxBytes, refuse);
  // Only the SDK's reading half is used (its writing half would be three more layers); it still
  // answers what it cannot read (malformed JSON, a batch) itself, through the same writer. The
  // SDK's own limit sits above ours, so a long line is always ours to refuse.
  const answers = new WritableStream<Uint8Array>({ write: (chunk) => writer.write(chunk) });
  const { readable: parsed } = acp.ndJsonStream(answers, input, { maxMessageBytes: maxBytes + 1024 });
  const readable = options.onInitialize ? watchInitialize(parsed, options.onInitialize) : parsed;
  const writable = messageLines(writer, encoder, options);
  return { stream: { readable, writable }, close: () => writer.close().catch(() => {}) };
}

/** `messages` as they are, each initialize request's params told to `heard` first. */
function watchInitialize(
  messages: ReadableStream<acp.AnyMessage>,
  heard: (params: unknown) => void,
): ReadableStream<acp.AnyMessage> {
  return messages.pipeThrough(
    new TransformStream<acp.AnyMessage, acp.AnyMessage>({
      transform(message, controller) {
        const { method, params } = message as { method?: unknown; params?: unknown };
        if (method === "initialize") heard(params);
        controller.enqueue(message);
      },
    }),
  );
}

/**
 * The SDK's messages as lines on `writer`, each message held to `maxSentBytes` (boundMessage; one that had to be cut,
 * or could not be sent at
 * all, is logged), one write each.
 */
function messageLines(
  writer: WritableStreamDefaultWriter<Uint8Array>,
  encoder: TextEncoder,
  options: EditorStreamOptions,
): WritableStream<acp.AnyMessage> {
  const { maxSentBytes, log } = options;
  return new WritableStream<acp.AnyMessage>({
    write(message) {
      const line = messageLine(message as unknown as Record<string, unknown>, maxSentBytes, log);
      if (line !== undefined) return writer.write(encoder.encode(line));
    },
    // No close or abort: the output is closed by EditorStream.close once the connection has
    // ended (as the SDK's own writing half left it), not when the SDK lets go of this stream.
  });
}

/** A message's line, newline included, within `maxBytes`; undefined when nothing of it can be sent. */
function messageLine(
  message: Record<string, unknown>,
  maxBytes: number,
  log: (text: string) => void,
): string | undefined {
  const line = jsonLine(message);
  // Most messages are far below the bound: measured by their UTF-16 length first (a UTF-8 byte
  // count is at most three times it), so only a long one is counted byte by byte.
  if (line !== undefined && (line.length * 3 <= maxBytes || Buffer.byteLength(line) - 1 <= maxBytes)) return line;
  const method = typeof message.method === "string" ? ` (${message.method})` : "";
  const bounded = boundMessage(message, maxBytes);
  const boundedLine = bounded === undefined ? undefined : jsonLine(bounded);
  if (boundedLine === undefined) {
    log(
      `garuda acp: a message${method} was larger than ${maxBytes} bytes and could not be cut to fit; it was not sent.`,
    );
    return undefined;
  }
  log(`garuda acp: a message${method} was larger than ${maxBytes} bytes; it was sent with its long texts cut.`);
  return boundedLine;
}

function jsonLine(message: unknown): string | undefined {
  try {
    const text = JSON.stringify(message);
    return text === undefined ? undefined : `${text}\n`;
  } catch {
    return undefined;
  }
}

/** Lines longer than `maxBytes` are dropped and answered (`reject`) instead of ending the connection. */
function boundedLines(
  input: ReadableStream<Uint8Array>,
  maxBytes: number,
  reject: (head: string) => void,
): ReadableStream<Uint8Array> {
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
