// Assembles a Messages API event stream into ModelEvents: deltas for display as they come,
// whole blocks once complete, and the final message exactly as it must be sent back.
// It reads parsed events only; the SDK (in anthropic.ts) owns HTTP and SSE framing.
import type { AssistantBlock, ModelEvent, ModelStopReason } from "./types.ts";
import type { Usage } from "../core-types/usage.ts";
import { MAX_JSON_DEPTH } from "../text/jsonShape.ts";
import { inputProblem, jsonInputProblem, MAX_TOOL_INPUT_CHARS, refusedCall } from "./toolInput.ts";
import { ModelError } from "./types.ts";
import { groupedCount } from "../text/count.ts";

export interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** The fields of a stream event this file reads. Unknown events and fields are ignored. */
export interface WireStreamEvent {
  type: string;
  index?: number;
  message?: { usage?: WireUsage | null };
  content_block?: { type: string };
  delta?: {
    type?: string;
    text?: string;
    thinking?: string;
    signature?: string;
    partial_json?: string;
    stop_reason?: string | null;
  };
  usage?: WireUsage | null;
}

type BlockState =
  | { kind: "text"; text: string }
  | { kind: "thinking"; thinking: string; signature: string }
  | { kind: "redacted_thinking"; data: string }
  /** `chars`: the input's length so far; `json` stops growing past MAX_TOOL_INPUT_CHARS. */
  | { kind: "tool"; server: boolean; id: string; name: string; json: string; chars: number; startInput: unknown }
  | { kind: "server_result"; toolUseId: string; blockType: string; content: unknown };

/** A tool_use block whose input never became valid JSON (cut off by max_tokens, or broken). */
interface BrokenTool {
  index: number;
  name: string;
  json: string;
}

const STOP_REASONS: ReadonlySet<string> = new Set<ModelStopReason>([
  "end_turn",
  "tool_use",
  "max_tokens",
  "stop_sequence",
  "refusal",
  "pause_turn",
  "model_context_window_exceeded",
]);

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function mergeUsage(into: Usage, wire: WireUsage | null | undefined): void {
  if (!wire) return;
  if (typeof wire.input_tokens === "number") into.inputTokens = wire.input_tokens;
  if (typeof wire.output_tokens === "number") into.outputTokens = wire.output_tokens;
  if (typeof wire.cache_read_input_tokens === "number") into.cacheReadTokens = wire.cache_read_input_tokens;
  if (typeof wire.cache_creation_input_tokens === "number") into.cacheCreationTokens = wire.cache_creation_input_tokens;
}

function startBlock(block: Record<string, unknown>): BlockState | undefined {
  const type = text(block.type);
  switch (type) {
    case "text":
      return { kind: "text", text: "" };
    case "thinking":
      return { kind: "thinking", thinking: text(block.thinking), signature: text(block.signature) };
    case "redacted_thinking":
      return { kind: "redacted_thinking", data: text(block.data) };
    case "tool_use":
    case "server_tool_use":
      return {
        kind: "tool",
        server: type === "server_tool_use",
        id: text(block.id),
        name: text(block.name),
        json: "",
        chars: 0,
        startInput: block.input,
      };
    default:
      // Server tool results (web_search_tool_result, web_fetch_tool_result, …) arrive whole.
      if (type.endsWith("_tool_result") && typeof block.tool_use_id === "string") {
        return { kind: "server_result", toolUseId: block.tool_use_id, blockType: type, content: block.content };
      }
      return undefined;
  }
}

export class ResponseAssembler {
  readonly #open = new Map<number, BlockState>();
  readonly #done = new Map<number, AssistantBlock>();
  readonly #broken: BrokenTool[] = [];
  readonly #usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
  #stopReason: ModelStopReason = "end_turn";
  #complete = false;

  /** True once `message_stop` arrived: the response is whole. */
  get complete(): boolean {
    return this.#complete;
  }

  /** Takes one stream event; returns what to yield for it right away. */
  push(event: WireStreamEvent): ModelEvent[] {
    if (this.#complete) return [];
    switch (event.type) {
      case "message_start":
        mergeUsage(this.#usage, event.message?.usage);
        return [];
      case "content_block_start":
        return this.#start(event);
      case "content_block_delta":
        return this.#delta(event);
      case "content_block_stop":
        return this.#stop(event.index ?? -1);
      case "message_delta": {
        const reason = event.delta?.stop_reason;
        if (typeof reason === "string")
          this.#stopReason = STOP_REASONS.has(reason) ? (reason as ModelStopReason) : "end_turn";
        mergeUsage(this.#usage, event.usage);
        return [];
      }
      case "message_stop":
        this.#complete = true;
        return [];
      default:
        return [];
    }
  }

  /** The closing event. Call only when `complete`. */
  finish(): ModelEvent {
    const broken = this.#broken[0];
    if (broken && this.#stopReason !== "max_tokens") {
      throw new ModelError(
        `Anthropic sent an input for the tool "${broken.name}" that is not valid JSON ` +
          `(${JSON.stringify(broken.json.slice(0, 80))}). Try the request again.`,
      );
    }
    const content = [...this.#done.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
    return { type: "message_end", stopReason: this.#stopReason, content, usage: { ...this.#usage } };
  }

  #start(event: WireStreamEvent): ModelEvent[] {
    const block = asRecord(event.content_block);
    const state = startBlock(block);
    if (!state || event.index === undefined) return [];
    this.#open.set(event.index, state);
    const initial = state.kind === "text" ? text(block.text) : "";
    if (state.kind === "text" && initial) {
      state.text = initial;
      return [{ type: "text_delta", text: initial }];
    }
    return [];
  }

  #delta(event: WireStreamEvent): ModelEvent[] {
    const state = this.#open.get(event.index ?? -1);
    const delta = event.delta;
    if (!state || !delta) return [];
    if (delta.type === "text_delta" && state.kind === "text") {
      const piece = text(delta.text);
      state.text += piece;
      return piece ? [{ type: "text_delta", text: piece }] : [];
    }
    if (delta.type === "thinking_delta" && state.kind === "thinking") {
      const piece = text(delta.thinking);
      state.thinking += piece;
      return piece ? [{ type: "thinking_delta", text: piece }] : [];
    }
    if (delta.type === "signature_delta" && state.kind === "thinking") {
      state.signature = text(delta.signature);
    } else if (delta.type === "input_json_delta" && state.kind === "tool") {
      const piece = text(delta.partial_json);
      state.chars += piece.length;
      // An input over the bound is refused whole: the rest is counted, not kept.
      if (state.chars <= MAX_TOOL_INPUT_CHARS) state.json += piece;
    }
    return [];
  }

  #stop(index: number): ModelEvent[] {
    const state = this.#open.get(index);
    if (!state) return [];
    this.#open.delete(index);
    switch (state.kind) {
      case "text":
        this.#done.set(index, { type: "text", text: state.text });
        return [];
      case "thinking":
        this.#done.set(index, { type: "thinking", thinking: state.thinking, signature: state.signature });
        return [];
      case "redacted_thinking":
        this.#done.set(index, { type: "redacted_thinking", data: state.data });
        return [];
      case "server_result": {
        const { toolUseId, blockType, content } = state;
        this.#done.set(index, { type: "server_tool_result", toolUseId, blockType, content });
        return [{ type: "server_tool_result", toolUseId, blockType, content }];
      }
      case "tool":
        return this.#finishTool(index, state);
    }
  }

  #finishTool(index: number, state: Extract<BlockState, { kind: "tool" }>): ModelEvent[] {
    let input: unknown;
    const empty = state.chars <= MAX_TOOL_INPUT_CHARS && state.json.trim() === "";
    const problem = empty ? inputProblem(state.startInput) : jsonInputProblem(state.json, state.chars);
    if (problem !== undefined) {
      if (state.server) {
        throw new ModelError(
          `Anthropic sent a server tool call (${state.name.slice(0, 100)}) over ` +
            `${groupedCount(MAX_TOOL_INPUT_CHARS)} characters or nested over ` +
            `${MAX_JSON_DEPTH} levels, which Garuda does not keep. Try the request again.`,
        );
      }
      const refused = refusedCall(state.id, state.name, problem);
      this.#done.set(index, refused);
      return [{ type: "tool_use", id: refused.id, name: refused.name, input: refused.input }];
    }
    if (empty) {
      const start = asRecord(state.startInput);
      input = state.startInput !== null && typeof state.startInput === "object" ? start : {};
    } else {
      try {
        input = JSON.parse(state.json);
      } catch {
        this.#broken.push({ index, name: state.name, json: state.json });
        return [];
      }
    }
    const type = state.server ? "server_tool_use" : "tool_use";
    this.#done.set(index, { type, id: state.id, name: state.name, input });
    return [{ type, id: state.id, name: state.name, input }];
  }
}
