// The bounds of a tool call's input in every reader: the Anthropic assembler, the OpenAI-compatible
// one (native calls, as text, as an object, encoded twice), the text tool-call parser, and the
// runtime's check of any client's response. An input too deep or too large becomes a refused call
// (INVALID_TOOL_CALL) with an error that says what to do; one within the bounds passes unchanged.
import { describe, expect, test } from "bun:test";
import { toWireRequest } from "../../src/model/anthropicRequest.ts";
import { ResponseAssembler, type WireStreamEvent } from "../../src/model/anthropicStream.ts";
import { toOpenAIRequest } from "../../src/model/openaiRequest.ts";
import { ChunkAssembler } from "../../src/model/openaiStream.ts";
import { TextToolCallParser } from "../../src/model/textToolCalls.ts";
import {
  boundResponse,
  inputProblem,
  MAX_RESPONSE_INPUT_CHARS,
  MAX_TOOL_INPUT_CHARS,
} from "../../src/model/toolInput.ts";
import {
  type AssistantBlock,
  INVALID_TOOL_CALL,
  type InvalidToolCallInput,
  type ModelEvent,
  type ToolUseBlock,
} from "../../src/model/types.ts";
import { MAX_JSON_DEPTH } from "../../src/text/jsonShape.ts";

const DEPTH = 100_000;
/** `{"path": [[[…]]]}` nested DEPTH levels, as JSON text. */
const deepJson = `{"path":${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}}`;
/** The same as a value, built without recursion. */
function deepValue(depth: number): Record<string, unknown> {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return { path: value };
}
const bigJson = (chars: number) => JSON.stringify({ path: "a.txt", content: "x".repeat(chars) });

const calls = (events: readonly ModelEvent[]) =>
  events.filter((event): event is Extract<ModelEvent, { type: "tool_use" }> => event.type === "tool_use");
const errorOf = (input: unknown) => (input as InvalidToolCallInput).error;

function anthropicCall(json: string, pieces = 1): { events: ModelEvent[]; content: AssistantBlock[] } {
  const assembler = new ResponseAssembler();
  const events: ModelEvent[] = [];
  const push = (event: WireStreamEvent) => events.push(...assembler.push(event));
  push({ type: "message_start", message: { usage: { input_tokens: 1 } } });
  push({
    type: "content_block_start",
    index: 0,
    content_block: { type: "tool_use", id: "toolu_1", name: "write_file", input: {} } as never,
  });
  const size = Math.ceil(json.length / pieces);
  for (let i = 0; i < json.length; i += size)
    push({
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: json.slice(i, i + size) },
    });
  push({ type: "content_block_stop", index: 0 });
  push({ type: "message_delta", delta: { stop_reason: "tool_use" } });
  push({ type: "message_stop" });
  const end = assembler.finish();
  if (end.type !== "message_end") throw new Error("no message_end");
  return { events, content: end.content };
}

function openaiCall(args: unknown): ToolUseBlock {
  const assembler = new ChunkAssembler({ textToolCalls: false, requestChars: 0 });
  assembler.push({
    choices: [
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, id: "call_1", function: { name: "write_file", arguments: args } }] },
      },
    ],
  });
  assembler.push({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] });
  const [call] = calls(assembler.finish());
  if (!call) throw new Error("no call");
  return { type: "tool_use", id: call.id, name: call.name, input: call.input };
}

function textCall(text: string, size = 4096): ToolUseBlock {
  const parser = new TextToolCallParser(() => "call_t");
  const pieces = [];
  for (let i = 0; i < text.length; i += size) pieces.push(...parser.push(text.slice(i, i + size)));
  pieces.push(...parser.finish());
  const call = pieces.find((piece) => piece.type === "tool_use");
  if (call?.type !== "tool_use") throw new Error("no call");
  return call.block;
}

describe("tool input bounds", () => {
  test("Anthropic: an input nested 100,000 levels is refused before it is parsed, with what to do", () => {
    const { events, content } = anthropicCall(deepJson, 3);
    const [call] = calls(events);
    expect(call?.name).toBe(INVALID_TOOL_CALL);
    expect(call?.input).toEqual({ error: expect.stringContaining("nested 100,001 levels deep"), tool: "write_file" });
    expect(errorOf(call?.input)).toContain(`Garuda takes at most ${MAX_JSON_DEPTH}`);
    expect(content).toEqual([{ type: "tool_use", id: "toolu_1", name: INVALID_TOOL_CALL, input: call?.input }]);
    // It goes back to Anthropic under the tool's own name, without the input.
    const wire = toWireRequest({
      model: "m",
      system: "",
      tools: [],
      maxTokens: 10,
      messages: [{ role: "assistant", content }],
    });
    expect(wire.messages[0]?.content).toEqual([
      { type: "tool_use", id: "toolu_1", name: "write_file", input: {}, cache_control: { type: "ephemeral" } },
    ]);
  });

  test("Anthropic: an input over the size bound is refused, and its pieces past the bound are not kept", () => {
    const json = bigJson(MAX_TOOL_INPUT_CHARS + 10);
    const [call] = calls(anthropicCall(json, 50).events);
    expect(call?.name).toBe(INVALID_TOOL_CALL);
    expect(errorOf(call?.input)).toContain(`its input is ${json.length.toLocaleString("en-US")} characters of JSON`);
    expect(errorOf(call?.input)).toContain("split large content into several calls");
    expect(JSON.stringify(call?.input).length).toBeLessThan(2_000);
  });

  test("negative control: an input within the bounds (64 levels, a large file) passes unchanged", () => {
    const ok = deepValue(MAX_JSON_DEPTH - 1);
    const [deep] = calls(anthropicCall(JSON.stringify(ok), 2).events);
    expect(deep).toEqual({ type: "tool_use", id: "toolu_1", name: "write_file", input: ok });
    const json = bigJson(MAX_TOOL_INPUT_CHARS - 100);
    const [big] = calls(anthropicCall(json, 30).events);
    expect(big?.name).toBe("write_file");
    expect((big?.input as { content: string }).content).toHaveLength(MAX_TOOL_INPUT_CHARS - 100);
  });

  test("OpenAI-compatible: too deep as text, as an object, and encoded twice; too large", () => {
    for (const args of [deepJson, deepValue(DEPTH), JSON.stringify(deepJson)]) {
      const call = openaiCall(args);
      expect(call.name).toBe(INVALID_TOOL_CALL);
      expect(errorOf(call.input)).toMatch(/nested (100,001|more than 64) levels deep/);
      expect((call.input as InvalidToolCallInput).tool).toBe("write_file");
    }
    const big = openaiCall(bigJson(MAX_TOOL_INPUT_CHARS));
    expect(errorOf(big.input)).toContain("characters of JSON, more than the 1,000,000");
    // It goes back under the tool's name, with no arguments.
    const wire = toOpenAIRequest(
      { model: "m", system: "", tools: [], maxTokens: 10, messages: [{ role: "assistant", content: [big] }] },
      { textToolCalls: false } as never,
    );
    expect(JSON.stringify(wire)).toContain('"name":"write_file","arguments":"{}"');
    expect(openaiCall(JSON.stringify({ path: "a.txt" }))).toEqual({
      type: "tool_use",
      id: "call_1",
      name: "write_file",
      input: { path: "a.txt" },
    });
  });

  test("text tool calls: a deep or huge block is refused by name, with a short excerpt of what was written", () => {
    const deep = textCall(`Writing.\n\`\`\`tool_call\n{"name": "write_file", "arguments": ${deepJson}}\n\`\`\`\n`, 7);
    expect(deep.name).toBe(INVALID_TOOL_CALL);
    expect(deep.input).toEqual({
      error: expect.stringContaining("nested 100,002 levels deep"),
      tool: "write_file",
      raw: expect.any(String),
    });
    expect(((deep.input as InvalidToolCallInput).raw ?? "").length).toBeLessThan(2_100);
    const big = textCall(
      `\`\`\`tool_call\n{"name": "write_file", "arguments": ${bigJson(MAX_TOOL_INPUT_CHARS)}}\n\`\`\``,
      16,
    );
    expect(errorOf(big.input)).toStartWith("Your call of write_file was not run: its input is 1,000,");
    expect(textCall('```tool_call\n{"name": "grep", "arguments": {"pattern": "a"}}\n```')).toEqual({
      type: "tool_use",
      id: "call_t",
      name: "grep",
      input: { pattern: "a" },
    });
  });

  test(
    "the runtime's check of any client: too deep, too large, too much in one " +
      "response; server blocks fail the response",
    () => {
      const call = (id: string, input: unknown): ToolUseBlock => ({ type: "tool_use", id, name: "write_file", input });
      const half = { content: "x".repeat(MAX_TOOL_INPUT_CHARS - 100) };
      const content: AssistantBlock[] = [
        { type: "text", text: "Here." },
        call("a", deepValue(DEPTH)),
        call("b", { content: "x".repeat(MAX_TOOL_INPUT_CHARS + 1) }),
        call("c", half),
        call("d", half),
        call("e", half),
        call("f", { path: "small.txt" }),
      ];
      const bounded = boundResponse(content);
      const names = bounded.content.map((block) =>
        block.type === "tool_use" ? `${block.id}:${block.name}` : block.type,
      );
      // c and d fit in the response's total (refused calls do not count); e would pass it; f still fits.
      expect(names).toEqual([
        "text",
        `a:${INVALID_TOOL_CALL}`,
        `b:${INVALID_TOOL_CALL}`,
        "c:write_file",
        "d:write_file",
        `e:${INVALID_TOOL_CALL}`,
        "f:write_file",
      ]);
      expect(errorOf((bounded.content[5] as ToolUseBlock).input)).toContain(`are together 2,999,`);
      expect(errorOf((bounded.content[5] as ToolUseBlock).input)).toContain(
        `more than the ${MAX_RESPONSE_INPUT_CHARS.toLocaleString("en-US")}`,
      );
      expect(bounded.serverProblem).toBeUndefined();
      const named = boundResponse([{ type: "tool_use", id: "n", name: "n".repeat(5_000_000), input: {} }])
        .content[0] as ToolUseBlock;
      expect(named.name).toBe(INVALID_TOOL_CALL);
      expect(JSON.stringify(named).length).toBeLessThan(1_000);
      expect(errorOf(named.input)).toContain("its tool name is 5,000,000 characters long");
      // Negative control: a response within the bounds is the same array.
      const fine: AssistantBlock[] = [call("x", { path: "a" })];
      expect(boundResponse(fine).content).toBe(fine);
      expect(inputProblem({ path: "a" })).toBeUndefined();
      expect(
        boundResponse([
          {
            type: "server_tool_result",
            toolUseId: "s",
            blockType: "web_search_tool_result",
            content: deepValue(DEPTH),
          },
        ]).serverProblem,
      ).toContain("Try the request again");
    },
  );
});
