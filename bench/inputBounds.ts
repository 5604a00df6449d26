// What the input and output bounds cost (issue 13, items 2 and 3), and that the readers they
// touch stay linear: medians of interleaved runs (bench/interleave.ts).
//
//   bun bench/inputBounds.ts [--rounds N]
//
// Tasks:
//   text call 1 MB / 4 MB   a ```tool_call block of that size streamed in 16-character pieces
//                           through TextToolCallParser (the scan reads each character once, so
//                           4 MB should take about 4 × the 1 MB time)
//   sse 8 MB / 32 MB line   one SSE data line of that size read in 64 KB chunks (sseEvents)
//   bound: response         boundResponse over a typical response (text and 3 small calls)
//   bound: 1 MB input       boundResponse over one call with a 1 MB string (the largest taken)
// bound: depth scan 1 MB  jsonInputProblem over just under 1 MB of JSON text (what every reader runs before it parses)
//   bound: ACP message      boundMessage over a typical session/update (a text chunk, a tool call)
// Each task reports ms per run (the small ones: µs per call, from a loop of many calls).
import { boundMessage, MAX_EDITOR_MESSAGE_BYTES } from "../src/acp/messageBound.ts";
import { sseEvents } from "../src/model/openaiStream.ts";
import { TextToolCallParser } from "../src/model/textToolCalls.ts";
import { boundResponse, jsonInputProblem, MAX_TOOL_INPUT_CHARS } from "../src/model/toolInput.ts";
import type { AssistantBlock } from "../src/model/types.ts";
import { formatStat, formatTable, interleave, type Task } from "./interleave.ts";

function parse(argv: string[]): { rounds: number } {
  let rounds = 15;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--rounds") rounds = Number(argv[++i]);
    else throw new Error(`unknown argument ${arg}; usage: bun bench/inputBounds.ts [--rounds N]`);
  }
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds needs a positive integer");
  return { rounds };
}

const block = (chars: number) => {
  const call = JSON.stringify({ name: "write_file", arguments: { path: "a.txt", content: "x".repeat(chars) } });
  return `Writing it.\n\`\`\`tool_call\n${call}\n\`\`\`\nDone.`;
};

function textCall(text: string): Task["run"] {
  return async () => {
    const started = performance.now();
    const parser = new TextToolCallParser(() => "id");
    let calls = 0;
    for (let i = 0; i < text.length; i += 16)
      calls += parser.push(text.slice(i, i + 16)).filter((piece) => piece.type === "tool_use").length;
    parser.finish();
    if (calls !== 1) throw new Error(`expected one call, got ${calls}`);
    return { ms: performance.now() - started };
  };
}

function sseLine(bytes: number): Task["run"] {
  const line = new TextEncoder().encode(`data: ${"d".repeat(bytes)}\n\n`);
  return async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < line.length; at += 65_536) controller.enqueue(line.subarray(at, at + 65_536));
        controller.close();
      },
    });
    const started = performance.now();
    let events = 0;
    for await (const _event of sseEvents(body, () => {})) events++;
    if (events !== 1) throw new Error(`expected one event, got ${events}`);
    return { ms: performance.now() - started };
  };
}

/** µs per call of `fn`, over `calls` calls. */
function perCall(calls: number, fn: () => unknown): Task["run"] {
  return async () => {
    const started = performance.now();
    for (let i = 0; i < calls; i++) fn();
    return { us: ((performance.now() - started) * 1000) / calls };
  };
}

const typical: AssistantBlock[] = [
  { type: "text", text: "Let me look at the failing test and the code it calls." },
  { type: "tool_use", id: "a", name: "read_file", input: { path: "src/index.ts" } },
  { type: "tool_use", id: "b", name: "grep", input: { pattern: "export function \\w+", glob: "src/**/*.ts" } },
  { type: "tool_use", id: "c", name: "bash", input: { command: "bun test test/index.test.ts", timeout: 60_000 } },
];
const largest: AssistantBlock[] = [
  {
    type: "tool_use",
    id: "w",
    name: "write_file",
    input: { path: "big.txt", content: "x".repeat(MAX_TOOL_INPUT_CHARS - 100) },
  },
];
const nearLimitJson = JSON.stringify({ path: "big.txt", content: "y".repeat(MAX_TOOL_INPUT_CHARS - 1_000) });
const chunk = {
  jsonrpc: "2.0",
  method: "session/update",
  params: {
    sessionId: "s",
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "a few words " } },
  },
};
const call = {
  jsonrpc: "2.0",
  method: "session/update",
  params: {
    sessionId: "s",
    update: {
      sessionUpdate: "tool_call",
      toolCallId: "toolu_1",
      title: "$ bun test",
      kind: "execute",
      status: "pending",
      locations: [],
      rawInput: { command: "bun test" },
    },
  },
};

async function main(): Promise<void> {
  const { rounds } = parse(process.argv.slice(2));
  const tasks: Task[] = [
    { name: "text call 1 MB (16-char pieces)", run: textCall(block(1_000_000)) },
    { name: "text call 4 MB (16-char pieces)", run: textCall(block(4_000_000)) },
    { name: "sse 8 MB line (64 KB chunks)", run: sseLine(8 * 1024 * 1024) },
    { name: "sse 32 MB line (64 KB chunks)", run: sseLine(32 * 1024 * 1024) },
    { name: "bound: typical response", run: perCall(20_000, () => boundResponse(typical)) },
    { name: "bound: 1 MB input", run: perCall(50, () => boundResponse(largest)) },
    { name: "bound: depth scan of 1 MB JSON", run: perCall(50, () => jsonInputProblem(nearLimitJson)) },
    { name: "bound: ACP text chunk", run: perCall(20_000, () => boundMessage(chunk, MAX_EDITOR_MESSAGE_BYTES)) },
    { name: "bound: ACP tool call", run: perCall(20_000, () => boundMessage(call, MAX_EDITOR_MESSAGE_BYTES)) },
  ];
  const results = await interleave(tasks, { rounds, warmup: 2 });
  const rows = results.map((result) => {
    const [metric, stat] = Object.entries(result.stats)[0] as [string, (typeof result.stats)[string]];
    return [result.name, metric, formatStat(stat, metric === "us" ? 2 : 1)];
  });
  console.log(formatTable(["task", "unit", "median [p10–p90]"], rows));
}

await main();
