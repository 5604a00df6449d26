// Bad input never kills the server or loses a session: raw NDJSON lines straight into serveAcp
// (malformed JSON, batches, unknown methods, wrong params, lines over the size limit), and an
// editor that goes away in the middle of a turn.
import { describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { type AcpServerOptions, serveAcp } from "../../src/acp/server.ts";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { descendants } from "../../src/sandbox/processTree.ts";
import { realPrepare, setUpHome } from "../support/acpHarness.ts";
import { makeTempDir } from "../support/tempDir.ts";

interface Message {
  id?: string | number | null;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

/** serveAcp driven by raw lines, as an editor's stdin and stdout would carry them. */
function rawServer(options: Partial<AcpServerOptions> & { models?: FakeModelClient[] } = {}) {
  const home = makeTempDir("garuda-raw-home-");
  const root = makeTempDir("garuda-raw-root-");
  setUpHome(home);
  const models = options.models ?? [new FakeModelClient()];
  const toServer = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const server = serveAcp(
    { input: toServer.readable, output: toClient.writable },
    {
      prepare: realPrepare(home, () => models.shift() ?? new FakeModelClient()),
      setup: { command: "/bin/garuda", args: ["acp", "setup"] },
      log: () => {},
      ...options,
    },
  );
  const writer = toServer.writable.getWriter();
  const encoder = new TextEncoder();
  const received: Message[] = [];
  const lines: string[] = [];
  let wake: () => void = () => {};
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of toClient.readable) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        lines.push(line);
        received.push(JSON.parse(line) as Message);
        wake();
        newline = buffer.indexOf("\n");
      }
    }
  })();
  const waitFor = async (test: (m: Message) => boolean, timeoutMs = 20_000): Promise<Message> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = received.find(test);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no such message; got ${JSON.stringify(received).slice(0, 2000)}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  };
  let nextId = 100;
  return {
    home,
    root,
    server,
    received,
    lines,
    send: (line: string) => writer.write(encoder.encode(`${line}\n`)),
    write: (text: string) => writer.write(encoder.encode(text)),
    endInput: () => writer.close(),
    waitFor,
    response: (id: string | number | null) => waitFor((m) => m.id === id && m.method === undefined),
    async request(method: string, params: unknown): Promise<Message> {
      const id = nextId++;
      await writer.write(encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`));
      return waitFor((m) => m.id === id && m.method === undefined);
    },
    async initialize() {
      return this.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      rmSync(home, { recursive: true, force: true });
      rmSync(root, { recursive: true, force: true });
    },
  };
}

describe("bad input never kills the server", () => {
  test("malformed JSON, a batch, a request before initialize: errors, and the connection goes on", async () => {
    await using raw = rawServer();
    await raw.send("this is not json {");
    expect((await raw.waitFor((m) => m.error?.code === -32700)).id).toBeNull();
    await raw.send("[]");
    expect((await raw.waitFor((m) => m.error?.code === -32600)).error?.message).toContain("batches");
    const early = await raw.request("session/new", { cwd: raw.root, mcpServers: [] });
    expect(early.error?.message).toContain("must be initialized");
    await raw.send('"just a string"');
    await raw.send('{"jsonrpc":"2.0","id":99,"result":{}}');
    const init = await raw.initialize();
    expect(init.result.protocolVersion).toBe(1);
    expect(raw.received.filter((m) => m.error).length).toBeGreaterThanOrEqual(3);
  });

  test("unknown methods and wrong params are JSON-RPC errors; a session made after them works", async () => {
    await using raw = rawServer({ models: [new FakeModelClient([fake.text("fine")])] });
    await raw.initialize();
    expect((await raw.request("session/load", { sessionId: "x", cwd: raw.root, mcpServers: [] })).error?.code).toBe(
      -32601,
    );
    expect((await raw.request("_garuda/unknown", {})).error?.code).toBe(-32601);
    expect((await raw.request("session/new", { cwd: raw.root })).error?.code).toBe(-32602);
    expect((await raw.request("session/new", { cwd: 42, mcpServers: [] })).error?.code).toBe(-32602);
    const created = await raw.request("session/new", { cwd: raw.root, mcpServers: [] });
    const sessionId = created.result.sessionId as string;
    expect((await raw.request("session/prompt", { sessionId, prompt: "not blocks" })).error?.code).toBe(-32602);
    expect((await raw.request("session/prompt", { sessionId, prompt: [{ type: "nonsense" }] })).error?.code).toBe(
      -32602,
    );
    await raw.send('{"jsonrpc":"2.0","method":"session/cancel","params":{"wrong":true}}');
    await raw.send('{"jsonrpc":"2.0","method":"_garuda/notify","params":{}}');
    const turn = await raw.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(turn.result).toEqual({ stopReason: "end_turn" });
  });

  test("a line over the size limit is refused with its id; the session goes on", async () => {
    await using raw = rawServer({
      maxMessageBytes: 1024 * 1024,
      models: [new FakeModelClient([fake.text("small is fine")])],
    });
    await raw.initialize();
    const sessionId = (await raw.request("session/new", { cwd: raw.root, mcpServers: [] })).result.sessionId as string;
    const huge = JSON.stringify({
      jsonrpc: "2.0",
      id: "big-1",
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text: "x".repeat(2 * 1024 * 1024) }] },
    });
    // Written in pieces, as a pipe delivers it.
    for (let at = 0; at < huge.length; at += 300_000) await raw.write(huge.slice(at, at + 300_000));
    await raw.write("\n");
    const refused = await raw.response("big-1");
    expect(refused.error?.code).toBe(-32600);
    expect(refused.error?.message).toContain("larger than 1 MiB");
    const turn = await raw.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(turn.result).toEqual({ stopReason: "end_turn" });
    for (const line of raw.lines) expect(() => JSON.parse(line)).not.toThrow();
  });

  test(
    "params nested 100,000 levels (in the _meta of session/new and of a prompt " +
      "block) are read, answered, and the session goes on",
    async () => {
      await using raw = rawServer({ models: [new FakeModelClient([fake.text("first"), fake.text("still here")])] });
      await raw.initialize();
      const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
      await raw.send(
        `{"jsonrpc":"2.0","id":"deep-new","method":"session/new",` +
          `"params":{"cwd":${JSON.stringify(raw.root)},"mcpServers":[],"_meta":{"x":${deep}}}}`,
      );
      const sessionId = (await raw.response("deep-new")).result.sessionId as string;
      await raw.send(
        `{"jsonrpc":"2.0","id":"deep-prompt","method":"session/prompt",` +
          `"params":{"sessionId":"${sessionId}","prompt":[{"type":"text","text":"hi","_meta":{"x":${deep}}}]}}`,
      );
      expect((await raw.response("deep-prompt")).result).toEqual({ stopReason: "end_turn" });
      const turn = await raw.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] });
      expect(turn.result).toEqual({ stopReason: "end_turn" });
      for (const line of raw.lines) expect(line.length).toBeLessThan(100_000);
    },
  );

  test("the editor goes away in the middle of a command: the connection ends, shutdown kills the process", async () => {
    const model = new FakeModelClient([fake.toolCall("bash", { command: "sleep 61" }, { id: "toolu_sleep" })]);
    const raw = rawServer({ models: [model] });
    try {
      await raw.initialize();
      const sessionId = (await raw.request("session/new", { cwd: raw.root, mcpServers: [] })).result
        .sessionId as string;
      await raw.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: "turn",
          method: "session/prompt",
          params: { sessionId, prompt: [{ type: "text", text: "sleep" }] },
        }),
      );
      await raw.waitFor((m) => m.params?.update?.sessionUpdate === "tool_call");
      const sleeping = () =>
        descendants(process.pid).filter((pid) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim() === "sleep 61";
          } catch {
            return false;
          }
        });
      const deadline = Date.now() + 10_000;
      while (sleeping().length === 0 && Date.now() < deadline) await Bun.sleep(20);
      expect(sleeping().length).toBeGreaterThan(0);
      await raw.endInput();
      await raw.server.closed;
      await raw.server.shutdown();
      expect(sleeping()).toEqual([]);
      // A second shutdown is harmless.
      await raw.server.shutdown();
    } finally {
      await raw[Symbol.asyncDispose]();
    }
  }, 30_000);
});
