// Reads a Chat Completions stream: a small SSE reader (`data: {...}` events, `[DONE]` at the
// end) and an assembler that turns the chunks into ModelEvents: text and reasoning deltas as
// they come, tool calls put together from their fragments (by index, several per response),
// usage when the server reports it (an estimate when it does not), and the final message.
import { messageOf } from "../errors/caught.ts";
import { newCallId, TextToolCallParser, type TextPiece } from "./textToolCalls.ts";
import { inputProblem, jsonInputProblem, MAX_TOOL_INPUT_CHARS, refusedCall } from "./toolInput.ts";
import {
  type AssistantBlock,
  INVALID_TOOL_CALL,
  type InvalidToolCallInput,
  type ModelEvent,
  type ModelStopReason,
  type ToolUseBlock,
} from "./types.ts";
import type { Usage } from "../core-types/usage.ts";

/** The usage estimate when the server reports none. */
const CHARS_PER_TOKEN = 4;

export interface SseEvent {
  event: string | undefined;
  data: string;
}

/**
 * The events of an SSE body. `onBytes` is called for every chunk read (comments and
 * keep-alives included), so a watchdog sees a live connection. Ends when the body does. Each
 * chunk is searched for line ends once: a long line (a large tool call) costs its length, not
 * its length times the number of chunks it came in.
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>, onBytes: () => void): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  /** The line not ended yet, in pieces. */
  let partial: string[] = [];
  /** The last chunk ended with \r: a \n first in the next one belongs to it. */
  let afterCR = false;
  let data: string[] = [];
  let event: string | undefined;
  const dispatch = (): SseEvent | undefined => {
    const out = data.length > 0 ? { event, data: data.join("\n") } : undefined;
    data = [];
    event = undefined;
    return out;
  };
  /** Takes one whole line; an event when the line is the blank one that ends it. */
  const takeLine = (line: string): SseEvent | undefined => {
    if (line === "") return dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
    return undefined;
  };
  const lineEnd = /\r\n|\r|\n/g;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      onBytes();
      let text = decoder.decode(value, { stream: true });
      if (afterCR && text.startsWith("\n")) text = text.slice(1);
      afterCR = false;
      let from = 0;
      lineEnd.lastIndex = 0;
      for (let match = lineEnd.exec(text); match; match = lineEnd.exec(text)) {
        partial.push(text.slice(from, match.index));
        const line = partial.join("");
        partial = [];
        from = match.index + match[0].length;
        if (match[0] === "\r" && from === text.length) afterCR = true;
        const out = takeLine(line);
        if (out) yield out;
      }
      if (from < text.length) partial.push(text.slice(from));
    }
    const rest = partial.join("") + decoder.decode();
    if (rest !== "" && rest.startsWith("data:")) data.push(rest.slice(5).replace(/^ /, ""));
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
  /** The arguments so far; they stop growing past MAX_TOOL_INPUT_CHARS (`chars` goes on counting). */
  json: string;
  chars: number;
  /** Why the arguments are refused whole (an object too deep to write as JSON). */
  problem?: string;
}

export interface AssemblerOptions {
  /** Read ```tool_call blocks out of the text (models.json textToolCalls). */
  textToolCalls: boolean;
  /** The request's size in characters, for the usage estimate. */
  requestChars: number;
  newId?: () => string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

type ReadArguments = { input: Record<string, unknown> } | { problem: string } | { refused: string };

/**
 * A native call's arguments: a JSON object (some servers send the object itself, some encode it
 * twice), or what is wrong: `problem` when it cannot be read, `refused` when it is out of bounds.
 */
function readArguments(tool: ToolState): ReadArguments {
  const bound = tool.problem ?? jsonInputProblem(tool.json, tool.chars);
  if (bound !== undefined) return { refused: bound };
  if (tool.json.trim() === "") return { input: {} };
  let value: unknown;
  try {
    value = JSON.parse(tool.json);
    if (typeof value === "string") {
      const inner = jsonInputProblem(value);
      if (inner !== undefined) return { refused: inner };
      value = JSON.parse(value);
    }
  } catch (error) {
    return { problem: `its arguments are not valid JSON (${messageOf(error)})` };
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
      if (typeof choice.finish_reason === "string" && choice.finish_reason !== "")
        this.#finishReason = choice.finish_reason;
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
      tool = { id: "", name: "", json: "", chars: 0 };
      this.#tools.set(index, tool);
    }
    if (id !== "" && tool.id === "") tool.id = id;
    const name = fragment.function?.name;
    // A name may come in pieces, or whole again with every fragment.
    if (typeof name === "string" && name !== "" && name !== tool.name) tool.name += name;
    const args = fragment.function?.arguments;
    if (typeof args === "string") {
      tool.chars += args.length;
      if (tool.chars <= MAX_TOOL_INPUT_CHARS) tool.json += args;
    } else if (isObject(args)) {
      // An object: checked as a value before it is written as JSON (too deep would overflow the stack).
      const problem = inputProblem(args);
      if (problem !== undefined) tool.problem = problem;
      else tool.json = JSON.stringify(args);
      tool.chars = tool.json.length;
    }
    this.#outputChars += (typeof name === "string" ? name.length : 0) + (typeof args === "string" ? args.length : 0);
  }

  #toolBlock(tool: ToolState): ToolUseBlock {
    const id = tool.id || this.#newId();
    const read = readArguments(tool);
    if ("refused" in read) return refusedCall(id, tool.name, read.refused);
    if (tool.name !== "" && "input" in read) return { type: "tool_use", id, name: tool.name, input: read.input };
    const problem = tool.name === "" ? "it named no tool" : (read as { problem: string }).problem;
    const excerpt = tool.json.length > 120 ? `${tool.json.slice(0, 120)}…` : tool.json;
    const input: InvalidToolCallInput = {
      error:
        `Your call${tool.name ? ` of ${tool.name}` : ""} could not be read: ` +
        `${problem}${excerpt ? ` in ${JSON.stringify(excerpt)}` : ""}. Call it again ` +
        `with its arguments as one JSON object.`,
      ...(tool.name !== "" && { tool: tool.name }),
    };
    return { type: "tool_use", id, name: INVALID_TOOL_CALL, input };
  }

  #takeUsage(wire: NonNullable<WireChunk["usage"]>): void {
    const prompt = typeof wire.prompt_tokens === "number" ? wire.prompt_tokens : 0;
    const cached =
      typeof wire.prompt_tokens_details?.cached_tokens === "number" ? wire.prompt_tokens_details.cached_tokens : 0;
    const output = typeof wire.completion_tokens === "number" ? wire.completion_tokens : 0;
    if (prompt === 0 && output === 0) return;
    this.#usage = {
      inputTokens: Math.max(0, prompt - cached),
      outputTokens: output,
      cacheReadTokens: Math.min(cached, prompt),
      cacheCreationTokens: 0,
    };
  }
}
