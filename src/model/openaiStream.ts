// Reads a Chat Completions stream: a small SSE reader (`data: {...}` events, `[DONE]` at the
// end) and an assembler that turns the chunks into ModelEvents: text and reasoning deltas as
// they come, tool calls put together from their fragments (by index, several per response),
// usage when the server reports it (an estimate when it does not), and the final message.
import { newCallId, TextToolCallParser, type TextPiece } from "./textToolCalls.ts";
import { type AssistantBlock, INVALID_TOOL_CALL, type InvalidToolCallInput, type ModelEvent, type ModelStopReason, type ToolUseBlock, type Usage } from "./types.ts";

/** The usage estimate when the server reports none. */
export const CHARS_PER_TOKEN = 4;

export interface SseEvent {
  event: string | undefined;
  data: string;
}

/**
 * The events of an SSE body. `onBytes` is called for every chunk read (comments and
 * keep-alives included), so a watchdog sees a live connection. Ends when the body does.
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>, onBytes: () => void): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let event: string | undefined;
  const dispatch = (): SseEvent | undefined => {
    const out = data.length > 0 ? { event, data: data.join("\n") } : undefined;
    data = [];
    event = undefined;
    return out;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      onBytes();
      buffer += decoder.decode(value, { stream: true });
      for (;;) {
        const match = /\r\n|\r|\n/.exec(buffer);
        // A lone \r at the end may be the first half of \r\n.
        if (!match || (match[0] === "\r" && match.index === buffer.length - 1)) break;
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (line === "") {
          const out = dispatch();
          if (out) yield out;
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "data") data.push(value);
        else if (field === "event") event = value;
      }
    }
    buffer += decoder.decode();
    if (buffer !== "" && buffer.startsWith("data:")) data.push(buffer.slice(5).replace(/^ /, ""));
    const out = dispatch();
    if (out) yield out;
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** One piece of a tool call: the first names it, the others carry pieces of its arguments. */
export interface WireToolCallFragment {
  index?: number;
  id?: string | null;
  function?: { name?: string | null; arguments?: unknown };
}

export interface WireDelta {
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: WireToolCallFragment[] | null;
}

/** The fields of a chunk this file reads. Unknown fields are ignored. */
export interface WireChunk {
  choices?: Array<{ index?: number; delta?: WireDelta | null; finish_reason?: string | null }> | null;
  usage?: {
    prompt_tokens?: number | null;
    completion_tokens?: number | null;
    prompt_tokens_details?: { cached_tokens?: number | null } | null;
  } | null;
  error?: unknown;
}

const STOP_REASONS: Record<string, ModelStopReason> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  function_call: "tool_use",
  length: "max_tokens",
  content_filter: "refusal",
};

interface ToolState {
  id: string;
  name: string;
  json: string;
}

export interface AssemblerOptions {
  /** Read ```tool_call blocks out of the text (models.json textToolCalls). */
  textToolCalls: boolean;
  /** The request's size in characters, for the usage estimate. */
  requestChars: number;
  newId?: () => string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A native call's arguments: a JSON object (some servers send the object itself, some encode it twice). */
function readArguments(json: string): { input: Record<string, unknown> } | { problem: string } {
  if (json.trim() === "") return { input: {} };
  let value: unknown;
  try {
    value = JSON.parse(json);
    if (typeof value === "string") value = JSON.parse(value);
  } catch (error) {
    return { problem: `its arguments are not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  return isObject(value) ? { input: value } : { problem: "its arguments must be a JSON object" };
}

export class ChunkAssembler {
  /** The content in order: text blocks and calls (text tool calls may come between texts). */
  readonly #content: AssistantBlock[] = [];
  readonly #tools = new Map<number, ToolState>();
  readonly #parser: TextToolCallParser | undefined;
  readonly #options: AssemblerOptions;
  readonly #newId: () => string;
  #usage: Usage | undefined;
  #finishReason: string | undefined;
  #done = false;
  #outputChars = 0;
  #lastToolIndex = -1;

  constructor(options: AssemblerOptions) {
    this.#options = options;
    this.#newId = options.newId ?? newCallId;
    this.#parser = options.textToolCalls ? new TextToolCallParser(this.#newId) : undefined;
  }

  /** `[DONE]` arrived, or a finish reason did and the body ended: the response is whole. */
  get complete(): boolean {
    return this.#done || this.#finishReason !== undefined;
  }

  /** The `[DONE]` sentinel. */
  done(): void {
    this.#done = true;
  }

  /** Takes one chunk; returns what to yield for it right away. */
  push(chunk: WireChunk): ModelEvent[] {
    const events: ModelEvent[] = [];
    if (isObject(chunk.usage)) this.#takeUsage(chunk.usage);
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta ?? {};
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === "string" && reasoning !== "") {
        this.#outputChars += reasoning.length;
        events.push({ type: "thinking_delta", text: reasoning });
      }
      if (typeof delta.content === "string" && delta.content !== "") {
        this.#outputChars += delta.content.length;
        events.push(...this.#text(delta.content));
      }
      for (const fragment of delta.tool_calls ?? []) this.#toolFragment(fragment);
      if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") this.#finishReason = choice.finish_reason;
    }
    return events;
  }

  /** The calls and the closing event. Call only when `complete`. */
  finish(): ModelEvent[] {
    const events: ModelEvent[] = [];
    if (this.#parser) events.push(...this.#pieces(this.#parser.finish()));
    for (const [, tool] of [...this.#tools.entries()].sort(([a], [b]) => a - b)) {
      const block = this.#toolBlock(tool);
      this.#content.push(block);
      events.push({ type: "tool_use", id: block.id, name: block.name, input: block.input });
    }
    const calls = this.#content.some((block) => block.type === "tool_use");
    let stopReason = STOP_REASONS[this.#finishReason ?? "stop"] ?? "end_turn";
    if (calls && stopReason === "end_turn") stopReason = "tool_use";
    const usage = this.#usage ?? {
      inputTokens: Math.ceil(this.#options.requestChars / CHARS_PER_TOKEN),
      outputTokens: Math.ceil(this.#outputChars / CHARS_PER_TOKEN),
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
      estimated: true,
    };
    events.push({ type: "message_end", stopReason, content: this.#content.map((block) => ({ ...block })), usage });
    return events;
  }

  #text(text: string): ModelEvent[] {
    if (this.#parser) return this.#pieces(this.#parser.push(text));
    this.#appendText(text);
    return [{ type: "text_delta", text }];
  }

  #pieces(pieces: TextPiece[]): ModelEvent[] {
    return pieces.map((piece): ModelEvent => {
      if (piece.type === "text") {
        this.#appendText(piece.text);
        return { type: "text_delta", text: piece.text };
      }
      this.#content.push(piece.block);
      return { type: "tool_use", id: piece.block.id, name: piece.block.name, input: piece.block.input };
    });
  }

  #appendText(text: string): void {
    const last = this.#content.at(-1);
    if (last?.type === "text") last.text += text;
    else this.#content.push({ type: "text", text });
  }

  #toolFragment(fragment: WireToolCallFragment): void {
    const id = typeof fragment.id === "string" ? fragment.id : "";
    let index: number;
    if (typeof fragment.index === "number") index = fragment.index;
    else {
      // No index (some servers): a new id is a new call; otherwise the latest call goes on.
      const known = [...this.#tools.entries()].find(([, tool]) => id !== "" && tool.id === id);
      index = known ? known[0] : id !== "" || this.#lastToolIndex < 0 ? this.#lastToolIndex + 1 : this.#lastToolIndex;
    }
    this.#lastToolIndex = Math.max(this.#lastToolIndex, index);
    let tool = this.#tools.get(index);
    if (!tool) {
      tool = { id: "", name: "", json: "" };
      this.#tools.set(index, tool);
    }
    if (id !== "" && tool.id === "") tool.id = id;
    const name = fragment.function?.name;
    // A name may come in pieces, or whole again with every fragment.
    if (typeof name === "string" && name !== "" && name !== tool.name) tool.name += name;
    const args = fragment.function?.arguments;
    if (typeof args === "string") tool.json += args;
    else if (isObject(args)) tool.json = JSON.stringify(args);
    this.#outputChars += (typeof name === "string" ? name.length : 0) + (typeof args === "string" ? args.length : 0);
  }

  #toolBlock(tool: ToolState): ToolUseBlock {
    const id = tool.id || this.#newId();
    const read = readArguments(tool.json);
    if (tool.name !== "" && "input" in read) return { type: "tool_use", id, name: tool.name, input: read.input };
    const problem = tool.name === "" ? "it named no tool" : (read as { problem: string }).problem;
    const excerpt = tool.json.length > 120 ? `${tool.json.slice(0, 120)}…` : tool.json;
    const input: InvalidToolCallInput = {
      error: `Your call${tool.name ? ` of ${tool.name}` : ""} could not be read: ${problem}${excerpt ? ` in ${JSON.stringify(excerpt)}` : ""}. Call it again with its arguments as one JSON object.`,
      ...(tool.name !== "" && { tool: tool.name }),
    };
    return { type: "tool_use", id, name: INVALID_TOOL_CALL, input };
  }

  #takeUsage(wire: NonNullable<WireChunk["usage"]>): void {
    const prompt = typeof wire.prompt_tokens === "number" ? wire.prompt_tokens : 0;
    const cached = typeof wire.prompt_tokens_details?.cached_tokens === "number" ? wire.prompt_tokens_details.cached_tokens : 0;
    const output = typeof wire.completion_tokens === "number" ? wire.completion_tokens : 0;
    if (prompt === 0 && output === 0) return;
    this.#usage = { inputTokens: Math.max(0, prompt - cached), outputTokens: output, cacheReadTokens: Math.min(cached, prompt), cacheCreationTokens: 0 };
  }
}
