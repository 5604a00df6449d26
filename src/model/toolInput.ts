// The bounds of a tool call's input, the same for every provider: at most MAX_TOOL_INPUT_CHARS
// of JSON, nested at most MAX_JSON_DEPTH levels. The stream readers check the JSON text before
// they parse it; the runtime checks every response's calls again as values (any ModelClient).
// A call over a bound is not run: it becomes an INVALID_TOOL_CALL whose error tells the model
// what was wrong and what to send instead, and whose input is small, so the conversation that
// goes back to the model, the session file and the editor never carry the oversized input.
import { cutText } from "../text/cut.ts";
import { type JsonShape, jsonShape, jsonTextDepth, MAX_JSON_DEPTH } from "../text/jsonShape.ts";
import { type AssistantBlock, INVALID_TOOL_CALL, type InvalidToolCallInput, type ToolUseBlock } from "./types.ts";
import { groupedCount } from "../text/count.ts";

/**
 * The longest tool input, in characters of JSON. A model writes at most a few hundred thousand
 * characters in one response (its output limit), and an input is sent back with every later
 * request, so anything longer is a runaway, not a file to write.
 */
export const MAX_TOOL_INPUT_CHARS = 1_000_000;
/** All tool inputs of one response together. */
export const MAX_RESPONSE_INPUT_CHARS = 2 * MAX_TOOL_INPUT_CHARS;
/** A tool name longer than this is not a tool's name. */
const MAX_NAME = 200;
/** How much of a refused text call goes back to the model as what it wrote. */
const RAW_KEPT = 2_000;

const count = (n: number) => groupedCount(n);

const tooLarge = (chars: number, max: number, what = "its input is") =>
  `${what} ${count(chars)} characters of JSON, more than the ${count(max)} Garuda takes. ` +
  ("Send less in one call: split large content into several calls (write a file in " +
    "parts: write_file with the first part, then edit_file to add the rest), or " +
    "leave out what the tool does not need.");

/** `exact`: the depth was counted to the end (a JSON text), not only until it passed the bound (a value). */
const tooDeep = (depth: number, exact: boolean) =>
  `its input is nested ${exact ? count(depth) : `more than ${count(MAX_JSON_DEPTH)}`} ` +
  `levels deep, and Garuda takes at most ${MAX_JSON_DEPTH}. ` +
  "Send the input as the tool's schema describes it, with objects and arrays nested only as deep as it needs.";

/** What is wrong with a tool input's JSON text before it is parsed, or undefined when it is within the bounds. */
export function jsonInputProblem(json: string, chars = json.length): string | undefined {
  if (chars > MAX_TOOL_INPUT_CHARS) return tooLarge(chars, MAX_TOOL_INPUT_CHARS);
  const depth = jsonTextDepth(json);
  return depth > MAX_JSON_DEPTH ? tooDeep(depth, true) : undefined;
}

function shapeProblem(shape: JsonShape): string | undefined {
  if (shape.depth > MAX_JSON_DEPTH) return tooDeep(shape.depth, false);
  return shape.chars > MAX_TOOL_INPUT_CHARS ? tooLarge(shape.chars, MAX_TOOL_INPUT_CHARS) : undefined;
}

/** What is wrong with a tool input (a value), or undefined when it is within the bounds. */
export function inputProblem(input: unknown): string | undefined {
  return shapeProblem(jsonShape(input));
}

/**
 * A call that is not run because of `problem`: an INVALID_TOOL_CALL naming the tool (so the
 * call goes back to the provider under its own name) with the error the model reads. `raw`: what
 * a text model wrote (cut to a short excerpt).
 */
export function refusedCall(id: string, name: string, problem: string, raw?: string): ToolUseBlock {
  const tool = name.length > MAX_NAME ? cutText(name, MAX_NAME) : name;
  const error = `Your call${tool ? ` of ${tool}` : ""} was not run: ${problem}`;
  const input: InvalidToolCallInput = {
    error,
    ...(tool !== "" && { tool }),
    ...(raw !== undefined && { raw: cutText(raw, RAW_KEPT) }),
  };
  return { type: "tool_use", id, name: INVALID_TOOL_CALL, input };
}

/**
 * A response's content with every tool call over a bound replaced by a refused call: one too
 * deep or too large, or one that would take the kept calls' total past MAX_RESPONSE_INPUT_CHARS.
 * A text block longer than that (no model writes one; a broken gateway might) is cut.
 * Server tool blocks are the provider's own: one out of bounds fails the response (the caller
 * throws the returned problem). The same array when nothing was out of bounds.
 */
export function boundResponse(content: readonly AssistantBlock[]): {
  content: readonly AssistantBlock[];
  serverProblem?: string;
} {
  let total = 0;
  let changed = false;
  const out = content.map((block): AssistantBlock => {
    if (block.type === "text" && block.text.length > MAX_RESPONSE_INPUT_CHARS) {
      changed = true;
      return { type: "text", text: cutText(block.text, MAX_RESPONSE_INPUT_CHARS) };
    }
    if (block.type !== "tool_use" || block.name === INVALID_TOOL_CALL) return block;
    const shape = jsonShape(block.input);
    const problem =
      (block.name.length > MAX_NAME
        ? `its tool name is ${count(block.name.length)} characters long; no tool has a ` +
          `name that long. Call one of the tools by its name.`
        : undefined) ??
      shapeProblem(shape) ??
      (total + shape.chars > MAX_RESPONSE_INPUT_CHARS
        ? tooLarge(
            total + shape.chars,
            MAX_RESPONSE_INPUT_CHARS,
            "the inputs of your calls in this response up to this one are together",
          )
        : undefined);
    if (problem === undefined) {
      total += shape.chars;
      return block;
    }
    changed = true;
    return refusedCall(block.id, block.name, problem);
  });
  for (const block of content) {
    if (block.type !== "server_tool_use" && block.type !== "server_tool_result") continue;
    const shape = jsonShape(block.type === "server_tool_use" ? block.input : block.content);
    if (shape.depth > MAX_JSON_DEPTH || shape.chars > MAX_RESPONSE_INPUT_CHARS) {
      return {
        content,
        serverProblem:
          `The provider sent a ${block.type === "server_tool_use" ? "server tool call" : "server tool result"} ` +
          `too large or nested too deep to keep. Try the request again.`,
      };
    }
  }
  return { content: changed ? out : content };
}
