// Drives the compiled `garuda acp` the way an editor does (test/acp/process.test.ts,
// test/acp/stop.test.ts): the SDK's client on its stdio against the mock Anthropic server, every
// stdout line recorded, every permission question answered "allow once".
import { expect } from "bun:test";
import * as acp from "@agentclientprotocol/sdk";
import type { MockAnthropic } from "./mockAnthropic.ts";
import { makeTempDir } from "./tempDir.ts";

/** `garuda acp` (the binary at `binary`) started as an editor starts it, with the SDK's client on its stdio; approvals: allow once; `path` its PATH. */
export function startAgent(
  binary: string,
  mock: MockAnthropic,
  root: string,
  work: string,
  model = "claude-sonnet-5",
  home = makeTempDir("home-", { under: work }),
  path = process.env.PATH ?? "/usr/bin:/bin",
) {
  const proc = Bun.spawn([binary, "acp"], {
    cwd: root,
    env: {
      PATH: path,
      HOME: home,
      ANTHROPIC_BASE_URL: mock.url,
      ANTHROPIC_API_KEY: "sk-ant-process-test",
      GARUDA_MODEL: model,
    },
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
  const connection = acp
    .client({ name: "process-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      return { outcome: { outcome: "selected", optionId: "once" } };
    })
    .connect(acp.ndJsonStream(stdin, stdout));
  return { proc, home, agent: connection.agent, connection, updates, permissions, lines, tail, stderr };
}

/** Every stdout line is one JSON-RPC message, and nothing is left half-written. */
export function expectOnlyProtocol(lines: string[], tail: { partial: string }): void {
  expect(tail.partial).toBe("");
  expect(lines.length).toBeGreaterThan(2);
  const answered = new Set<string>();
  for (const line of lines) {
    const message = JSON.parse(line) as { jsonrpc?: unknown; id?: unknown; method?: unknown };
    expect(message.jsonrpc).toBe("2.0");
    // One answer per request: initialize is answered before the SDK loads and the SDK's own answer is dropped (earlyInitialize.ts).
    if (message.method === undefined && message.id !== undefined) {
      const id = JSON.stringify(message.id);
      expect(answered.has(id)).toBe(false);
      answered.add(id);
    }
  }
}
