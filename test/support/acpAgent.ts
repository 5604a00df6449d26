// Drives the compiled `garuda acp` the way an editor does (test/acp/process.test.ts,
// test/acp/stop.test.ts): the SDK's client on its stdio against the mock Anthropic server, every
// stdout line recorded, every permission question answered "allow once".
import { expect } from "bun:test";
import * as acp from "@agentclientprotocol/sdk";
import type { MockAnthropic } from "./mockAnthropic.ts";
import { makeTempDir } from "./tempDir.ts";

/** What the editor answers to fs/read_text_file (its unsaved buffers), when it has buffers at all. */
export type ReadTextFile = (
  params: acp.ReadTextFileRequest,
) => Promise<acp.ReadTextFileResponse> | acp.ReadTextFileResponse;

/**
 * How the editor answers: permission questions (default: allow once), forms (default: none answered), unsaved buffers
 * (default: it has none).
 */
export interface EditorAnswers {
  permission?: (
    params: acp.RequestPermissionRequest,
  ) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>;
  elicit?: (
    params: acp.CreateElicitationRequest,
  ) => acp.CreateElicitationResponse | Promise<acp.CreateElicitationResponse>;
  readTextFile?: ReadTextFile;
}

/**
 * `garuda acp` (the binary at `binary`) started as an editor starts it, with the SDK's client on its stdio; approvals:
 * allow once.
 */
export function startAgent(
  binary: string,
  mock: MockAnthropic,
  root: string,
  work: string,
  model = "claude-sonnet-5",
  home = makeTempDir("home-", { under: work }),
  answers: EditorAnswers = {},
  /**
   * More environment; an undefined value takes the variable out (no ANTHROPIC_API_KEY: the key from
   * ~/.garuda/credentials).
   */
  env: Record<string, string | undefined> = {},
) {
  const environment: Record<string, string | undefined> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    ANTHROPIC_BASE_URL: mock.url,
    ANTHROPIC_API_KEY: "sk-ant-process-test",
    GARUDA_MODEL: model,
    ...env,
  };
  const proc = Bun.spawn([binary, "acp"], {
    cwd: root,
    env: Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== undefined)) as Record<
      string,
      string
    >,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = new Response(proc.stderr).text();
  const lines: string[] = [];
  const decoder = new TextDecoder();
  const tail = { partial: "" };
  const stdout = proc.stdout.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        tail.partial += decoder.decode(chunk, { stream: true });
        const parts = tail.partial.split("\n");
        tail.partial = parts.pop() ?? "";
        lines.push(...parts);
        controller.enqueue(chunk);
      },
    }),
  );
  const stdin = new WritableStream<Uint8Array>({
    async write(chunk) {
      proc.stdin.write(chunk);
      await proc.stdin.flush();
    },
  });
  const updates: acp.SessionUpdate[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const elicitations: acp.CreateElicitationRequest[] = [];
  const client = acp.client({ name: "process-test" });
  const { readTextFile } = answers;
  if (readTextFile) client.onRequest(acp.methods.client.fs.readTextFile, ({ params }) => readTextFile(params));
  const connection = client
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      return answers.permission ? answers.permission(params) : { outcome: { outcome: "selected", optionId: "once" } };
    })
    .onRequest(acp.methods.client.elicitation.create, ({ params }) => {
      elicitations.push(params);
      return answers.elicit ? answers.elicit(params) : { action: "decline" };
    })
    .connect(acp.ndJsonStream(stdin, stdout));
  return { proc, home, agent: connection.agent, connection, updates, permissions, elicitations, lines, tail, stderr };
}

/** The text a tool call ended with (its completed or failed update), as the editor shows it. */
export const toolResultText = (updates: readonly acp.SessionUpdate[], id: string): string =>
  updates
    .flatMap((u) =>
      u.sessionUpdate === "tool_call_update" &&
      u.toolCallId === id &&
      (u.status === "completed" || u.status === "failed")
        ? (u.content ?? [])
        : [],
    )
    .map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : ""))
    .join("");

/** Every stdout line is one JSON-RPC message, and nothing is left half-written. */
export function expectOnlyProtocol(lines: string[], tail: { partial: string }): void {
  expect(tail.partial).toBe("");
  expect(lines.length).toBeGreaterThan(2);
  const answered = new Set<string>();
  for (const line of lines) {
    const message = JSON.parse(line) as { jsonrpc?: unknown; id?: unknown; method?: unknown };
    expect(message.jsonrpc).toBe("2.0");
    // One answer per request.
    if (message.method === undefined && message.id !== undefined) {
      const id = JSON.stringify(message.id);
      expect(answered.has(id)).toBe(false);
      answered.add(id);
    }
  }
}

/** Every stdout line was protocol; stdin closed, the agent exits 0. */
export async function finishAgent(agent: ReturnType<typeof startAgent>): Promise<void> {
  expectOnlyProtocol(agent.lines, agent.tail);
  agent.proc.stdin.end();
  expect(await agent.proc.exited).toBe(0);
}

/** What the model read as the result of call `id` (from the requests the mock got). */
export function modelReadResult(mock: MockAnthropic, id: string): string | undefined {
  for (const request of mock.requests) {
    for (const message of (request.body?.messages ?? []) as Array<{ content: unknown }>) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as Array<{ type: string; tool_use_id?: string; content?: unknown }>) {
        if (block.type !== "tool_result" || block.tool_use_id !== id) continue;
        const content = block.content;
        if (typeof content === "string") return content;
        if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? "").join("");
      }
    }
  }
  return undefined;
}

/**
 * `garuda acp` initialized by an editor with or without forms (`elicitation.form`), and one
 * session in `place.root` (default a new folder under `work`) with `place.home` (default a new one).
 */
export async function startFormsSession(
  binary: string,
  mock: MockAnthropic,
  work: string,
  forms: boolean,
  answers: EditorAnswers,
  place: { root?: string; home?: string } = {},
) {
  const root = place.root ?? makeTempDir("root-", { under: work });
  const agent = startAgent(binary, mock, root, work, undefined, place.home, answers);
  await agent.agent.request(acp.methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: forms ? { elicitation: { form: {} } } : {},
  });
  const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
  const prompt = (text: string) =>
    agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  return { ...agent, root, sessionId, prompt };
}
