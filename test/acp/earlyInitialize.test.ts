// The first initialize answered before the ACP SDK loads (src/acp/earlyInitialize.ts): its answer
// is the one the SDK gives for the same line, it is given once, the SDK still reads the line (a
// session can be opened after it), and whatever is not a plain initialize is the SDK's alone.
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk";
import { answerEarlyInitialize, dropAnswer, plainInitialize } from "../../src/acp/earlyInitialize.ts";
import { PROTOCOL_VERSION } from "../../src/acp/initialize.ts";
import { serveAcp } from "../../src/acp/server.ts";
import { FakeModelClient } from "../../src/model/fake.ts";
import { realPrepare, setUpHome } from "../support/acpHarness.ts";
import { makeTempDir } from "../support/tempDir.ts";

interface Message {
  id?: string | number | null;
  method?: string;
  result?: unknown;
  error?: { code: number; message: string };
}

const SETUP = { command: "/bin/garuda", args: ["acp", "setup"] };

/** serveAcp as `garuda acp` runs it, with or without the early answer; `lines` in, every line out. */
async function run(lines: string[], early: boolean, until: (received: Message[]) => boolean): Promise<Message[]> {
  const home = makeTempDir("garuda-early-home-");
  setUpHome(home);
  const toServer = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const writer = toServer.writable.getWriter();
  const encoder = new TextEncoder();
  for (const line of lines) void writer.write(encoder.encode(`${line}\n`));
  // Read from the start: the early answer's write waits for its reader, as a pipe's would when full.
  const received: Message[] = [];
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of toClient.readable) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let newline = buffer.indexOf("\n"); newline !== -1; newline = buffer.indexOf("\n")) {
        received.push(JSON.parse(buffer.slice(0, newline)) as Message);
        buffer = buffer.slice(newline + 1);
      }
    }
  })();
  const options = { setup: SETUP, sessionsDir: `${home}/.garuda/sessions` };
  const start = early
    ? await answerEarlyInitialize(toServer.readable, toClient.writable, options)
    : { input: toServer.readable };
  const server = serveAcp(
    { input: start.input, output: toClient.writable },
    {
      prepare: realPrepare(home, () => new FakeModelClient()),
      setup: SETUP,
      sessionsDir: options.sessionsDir,
      log: () => {},
      ...("answered" in start && start.answered !== undefined && { answeredInitialize: start.answered }),
    },
  );
  const deadline = Date.now() + 20_000;
  while (!until(received) && Date.now() < deadline) await Bun.sleep(10);
  await Bun.sleep(100); // a second answer to the same id would be here by now
  await writer.close();
  await server.shutdown();
  await Promise.race([reading, Bun.sleep(1000)]);
  return received;
}

const initialize = (id: unknown, params: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params });
const answersTo = (received: Message[], id: unknown) => received.filter((m) => m.method === undefined && m.id === id);

describe("the early initialize", () => {
  test("ACP's protocol version is the SDK's", () => {
    expect(PROTOCOL_VERSION).toBe(acp.PROTOCOL_VERSION);
  });

  const lines: Array<[string, string]> = [
    ["bare", initialize(1, { protocolVersion: 1 })],
    [
      "Zed's",
      initialize(0, {
        protocolVersion: 1,
        clientCapabilities: {
          fs: { readTextFile: true, writeTextFile: true },
          terminal: true,
          auth: { terminal: true },
        },
        clientInfo: { name: "zed", version: "0.200.0" },
      }),
    ],
    [
      "the older Terminal Auth",
      initialize("a", { protocolVersion: 1, clientCapabilities: { _meta: { "terminal-auth": true } } }),
    ],
    [
      "malformed capabilities",
      initialize(7, {
        protocolVersion: 1,
        clientCapabilities: { fs: "yes", terminal: 1, auth: { terminal: "true" }, _meta: 5 },
        clientInfo: { name: 3 },
      }),
    ],
    ["capabilities not an object", initialize(8, { protocolVersion: 1, clientCapabilities: "all" })],
    // The draft capability the SDK's schema drops: its handler reads it from the line as sent (server.ts).
    ["subagents", initialize(10, { protocolVersion: 1, clientCapabilities: { subagents: {} } })],
    ["subagents not an object", initialize(11, { protocolVersion: 1, clientCapabilities: { subagents: true } })],
    [
      "AIR's native subagent sessions",
      initialize(12, {
        protocolVersion: 1,
        clientCapabilities: { _meta: { jetbrains: { air: { version: 1, capabilities: ["nativeSubagentSessions"] } } } },
      }),
    ],
    ["a newer protocol", initialize(9, { protocolVersion: 7 })],
  ];
  for (const [name, line] of lines) {
    test(`${name}: answered once, as the SDK answers it`, async () => {
      const id = (JSON.parse(line) as { id: unknown }).id;
      const bySdk = answersTo(await run([line], false, (r) => answersTo(r, id).length > 0), id);
      expect(bySdk.length).toBe(1);
      expect(bySdk[0]?.result).toBeDefined();
      const early = answersTo(await run([line], true, (r) => answersTo(r, id).length > 0), id);
      expect(early).toEqual(bySdk);
    });
  }

  test("the SDK still reads the early-answered line: a session opens after it (negative control: without an initialize the SDK refuses session/new)", async () => {
    const root = makeTempDir("garuda-early-root-");
    const newSession = JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "session/new",
      params: { cwd: root, mcpServers: [] },
    });
    const opened = await run(
      [initialize(1, { protocolVersion: 1 }), newSession],
      true,
      (r) => answersTo(r, 2).length > 0,
    );
    expect(answersTo(opened, 1).length).toBe(1);
    expect((answersTo(opened, 2)[0]?.result as { sessionId?: string })?.sessionId).toBeString();
    const refused = await run([newSession], true, (r) => answersTo(r, 2).length > 0);
    expect(answersTo(refused, 2)[0]?.error?.code).toBe(-32600);
  });

  test("what is not a plain initialize is left to the SDK, which answers it as before", async () => {
    const cases = [
      "{not json",
      JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } }]),
      initialize(1, { protocolVersion: "1" }),
      initialize(1, { protocolVersion: 70_000 }),
      initialize(1, { protocolVersion: 1.5 }),
    ];
    for (const line of cases) {
      const bySdk = await run([line], false, (r) => r.length > 0);
      const early = await run([line], true, (r) => r.length > 0);
      expect(early).toEqual(bySdk);
      expect(bySdk.length).toBeGreaterThan(0);
    }
  });

  test("plainInitialize takes only a JSON-RPC initialize request with a protocol version the SDK accepts", () => {
    expect(plainInitialize(initialize(1, { protocolVersion: 1 }))?.id).toBe(1);
    expect(plainInitialize(initialize("x", { protocolVersion: 0 }))?.id).toBe("x");
    for (const line of [
      initialize(1, { protocolVersion: -1 }),
      initialize(1, { protocolVersion: 65_536 }),
      initialize(1, { protocolVersion: null }),
      initialize(1, []),
      initialize(1.5, { protocolVersion: 1 }),
      initialize(null, { protocolVersion: 1 }),
      initialize({}, { protocolVersion: 1 }),
      JSON.stringify({ jsonrpc: "1.0", id: 1, method: "initialize", params: { protocolVersion: 1 } }),
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 }, extra: true }),
      JSON.stringify({ jsonrpc: "2.0", method: "initialize", params: { protocolVersion: 1 } }),
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { protocolVersion: 1 } }),
      "null",
      "",
    ]) {
      expect(plainInitialize(line)).toBeUndefined();
    }
  });

  test("dropAnswer drops the SDK's answer to that id once, and tells of a refusal", () => {
    const refused: unknown[] = [];
    const drop = dropAnswer<Message>(1, (message) => refused.push(message));
    expect(drop({ id: 1, method: "x" } as Message)).toBe(false); // a request of the agent's with the same id
    expect(drop({ id: 2, result: {} })).toBe(false);
    expect(drop({ id: 1, error: { code: -32602, message: "bad" } })).toBe(true);
    expect(refused.length).toBe(1);
    expect(drop({ id: 1, result: {} })).toBe(false);
  });
});
