// Tool calls for models that cannot call tools through the API (models.json `textToolCalls`).
// The tools are described in the system prompt, the model writes each call as a fenced block
//
//   ```tool_call
//   {"name": "read_file", "arguments": {"path": "src/main.ts"}}
//   ```
//
// and this file finds those blocks in the streamed text: the text around them streams on as
// text, each block becomes a tool_use. A block that does not parse becomes a call of the
// INVALID_TOOL_CALL pseudo-tool, whose result (from the registry) tells the model what was
// wrong, so it can write the call again. History goes back in the same format: calls as
// blocks, results as <tool_result> blocks in the user's message.
import { randomBytes } from "node:crypto";
import { messageOf } from "../errors/caught.ts";
import { BlockScanner, CLOSE_FENCE } from "./toolCallBlock.ts";
import { jsonInputProblem, refusedCall } from "./toolInput.ts";
import { INVALID_TOOL_CALL, type InvalidToolCallInput, type ToolSpec, type ToolUseBlock } from "./types.ts";

const TOOL_CALL_FENCE = "```tool_call";
/** Where the model must stop: it never writes a result itself (sent as a stop sequence). */
export const TOOL_RESULT_TAG = "<tool_result";

const EXAMPLE = `${TOOL_CALL_FENCE}\n{"name": "TOOL_NAME", "arguments": {"ARGUMENT": "VALUE"}}\n${CLOSE_FENCE}`;

/** The system prompt's section on calling tools, with every tool's description and input schema. */
export function textToolSection(tools: readonly ToolSpec[]): string {
  const rules = [
    "# Calling tools",
    "",
    "To call a tool, write a block like this in your answer:",
    "",
    EXAMPLE,
    "",
    '- "name" is the tool\'s exact name; "arguments" is its input: a JSON object ' +
      "that follows the tool's input schema below.",
    "- The block holds one JSON object and nothing else. Use double quotes, and " +
      "write a newline inside a string as \\n.",
    "- Several blocks in one answer are fine: they run in the order you write them.",
    `- After your tool_call blocks, end your answer. Each result comes back in the ` +
      `next message as a ${TOOL_RESULT_TAG} name="…"> block; never write one ` +
      `yourself.`,
    "- When you need no tool, answer in plain text, without a tool_call block.",
  ];
  const specs = tools.map(
    (tool) => `## ${tool.name}\n\n${tool.description.trim()}\n\nInput schema: ${JSON.stringify(tool.inputSchema)}`,
  );
  return `${rules.join("\n")}\n\n# Tools\n\n${specs.length > 0 ? specs.join("\n\n") : "(none in this conversation)"}`;
}

/** A call as the model would have written it, for the history sent back. */
export function renderToolCall(block: Pick<ToolUseBlock, "name" | "input">): string {
  if (block.name === INVALID_TOOL_CALL) {
    const { raw } = (block.input ?? {}) as Partial<InvalidToolCallInput>;
    if (typeof raw === "string") return raw;
  }
  return `${TOOL_CALL_FENCE}\n${JSON.stringify({ name: block.name, arguments: block.input ?? {} })}\n${CLOSE_FENCE}`;
}

/** A tool's result as the model reads it. */
export function renderToolResult(name: string, content: string): string {
  return `${TOOL_RESULT_TAG} name=${JSON.stringify(name)}>\n${content}\n</tool_result>`;
}

export type TextPiece = { type: "text"; text: string } | { type: "tool_use"; block: ToolUseBlock };

export function newCallId(): string {
  return `call_${randomBytes(9).toString("base64url")}`;
}

function invalidCall(id: string, problem: string, raw: string, tool?: string): ToolUseBlock {
  const error =
    `Your tool_call block could not be read: ${problem}. Write the call again as\n${EXAMPLE}\n` +
    "with one valid JSON object (double quotes; newlines inside strings written as \\n).";
  const input: InvalidToolCallInput = { error, raw, ...(tool !== undefined && { tool }) };
  return { type: "tool_use", id, name: INVALID_TOOL_CALL, input };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

type ReadCall =
  | { name: string; input: Record<string, unknown> }
  | { problem: string; tool?: string }
  | { refused: string; tool: string };

/** The tool a block names, read from its start without parsing it (for a block too large to parse). */
function namedTool(body: string): string {
  return /"(?:name|tool)"\s*:\s*"([A-Za-z0-9_.:-]{1,100})"/.exec(body.slice(0, 1_000))?.[1] ?? "";
}

/** Reads the JSON of one block: the call, or what is wrong with it (`refused`: out of bounds). */
function readToolCall(body: string): ReadCall {
  const bound = jsonInputProblem(body);
  if (bound !== undefined) return { refused: bound, tool: namedTool(body) };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const reason = messageOf(error);
    const text = body.trim();
    const excerpt = text.length > 120 ? `${text.slice(0, 120)}…` : text;
    return {
      problem: text === "" ? "the block is empty" : `its JSON is not valid (${reason}) in ${JSON.stringify(excerpt)}`,
    };
  }
  if (!isObject(value)) return { problem: 'it must hold a JSON object with "name" and "arguments"' };
  const fn = isObject(value.function) ? value.function : {};
  const name = value.name ?? value.tool ?? fn.name;
  if (typeof name !== "string" || name === "") return { problem: 'the object has no "name" (the tool to call)' };
  let args = value.arguments ?? value.input ?? value.parameters ?? fn.arguments ?? {};
  if (typeof args === "string") {
    const inner = jsonInputProblem(args);
    if (inner !== undefined) return { refused: inner, tool: name };
    try {
      args = JSON.parse(args);
    } catch {
      return { problem: `"arguments" of ${name} must be a JSON object, not a string`, tool: name };
    }
  }
  if (!isObject(args)) return { problem: `"arguments" of ${name} must be a JSON object`, tool: name };
  return { name, input: args };
}

/** One block's JSON as a call, or as an INVALID_TOOL_CALL saying why it could not be read. */
function parseToolCall(body: string, id: string, raw: string, unclosed = false): ToolUseBlock {
  const read = readToolCall(body);
  if ("name" in read) return { type: "tool_use", id, name: read.name, input: read.input };
  if ("refused" in read) return refusedCall(id, read.tool, read.refused, raw);
  const problem = unclosed ? `the block was not closed with ${CLOSE_FENCE}, and ${read.problem}` : read.problem;
  return invalidCall(id, problem, raw, read.tool);
}

/** The length of the longest end of `text` that begins `marker` (a fence maybe cut by the stream). */
function partialSuffix(text: string, marker: string): number {
  for (let length = Math.min(marker.length - 1, text.length); length > 0; length--) {
    if (text.endsWith(marker.slice(0, length))) return length;
  }
  return 0;
}

/**
 * Where the JSON starts in `text` (what follows the opening fence): after the rest of the fence
 * line when that holds no brace (```tool_call json), else at once; undefined until known.
 */
function bodyStart(text: string): number | undefined {
  const newline = text.indexOf("\n");
  const firstLine = newline < 0 ? text : text.slice(0, newline);
  if (firstLine.includes("{") || firstLine.trim() === "") return 0;
  return newline < 0 ? undefined : newline + 1;
}

/**
 * Finds ```tool_call blocks in streamed text. push() each piece as it comes, then finish();
 * both return the text to show and the calls found, in order. Text that may be the start of a
 * fence is held back until the next piece decides it.
 */
export class TextToolCallParser {
  /** The block being read (after its opening fence), or undefined between blocks. */
  #block: BlockScanner | undefined;
  /** Text between blocks not shown yet (it may be the start of a fence). */
  #buffer = "";
  /** A block just ended: the line end after it belongs to it. */
  #afterCall = false;
  readonly #newId: () => string;

  constructor(newId: () => string = newCallId) {
    this.#newId = newId;
  }

  push(chunk: string): TextPiece[] {
    const pieces: TextPiece[] = [];
    let incoming = chunk;
    for (;;) {
      if (!this.#block) {
        this.#buffer += incoming;
        incoming = "";
        if (this.#afterCall) {
          if (this.#buffer === "" || this.#buffer === "\r") return pieces;
          this.#buffer = this.#buffer.replace(/^\r?\n/, "");
          this.#afterCall = false;
        }
        const start = this.#buffer.indexOf(TOOL_CALL_FENCE);
        if (start < 0) {
          const keep = partialSuffix(this.#buffer, TOOL_CALL_FENCE);
          const text = this.#buffer.slice(0, this.#buffer.length - keep);
          if (text !== "") pieces.push({ type: "text", text });
          this.#buffer = this.#buffer.slice(this.#buffer.length - keep);
          return pieces;
        }
        if (start > 0) pieces.push({ type: "text", text: this.#buffer.slice(0, start) });
        incoming = this.#buffer.slice(start + TOOL_CALL_FENCE.length);
        this.#buffer = "";
        this.#block = new BlockScanner();
      }
      const end = this.#block.push(incoming);
      incoming = "";
      if (!end) return pieces;
      const text = this.#block.text;
      const body = text.slice(end.start, end.body);
      pieces.push({
        type: "tool_use",
        block: parseToolCall(body, this.#newId(), `${TOOL_CALL_FENCE}${text.slice(0, end.after)}`),
      });
      incoming = text.slice(end.after);
      this.#block = undefined;
      this.#afterCall = true;
    }
  }

  /** The end of the text: what was held back, or a block that was never closed. */
  finish(): TextPiece[] {
    const block = this.#block;
    this.#block = undefined;
    if (!block) {
      const rest = this.#buffer;
      this.#buffer = "";
      const text = this.#afterCall ? rest.replace(/^\r?\n?/, "") : rest;
      return text === "" ? [] : [{ type: "text", text }];
    }
    const rest = block.text;
    // The closing fence may be missing (cut off, or taken by a stop sequence): a whole object still counts.
    const body = rest.slice(bodyStart(rest) ?? 0).replace(/`{1,3}\s*$/, "");
    return [{ type: "tool_use", block: parseToolCall(body, this.#newId(), `${TOOL_CALL_FENCE}${rest}`, true) }];
  }
}
