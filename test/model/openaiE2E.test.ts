// End to end with a local model: the compiled binary's `garuda acp`, driven over stdio by the
// ACP SDK's client, with GARUDA_MODEL=ollama/<model> and Ollama's base URL pointed (through
// models.json in a temporary HOME) at the mock OpenAI-compatible server. A whole prompt with a
// native tool call, and one with text tool calls (a malformed block, then a good one). No key
// anywhere: the ollama provider needs none.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { type MockOpenAI, startMockOpenAI } from "../support/mockOpenAI.ts";
import { garudaBinary } from "../support/garudaBinary.ts";
import { makeTempDir } from "../support/tempDir.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-openai-e2e-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** `garuda acp` as an editor starts it, with models.json sending ollama to the mock. */
function startAgent(mock: MockOpenAI, root: string, model: string, models: Record<string, unknown> = {}) {
  const home = makeTempDir("home-", { under: work });
  mkdirSync(join(home, ".garuda"), { recursive: true, mode: 0o700 });
  writeFileSync(
    join(home, ".garuda", "models.json"),
    JSON.stringify({ providers: { ollama: { baseUrl: mock.url } }, models }),
  );
  const proc = Bun.spawn([binary, "acp"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GARUDA_MODEL: model },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = new Response(proc.stderr).text();
  const stdin = new WritableStream<Uint8Array>({
    async write(chunk) {
      proc.stdin.write(chunk);
      await proc.stdin.flush();
    },
  });
  const updates: acp.SessionUpdate[] = [];
  const connection = acp
    .client({ name: "openai-e2e" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, () => ({
      outcome: { outcome: "selected", optionId: "once" },
    }))
    .connect(acp.ndJsonStream(stdin, proc.stdout));
  return { proc, agent: connection.agent, connection, updates, stderr };
}

const messageText = (updates: acp.SessionUpdate[]) =>
  updates
    .flatMap((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []))
    .join("");

async function session(agent: ReturnType<typeof startAgent>["agent"], root: string): Promise<string> {
  const init = await agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  expect(init.agentInfo?.name).toBe("garuda");
  return (await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] })).sessionId;
}

describe("garuda acp with a local model (ollama/…, OpenAI-compatible)", () => {
  test("a whole prompt with a native tool call", async () => {
    await using mock = startMockOpenAI({
      script: [
        {
          steps: [
            { type: "reasoning", text: "The user wants the notes." },
            { type: "text", text: "Reading the notes.", fragments: 3 },
            { type: "tool_call", name: "read_file", id: "call_notes", arguments: { path: "notes.txt" }, fragments: 4 },
          ],
          usage: { prompt_tokens: 900, completion_tokens: 30 },
        },
        {
          steps: [{ type: "text", text: "The notes say: ship it on Friday.", fragments: 4 }],
          usage: { prompt_tokens: 960, completion_tokens: 12 },
        },
      ],
    });
    const root = makeTempDir("root-", { under: work });
    writeFileSync(join(root, "notes.txt"), "ship it on Friday\n");
    const { proc, agent, connection, updates, stderr } = startAgent(mock, root, "ollama/qwen3:8b");
    try {
      const sessionId = await session(agent, root);
      const result = await agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "What do my notes say?" }],
      });
      expect(result.stopReason).toBe("end_turn");
      expect(messageText(updates)).toContain("Reading the notes.");
      expect(messageText(updates)).toContain("The notes say: ship it on Friday.");
      expect(updates.some((u) => u.sessionUpdate === "agent_thought_chunk")).toBe(true);
      const call = updates.find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "call_notes");
      expect(call).toBeDefined();
      expect(
        updates.some(
          (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_notes" && u.status === "completed",
        ),
      ).toBe(true);

      // What went over the wire: the model id without its provider, the tools, and the result back as a role-tool
      // message.
      expect(mock.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        "POST /v1/chat/completions",
        "POST /v1/chat/completions",
      ]);
      const [first, second] = mock.requests;
      expect(first?.body.model).toBe("qwen3:8b");
      expect(first?.body.max_tokens).toBeLessThanOrEqual(4096);
      expect(first?.headers.authorization).toBeUndefined();
      expect(first?.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toContain(
        "read_file",
      );
      const messages = second?.body.messages as Array<Record<string, unknown>>;
      const assistant = messages.find((m) => m.role === "assistant");
      expect(assistant?.tool_calls).toEqual([
        { id: "call_notes", type: "function", function: { name: "read_file", arguments: '{"path":"notes.txt"}' } },
      ]);
      const toolMessage = messages.find((m) => m.role === "tool");
      expect(toolMessage?.tool_call_id).toBe("call_notes");
      expect(String(toolMessage?.content)).toContain("ship it on Friday");
      expect(JSON.stringify(messages)).not.toContain("The user wants the notes.");
    } finally {
      proc.stdin.end();
      expect(await proc.exited).toBe(0);
      connection.close();
    }
    expect(await stderr).not.toContain('"jsonrpc"');
  }, 60_000);

  test("a model with text tool calls: a malformed block is answered with how to write " +
    "it, the next one runs", async () => {
    await using mock = startMockOpenAI({
      script: [
        {
          steps: [
            {
              type: "text",
              text: 'Let me look.\n```tool_call\n{"name": "read_file", "arguments": {"path": "notes.txt"}\n```\n',
              fragments: 6,
            },
          ],
          finishReason: "stop",
        },
        {
          steps: [
            {
              type: "text",
              text: '```tool_call\n{"name": "read_file", "arguments": {"path": "notes.txt"}}\n```',
              fragments: 5,
            },
          ],
          finishReason: "stop",
        },
        { steps: [{ type: "text", text: "They say: ship it on Friday." }] },
      ],
    });
    const root = makeTempDir("root-", { under: work });
    writeFileSync(join(root, "notes.txt"), "ship it on Friday\n");
    const { proc, agent, connection, updates } = startAgent(mock, root, "ollama/tiny", {
      "ollama/tiny": { textToolCalls: true, contextWindow: 16_384, maxTokens: 2048 },
    });
    try {
      const sessionId = await session(agent, root);
      const result = await agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "Read my notes." }],
      });
      expect(result.stopReason).toBe("end_turn");
      const text = messageText(updates);
      expect(text).toContain("Let me look.");
      expect(text).toContain("They say: ship it on Friday.");
      expect(text).not.toContain("```tool_call");

      expect(mock.requests).toHaveLength(3);
      const [first, second, third] = mock.requests.map((r) => r.body);
      expect(first.tools).toBeUndefined();
      expect(first.max_tokens).toBeLessThanOrEqual(2048);
      expect(first.messages[0].content).toContain("# Calling tools");
      expect(first.messages[0].content).toContain("## read_file");
      // The malformed block went back as written, and its result says what was wrong.
      const afterBad = second.messages.slice(-2);
      expect(afterBad[0]).toEqual({
        role: "assistant",
        content: 'Let me look.\n\n```tool_call\n{"name": "read_file", "arguments": {"path": "notes.txt"}\n```',
      });
      expect(afterBad[1].role).toBe("user");
      expect(afterBad[1].content).toStartWith(
        '<tool_result name="__invalid_tool_call">\nError: Your tool_call block could ' +
          "not be read: its JSON is not valid",
      );
      // The good block ran: its result is the file.
      const lastUser = third.messages.at(-1);
      expect(lastUser.role).toBe("user");
      expect(lastUser.content).toContain('<tool_result name="read_file">');
      expect(lastUser.content).toContain("ship it on Friday");
    } finally {
      proc.stdin.end();
      expect(await proc.exited).toBe(0);
      connection.close();
    }
  }, 60_000);

  test("Ollama not running: the prompt fails with how to start it", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const port = closed.port;
    await closed.stop(true);
    const root = makeTempDir("root-", { under: work });
    const { proc, agent, connection, updates } = startAgent(
      { url: `http://127.0.0.1:${port}/v1` } as MockOpenAI,
      root,
      "ollama/qwen3:8b",
    );
    try {
      const sessionId = await session(agent, root);
      let failure = "";
      try {
        const result = await agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "Hi" }],
        });
        failure = `${result.stopReason} ${messageText(updates)}`;
      } catch (error) {
        failure = error instanceof Error ? error.message : JSON.stringify(error);
      }
      expect(failure).toContain(`Ollama is not running at http://127.0.0.1:${port} — start it with \`ollama serve\`.`);
    } finally {
      proc.stdin.end();
      await proc.exited;
      connection.close();
    }
  }, 60_000);
});
