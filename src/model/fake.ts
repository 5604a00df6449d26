// A scripted ModelClient for unit tests: each stream() plays the next turn of the script and
// records the request. Builders in `fake` make the usual turns (a text answer, a tool call).
import { abortError, sleep, throwIfAborted } from "./abort.ts";
import type { AssistantBlock, ModelClient, ModelEvent, ModelRequest, ModelStopReason, ToolUseBlock } from "./types.ts";
import type { Usage } from "../core-types/usage.ts";

/** A pause while "streaming" (abortable); `ms: Infinity` waits until the signal aborts. */
export interface FakeWait {
  type: "wait";
  ms: number;
}

/** What a turn plays, in order. An Error is thrown at its place (a failure mid-stream). */
export type FakeStep = ModelEvent | Error | FakeWait;

export type FakeTurn = FakeStep[] | ((request: ModelRequest, index: number) => FakeStep[] | Promise<FakeStep[]>);

export interface FakeModelOptions {
  /** Wait this long before each event (abortable), to test cancellation mid-stream. */
  delayMs?: number;
}

export class FakeModelClient implements ModelClient {
  /** Every request received, copied at the time of the call. */
  readonly requests: ModelRequest[] = [];
  readonly #turns: FakeTurn[];
  readonly #delayMs: number;

  constructor(turns: FakeTurn[] = [], options: FakeModelOptions = {}) {
    this.#turns = [...turns];
    this.#delayMs = options.delayMs ?? 0;
  }

  /** Adds turns to the end of the script. */
  push(...turns: FakeTurn[]): this {
    this.#turns.push(...turns);
    return this;
  }

  /** Turns not played yet. */
  get remaining(): number {
    return this.#turns.length;
  }

  /** The latest request, or an error if there was none. */
  get lastRequest(): ModelRequest {
    const last = this.requests.at(-1);
    if (!last) throw new Error("FakeModelClient: no request was made");
    return last;
  }

  /** Records the request and takes the next turn now; the turn plays as the result is iterated. */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    const copy = structuredClone(request);
    const index = this.requests.length;
    this.requests.push(copy);
    return this.#play(this.#turns.shift(), copy, index, signal);
  }

  async *#play(
    turn: FakeTurn | undefined,
    request: ModelRequest,
    index: number,
    signal: AbortSignal,
  ): AsyncGenerator<ModelEvent> {
    throwIfAborted(signal);
    if (turn === undefined) {
      const lastUser = request.messages.findLast((message) => message.role === "user");
      const said = lastUser?.content
        .map((block) =>
          block.type === "text" ? block.text : block.type === "image" ? "[image]" : `[tool_result ${block.toolUseId}]`,
        )
        .join(" ");
      throw new Error(
        `FakeModelClient: the script has no turn left for request #${index + 1} (it had ${index}). ` +
          `The last user message was: ${JSON.stringify(said ?? "")}. Add a turn to the script.`,
      );
    }
    const steps = typeof turn === "function" ? await turn(request, index) : turn;
    for (const step of steps) {
      if (this.#delayMs > 0) await sleep(this.#delayMs, signal);
      throwIfAborted(signal);
      if (step instanceof Error) throw step;
      if (step.type === "wait") {
        await waitFor(step.ms, signal);
        continue;
      }
      yield structuredClone(step);
    }
    throwIfAborted(signal);
  }
}

function waitFor(ms: number, signal: AbortSignal): Promise<void> {
  if (Number.isFinite(ms)) return sleep(ms, signal);
  return new Promise((_, reject) => {
    if (signal.aborted) reject(abortError());
    signal.addEventListener("abort", () => reject(abortError()), { once: true });
  });
}

export interface FakeReplyOptions {
  /** Default: tool_use when the reply has a tool_use block, else end_turn. */
  stopReason?: ModelStopReason;
  usage?: Partial<Usage>;
  /** Split each text and thinking block into this many deltas (default 1). */
  chunks?: number;
}

export interface FakeCall {
  name: string;
  input: unknown;
  id?: string;
}

function pieces(text: string, count: number): string[] {
  const chars = Array.from(text);
  const n = Math.max(1, Math.min(Math.floor(count), chars.length));
  const out: string[] = [];
  for (let i = 0; i < n; i++)
    out.push(chars.slice(Math.floor((i * chars.length) / n), Math.floor(((i + 1) * chars.length) / n)).join(""));
  return out.filter((piece) => piece !== "");
}

function newToolId(): string {
  return `toolu_fake_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
}

function blockEvents(block: AssistantBlock, chunks: number): ModelEvent[] {
  switch (block.type) {
    case "text":
      return pieces(block.text, chunks).map((text) => ({ type: "text_delta", text }));
    case "thinking":
      return pieces(block.thinking, chunks).map((text) => ({ type: "thinking_delta", text }));
    case "redacted_thinking":
      return [];
    case "tool_use":
    case "server_tool_use":
      return [{ type: block.type, id: block.id, name: block.name, input: block.input }];
    case "server_tool_result":
      return [
        { type: "server_tool_result", toolUseId: block.toolUseId, blockType: block.blockType, content: block.content },
      ];
  }
}

/** One whole response: the events for `blocks`, then message_end with them as its content. */
function reply(blocks: AssistantBlock[], options: FakeReplyOptions = {}): ModelEvent[] {
  const stopReason =
    options.stopReason ?? (blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn");
  const usage: Usage = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    ...options.usage,
  };
  return [
    ...blocks.flatMap((block) => blockEvents(block, options.chunks ?? 1)),
    { type: "message_end", stopReason, content: structuredClone(blocks), usage },
  ];
}

function toolBlocks(calls: FakeCall[]): ToolUseBlock[] {
  return calls.map((call) => ({ type: "tool_use", id: call.id ?? newToolId(), name: call.name, input: call.input }));
}

/** Builders of scripted turns. */
export const fake = {
  reply,
  /** A text answer that ends the turn. */
  text: (text: string, options: FakeReplyOptions = {}): ModelEvent[] => reply([{ type: "text", text }], options),
  /** Thinking (with a signature), then a text answer. */
  thinking: (
    thinking: string,
    text: string,
    signature = "fake-signature",
    options: FakeReplyOptions = {},
  ): ModelEvent[] =>
    reply(
      [
        { type: "thinking", thinking, signature },
        { type: "text", text },
      ],
      options,
    ),
  /** One tool call, optionally after some text. */
  toolCall: (
    name: string,
    input: unknown,
    options: FakeReplyOptions & { id?: string; text?: string } = {},
  ): ModelEvent[] => {
    const { id, text, ...rest } = options;
    const preamble: AssistantBlock[] = text ? [{ type: "text", text }] : [];
    return reply([...preamble, ...toolBlocks([{ name, input, ...(id !== undefined && { id }) }])], rest);
  },
  /** Several tool calls in one response. */
  toolCalls: (calls: FakeCall[], options: FakeReplyOptions = {}): ModelEvent[] => reply(toolBlocks(calls), options),
  /** A retry notice (what the real client yields before sending again). */
  retry: (attempt = 2, reason = "529 overloaded_error: Overloaded", delayMs = 0): ModelEvent => ({
    type: "retry",
    attempt,
    delayMs,
    reason,
  }),
  /** A pause; `Infinity` waits until the request is aborted. */
  wait: (ms: number): FakeWait => ({ type: "wait", ms }),
  /** A turn that fails at once with `error`. */
  fail: (error: Error): FakeStep[] => [error],
};
