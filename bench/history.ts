// What the editor's history costs, as medians of interleaved runs through the real ACP server
// (NDJSON over streams, the real runtime and sandbox probe):
//   - session/list over 1,000 session files in 20 projects: with the index warm, and cold (no
//     index file: every file's head is read and the index is written);
//   - session/load of a 300-turn session with 600 tool calls: from the request to its answer,
//     with every replayed notification received (then session/close); by a client that only
//     reads the lines (the agent's cost), and by the SDK's client in this same process (which
//     also parses and validates each notification, on the same core);
//   - the memory a loaded session keeps: the heap after a load (and a GC) less the heap after a
//     session/new (the runtime without a conversation), against the session file's size.
// Targets (issue 16): list ≤ 100 ms, load ≤ 300 ms, memory ≤ 2 × the file.
//
//   bun bench/history.ts [--rounds N]
import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { serveAcp } from "../src/acp/server.ts";
import { garudaPaths } from "../src/config/paths.ts";
import { FakeModelClient } from "../src/model/fake.ts";
import type { Usage } from "../src/core-types/usage.ts";
import { createSessionStore } from "../src/store/sessionFile.ts";
import { realPrepare, setUpHome } from "../test/support/acpHarness.ts";
import { formatStat, formatTable, interleave } from "./interleave.ts";

function parse(argv: string[]): { rounds: number } {
  let rounds = 15;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--rounds") rounds = Number(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}; usage: bun bench/history.ts [--rounds N]`);
  }
  if (!(rounds > 0)) throw new Error("--rounds needs a positive number");
  return { rounds };
}

const { rounds } = parse(process.argv.slice(2));
const scratch = mkdtempSync(join(tmpdir(), "garuda-bench-history-"));
const home = join(scratch, "home");
mkdirSync(home);
setUpHome(home);
const sessionsDir = garudaPaths(home).sessions;
const usage: Usage = { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 0, cacheCreationTokens: 0 };

/** A source file's worth of lines (what read_file returns and an edit changes). */
const code = (n: number) =>
  Array.from(
    { length: 40 },
    (_, line) => `${String(line + 1).padStart(6)}\tconst value${n}_${line} = compute(${line}, "${"x".repeat(20)}");`,
  ).join("\n");

/** 1,000 sessions of 3 turns each, in 20 projects, last written one second apart. */
function manySessions(): void {
  const store = createSessionStore({ sessionsDir });
  for (let project = 0; project < 20; project++) {
    const root = join(scratch, `project-${project}`);
    mkdirSync(root);
    for (let n = 0; n < 50; n++) {
      const journal = store.create({ root, version: "0", model: "claude-sonnet-5", mode: "build" });
      for (let turn = 0; turn < 3; turn++) {
        const prompt = `task ${n} of project ${project}, step ${turn}: make the parser handle the new syntax`;
        journal.append({ type: "user", prompt, content: [{ type: "text", text: prompt }] });
        if (turn === 0) journal.append({ type: "title", title: prompt });
        journal.append({
          type: "assistant",
          step: 1,
          stopReason: "end_turn",
          content: [{ type: "text", text: `Done with step ${turn}. ${"The change is small and safe. ".repeat(10)}` }],
          usage,
        });
        journal.append({ type: "end", stopReason: "done", steps: 1 });
      }
      journal.close();
      const when = new Date(Date.UTC(2026, 0, 1) + (project * 50 + n) * 1000);
      utimesSync(journal.file as string, when, when);
    }
  }
}

/** One session of 300 turns with 600 tool calls (a read and an edit a turn), in `root`. */
function longSession(root: string): { id: string; bytes: number } {
  const journal = createSessionStore({ sessionsDir }).create({
    root,
    version: "0",
    model: "claude-sonnet-5",
    mode: "build",
  });
  for (let turn = 0; turn < 300; turn++) {
    const prompt = `Turn ${turn}: read src/module${turn}.ts and rename value to result`;
    const path = join(root, "src", `module${turn}.ts`);
    const before = code(turn);
    const after = before.replaceAll("value", "result");
    journal.append({ type: "user", prompt, content: [{ type: "text", text: prompt }] });
    if (turn === 0) journal.append({ type: "title", title: prompt });
    const read = `toolu_read_${turn}`;
    const edit = `toolu_edit_${turn}`;
    journal.append({
      type: "assistant",
      step: 1,
      stopReason: "tool_use",
      content: [
        {
          type: "thinking",
          thinking: `The user wants module ${turn} renamed. Read it first, then edit.`,
          signature: "sig".repeat(30),
        },
        { type: "text", text: "Let me look at the file first." },
        { type: "tool_use", id: read, name: "read_file", input: { path: `src/module${turn}.ts` } },
        {
          type: "tool_use",
          id: edit,
          name: "edit_file",
          input: { path: `src/module${turn}.ts`, old_string: "value", new_string: "result", replace_all: true },
        },
      ],
      usage,
    });
    journal.append({
      type: "tool_results",
      results: [
        {
          callId: read,
          tool: "read_file",
          content: before,
          isError: false,
          status: "completed",
          summary: "40 lines",
          info: { title: `Read src/module${turn}.ts`, kind: "read", locations: [{ path }] },
          durationMs: 2,
        },
        {
          callId: edit,
          tool: "edit_file",
          content: `Edited src/module${turn}.ts (40 replacements).`,
          isError: false,
          status: "completed",
          info: { title: `Edit src/module${turn}.ts`, kind: "edit", locations: [{ path, line: 1 }] },
          change: { path, oldText: before, newText: after },
          durationMs: 3,
        },
      ],
    });
    journal.append({
      type: "assistant",
      step: 2,
      stopReason: "end_turn",
      content: [
        {
          type: "text",
          text: `Renamed every value in module ${turn} to result. ${"Nothing else changed. ".repeat(5)}`,
        },
      ],
      usage,
    });
    journal.append({ type: "end", stopReason: "done", steps: 2 });
  }
  journal.close();
  return { id: journal.id, bytes: statSync(journal.file as string).size };
}

manySessions();
const longRoot = join(scratch, "long-project");
mkdirSync(longRoot);
const long = longSession(longRoot);

// The server, and two editors on it: a plain NDJSON client that reads each line as it comes and
// parses only the answers (what the agent costs, as a fast editor such as Zed sees it), and the
// SDK's own client in this same process (it parses and validates every notification too).
/** A server on its own streams (each editor gets one, as each editor starts its own `garuda acp`). */
function startServer() {
  const toServer = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const server = serveAcp(
    { input: toServer.readable, output: toClient.writable },
    {
      prepare: realPrepare(home, () => new FakeModelClient()),
      setup: { command: "garuda", args: ["acp", "setup"] },
      log: () => {},
      sessionsDir,
    },
  );
  return { server, input: toServer.writable, output: toClient.readable };
}
const forPlain = startServer();
const forSdk = startServer();

/** A JSON-RPC client that counts the notifications before each answer and keeps none of them. */
class PlainClient {
  #next = 1_000_000;
  #buffer = "";
  readonly #writer = forPlain.input.getWriter();
  readonly #reader = forPlain.output.getReader();
  readonly #decoder = new TextDecoder();

  async request(method: string, params: unknown): Promise<{ result: unknown; notifications: number }> {
    const id = this.#next++;
    await this.#writer.write(new TextEncoder().encode(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`));
    let notifications = 0;
    const answer = `"id":${id},`;
    for (;;) {
      let newline = this.#buffer.indexOf("\n");
      while (newline !== -1) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        if (line.startsWith('{"jsonrpc":"2.0","method":"session/update"')) notifications++;
        else if (line.includes(answer)) {
          const message = JSON.parse(line) as { result?: unknown; error?: { message: string } };
          if (message.error) throw new Error(message.error.message);
          return { result: message.result, notifications };
        }
        newline = this.#buffer.indexOf("\n");
      }
      const { value, done } = await this.#reader.read();
      if (done) throw new Error("the server closed the connection");
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }
}

const plain = new PlainClient();
await plain.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
const client = acp
  .client({ name: "bench" })
  .onNotification(acp.methods.client.session.update, () => {})
  .connect(acp.ndJsonStream(forSdk.input, forSdk.output));
const agent = client.agent;
await agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });

const time = async (work: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

const indexFile = join(sessionsDir, "index.sqlite");
const heap = () => {
  Bun.gc(true);
  return process.memoryUsage().heapUsed;
};

const loadParams = { sessionId: long.id, cwd: longRoot, mcpServers: [] };
let replayed = 0;

const tasks = [
  {
    name: "session/list, 1,000 files, index warm",
    run: async () => {
      let count = 0;
      const ms = await time(async () => {
        count = ((await plain.request("session/list", {})).result as acp.ListSessionsResponse).sessions.length;
      });
      if (count !== 50) throw new Error(`a page should hold 50 sessions, not ${count}`);
      return { ms };
    },
  },
  {
    name: "session/list, 1,000 files, no index",
    run: async () => {
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${indexFile}${suffix}`, { force: true });
      return { ms: await time(() => plain.request("session/list", {})) };
    },
  },
  {
    name: `session/load, 300 turns, 600 calls (${(long.bytes / 1024 / 1024).toFixed(1)} MB)`,
    run: async () => {
      const ms = await time(async () => {
        replayed = (await plain.request("session/load", loadParams)).notifications;
      });
      await plain.request("session/close", { sessionId: long.id });
      return { ms };
    },
  },
  {
    name: "  the same, the SDK's client in this process",
    run: async () => {
      const ms = await time(() => agent.request(acp.methods.agent.session.load, loadParams));
      await agent.request(acp.methods.agent.session.close, { sessionId: long.id });
      return { ms };
    },
  },
];

try {
  const results = await interleave(tasks, { rounds, warmup: 2 });
  console.log(
    formatTable(
      ["task", "ms median [p10–p90]"],
      results.map((r) => [r.name, formatStat(r.stats.ms, 1)]),
    ),
  );
  console.log(`\nreplay: ${replayed} notifications before the answer to session/load`);

  // Memory: a loaded session against an empty one (same runtime parts, no conversation).
  const empty: number[] = [];
  const loaded: number[] = [];
  for (let i = 0; i < 5; i++) {
    const base = heap();
    const { sessionId } = (await plain.request("session/new", { cwd: longRoot, mcpServers: [] }))
      .result as acp.NewSessionResponse;
    empty.push(heap() - base);
    await plain.request("session/close", { sessionId });
    const start = heap();
    await plain.request("session/load", loadParams);
    loaded.push(heap() - start);
    await plain.request("session/close", { sessionId: long.id });
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  const conversation = median(loaded) - median(empty);
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
  console.log(
    `memory: file ${mb(long.bytes)}; heap kept by a loaded session ` +
      `${mb(median(loaded))}, by an empty one ${mb(median(empty))}; the conversation ` +
      `${mb(conversation)} = ${(conversation / long.bytes).toFixed(2)} × the file`,
  );
} finally {
  await forPlain.server.shutdown();
  await forSdk.server.shutdown();
  client.close();
  rmSync(scratch, { recursive: true, force: true });
}
