// The editor's MCP servers (session/new mcpServers, issue 18.2) end to end in one process: a
// real stdio server on the official SDK (test/fixtures/mcpEditorServer.ts) started through the
// real Executor inside the bubblewrap sandbox, its consent through the ACP approver, its tools
// through the permission engine, and the editor's env value searched for where it must not be;
// an http server on loopback held to the egress rules (refused unless your allowHosts lists it).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { garudaPaths } from "../../src/config/paths.ts";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { describeSandbox, eventually, httpServer, marker } from "../support/sandboxSupport.ts";
import { contentText, messageText, ofKind, select, startHarness } from "../support/acpHarness.ts";
import { tempDir } from "../support/tempDir.ts";
import { buildFixtureServer } from "../fixtures/mcpServer.ts";
import { readProcStat } from "../../src/sandbox/procStat.ts";
import { EDITOR_SERVER } from "../support/mcpFixtures.ts";

const SECRET = "editor-secret-value-7f3a9c";

/** The fixture server, told the project folder (it starts in /, as every local server does). */
const stdioServer = (root: string, extra: Partial<acp.McpServerStdio> = {}): acp.McpServer => ({
  name: "Fix Tools",
  command: process.execPath,
  args: [EDITOR_SERVER],
  env: [
    { name: "EDITOR_TOKEN", value: SECRET },
    { name: "FIXTURE_MARK", value: "started.txt" },
    { name: "FIXTURE_DIR", value: root },
  ],
  ...extra,
});

/** Live (not zombie) processes whose command line holds `tag`: the server's pid on the host. */
function processesWith(tag: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const state = readProcStat(Number(name))?.state;
      if (state === undefined || state === "Z") continue;
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").includes(tag)) pids.push(Number(name));
    } catch {
      // gone
    }
  }
  return pids;
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

function resultOf(updates: readonly acp.SessionUpdate[], id: string): string {
  return contentText(
    ofKind(updates, "tool_call_update").find(
      (u) => u.toolCallId === id && (u.status === "completed" || u.status === "failed"),
    )?.content,
  );
}

/** Consents answered with `consent`, tool calls allowed once. */
const answering = (consent: string) => (params: acp.RequestPermissionRequest) =>
  select(params.toolCall.toolCallId.startsWith("garuda-question-") ? consent : "once");

const mcpTools = (model: FakeModelClient) =>
  (model.requests[0]?.tools ?? []).map((tool) => tool.name).filter((name) => name.startsWith("mcp__"));

describe("the editor's MCP servers: units", () => {
  test("initialize advertises Streamable HTTP servers", async () => {
    await using h = startHarness();
    expect((await h.initialize()).agentCapabilities?.mcpCapabilities).toEqual({ http: true });
  });

  test("an sse server or a plain http:// one to another computer is not started, with a line", async () => {
    const model = new FakeModelClient([fake.text("done")]);
    await using h = startHarness({ models: [model] });
    await h.initialize();
    const { sessionId } = await h.newSession({
      mcpServers: [
        { type: "sse", name: "old", url: "https://example.com/sse", headers: [] },
        { type: "http", name: "plain", url: "http://example.com/mcp", headers: [] },
      ],
    });
    await h.prompt(sessionId, "go");
    const text = messageText(h.updatesOf(sessionId));
    expect(text).toContain(
      `The editor's MCP server "old" was not started: Garuda takes an editor's remote ` +
        `servers over Streamable HTTP only, not sse.`,
    );
    expect(text).toContain(`The editor's MCP server "plain" was not started: a remote server must use https://`);
    expect(text).not.toContain("are not started: Garuda does not run an editor's MCP servers");
    expect(h.permissions).toHaveLength(0);
  });

  test("an http server's question shows its address and header names, never their values", async () => {
    const model = new FakeModelClient([fake.text("done")]);
    await using h = startHarness({ models: [model] });
    h.answer = () => select("deny");
    await h.initialize();
    const { sessionId } = await h.newSession({
      mcpServers: [
        {
          type: "http",
          name: "remote",
          url: "https://mcp.example.com/mcp",
          headers: [{ name: "Authorization", value: `Bearer ${SECRET}` }],
        },
      ],
    });
    await h.prompt(sessionId, "go");
    const text = contentText(h.permissions[0]?.toolCall.content);
    expect(text).toContain('Start the editor\'s MCP server "remote"?');
    expect(text).toContain("Address: https://mcp.example.com/mcp");
    expect(text).toContain("Headers: Authorization");
    expect(JSON.stringify(h.lines)).not.toContain(SECRET);
  });
});

describeSandbox("the editor's MCP servers over stdio, in the sandbox", () => {
  test(
    "the first prompt asks with the command line and env names only; its tools are " +
      "mcp__<name>__*, ask like any MCP tool, and are titled server/tool",
    async () => {
      const model = new FakeModelClient([
        fake.toolCall("mcp__fix-tools__echo", { text: "hi" }, { id: "toolu_echo" }),
        fake.toolCall("mcp__fix-tools__token", {}, { id: "toolu_token" }),
        fake.text("done"),
      ]);
      await using h = startHarness({ models: [model] });
      h.answer = answering("once");
      await h.initialize();
      const { sessionId } = await h.newSession({ mcpServers: [stdioServer(h.root)] });
      expect(existsSync(join(h.root, "started.txt"))).toBe(false);
      await h.prompt(sessionId, "go");
      const [consent, ...calls] = h.permissions;
      expect(consent?.toolCall.toolCallId).toBe("garuda-question-1");
      expect(consent?.options.map((o) => o.optionId)).toEqual(["once", "session", "deny"]);
      const text = contentText(consent?.toolCall.content);
      expect(text).toContain(`Start the editor's MCP server "fix-tools"?`);
      expect(text).toContain(`$ ${process.execPath} ${EDITOR_SERVER}`);
      expect(text).toContain("inside the OS sandbox");
      expect(text).toContain(
        "Environment: EDITOR_TOKEN (set by the editor), FIXTURE_DIR (set by the " +
          "editor), FIXTURE_MARK (set by the editor)",
      );
      expect(text).not.toContain(SECRET);
      // Each tool call asked as an MCP tool does, titled server/tool.
      expect(calls.map((p) => [p.toolCall.toolCallId, p.toolCall.title])).toEqual([
        ["toolu_echo", "fix-tools/echo"],
        ["toolu_token", "fix-tools/token"],
      ]);
      expect(mcpTools(model)).toContain("mcp__fix-tools__read");
      const updates = h.updatesOf(sessionId);
      expect(resultOf(updates, "toolu_echo")).toContain("echo: hi");
      // The value reached the server (its length), and nothing sent it anywhere else.
      expect(resultOf(updates, "toolu_token")).toContain(`token length ${SECRET.length}`);
      // Closed, so the audit log and the session file are complete (h.close() would remove the home).
      await h.agent.request("session/close", { sessionId });
      const files = filesUnder(h.home);
      expect(files.some((path) => path.includes(join(".garuda", "audit")))).toBe(true);
      expect(files.some((path) => path.includes(join(".garuda", "sessions")))).toBe(true);
      for (const path of files)
        expect({ path, found: readFileSync(path, "utf8").includes(SECRET) }).toEqual({ path, found: false });
      expect(JSON.stringify(model.requests)).not.toContain(SECRET);
      expect(h.lines.join("\n")).not.toContain(SECRET);
    },
  );

  test(
    "negative control for the search: the same search finds a value Garuda did " +
      "write (the server's echo in the session file)",
    async () => {
      const model = new FakeModelClient([
        fake.toolCall("mcp__fix-tools__echo", { text: SECRET }, { id: "toolu_echo" }),
        fake.text("done"),
      ]);
      await using h = startHarness({ models: [model] });
      h.answer = answering("once");
      await h.initialize();
      const { sessionId } = await h.newSession({ mcpServers: [stdioServer(h.root)] });
      await h.prompt(sessionId, "go");
      await h.agent.request("session/close", { sessionId });
      expect(filesUnder(h.home).some((path) => readFileSync(path, "utf8").includes(SECRET))).toBe(true);
    },
  );

  test("deny: the server never starts and its tools are not offered", async () => {
    const model = new FakeModelClient([fake.text("done")]);
    await using h = startHarness({ models: [model] });
    h.answer = () => select("deny");
    await h.initialize();
    const { sessionId } = await h.newSession({ mcpServers: [stdioServer(h.root)] });
    await h.prompt(sessionId, "go");
    expect(existsSync(join(h.root, "started.txt"))).toBe(false);
    expect(mcpTools(model)).toEqual([]);
    expect(messageText(h.updatesOf(sessionId))).toContain(`The MCP server "fix-tools" was not started`);
  });

  test(
    "remember pins the exact definition in trust.json: the next session starts it " +
      "without a question, a changed env value asks again",
    async () => {
      const model = new FakeModelClient([fake.text("one"), fake.text("two"), fake.text("three")]);
      await using h = startHarness({ models: [model] });
      h.answer = answering("session");
      await h.initialize();
      await h.prompt((await h.newSession({ mcpServers: [stdioServer(h.root)] })).sessionId, "go");
      expect(h.permissions).toHaveLength(1);
      const trust = readFileSync(garudaPaths(h.home).trust, "utf8");
      expect(trust).toContain("editor:fix-tools");
      expect(trust).not.toContain(SECRET);
      await h.prompt((await h.newSession({ mcpServers: [stdioServer(h.root)] })).sessionId, "go");
      expect(h.permissions).toHaveLength(1);
      const changed = stdioServer(h.root, {
        env: [
          { name: "EDITOR_TOKEN", value: "another" },
          { name: "FIXTURE_MARK", value: "started.txt" },
          { name: "FIXTURE_DIR", value: h.root },
        ],
      });
      await h.prompt((await h.newSession({ mcpServers: [changed] })).sessionId, "go");
      expect(h.permissions).toHaveLength(2);
    },
  );

  test("the server dies with the session (session/close), checked by its pid", async () => {
    const tag = `editor-server-${marker()}`;
    const model = new FakeModelClient([fake.text("done")]);
    await using h = startHarness({ models: [model] });
    h.answer = answering("once");
    await h.initialize();
    const { sessionId } = await h.newSession({ mcpServers: [stdioServer(h.root, { args: [EDITOR_SERVER, tag] })] });
    await h.prompt(sessionId, "go");
    const pids = processesWith(tag);
    expect(pids.length).toBeGreaterThan(0);
    await h.agent.request("session/close", { sessionId });
    await eventually(() => processesWith(tag).length === 0, 5_000);
    expect(processesWith(tag)).toEqual([]);
  });

  test(
    "red team: the editor's server cannot write outside the root, read ~/.ssh or " +
      "reach a host, as a user's server cannot",
    async () => {
      using outside = tempDir("garuda-editor-outside-");
      const web = httpServer();
      let key = "";
      try {
        const model = new FakeModelClient([
          fake.toolCall("mcp__fix-tools__touch", { path: join(outside.path, "planted.txt") }, { id: "toolu_out" }),
          fake.toolCall("mcp__fix-tools__touch", { path: "inside.txt" }, { id: "toolu_in" }),
          // The key's path is known once the harness made the home.
          () => fake.toolCall("mcp__fix-tools__read", { path: key }, { id: "toolu_ssh" }),
          fake.toolCall("mcp__fix-tools__reach", { url: web.url("/") }, { id: "toolu_net" }),
          fake.text("done"),
        ]);
        await using h = startHarness({ models: [model] });
        key = join(h.home, ".ssh", "id_ed25519");
        mkdirSync(join(h.home, ".ssh"), { recursive: true });
        writeFileSync(key, "PRIVATE KEY MATERIAL\n");
        h.answer = answering("once");
        await h.initialize();
        const { sessionId } = await h.newSession({ mcpServers: [stdioServer(h.root)] });
        await h.prompt(sessionId, "go");
        const updates = h.updatesOf(sessionId);
        expect(existsSync(join(outside.path, "planted.txt"))).toBe(false);
        expect(resultOf(updates, "toolu_out")).toContain("could not write");
        // Negative control: the same tool writes inside the root.
        expect(readFileSync(join(h.root, "inside.txt"), "utf8")).toBe("touched\n");
        expect(resultOf(updates, "toolu_ssh")).toContain("failed");
        expect(resultOf(updates, "toolu_ssh")).not.toContain("PRIVATE KEY");
        expect(resultOf(updates, "toolu_net")).toContain("failed");
        // Negative control: the host answers anyone outside the sandbox.
        expect((await fetch(web.url("/"))).status).toBe(200);
      } finally {
        web.stop();
      }
    },
  );
});

/** A Streamable HTTP MCP server on 127.0.0.1 (official SDK) that counts the requests it gets. */
async function loopbackServer() {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() });
  await buildFixtureServer("editor-remote").connect(transport);
  const seen: string[] = [];
  const http = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      seen.push(request.method);
      return transport.handleRequest(request);
    },
  });
  return {
    url: `http://127.0.0.1:${http.port}/mcp`,
    address: `127.0.0.1:${http.port}`,
    seen,
    stop: () => http.stop(true),
  };
}

describe("the editor's MCP servers over http, held to the egress rules", () => {
  test("one at 127.0.0.1 is refused before any question, saying what to add; it gets no request", async () => {
    const server = await loopbackServer();
    try {
      const model = new FakeModelClient([fake.text("done")]);
      await using h = startHarness({ models: [model] });
      h.answer = answering("once");
      await h.initialize();
      const { sessionId } = await h.newSession({
        mcpServers: [{ type: "http", name: "local", url: server.url, headers: [] }],
      });
      await h.prompt(sessionId, "go");
      const text = messageText(h.updatesOf(sessionId));
      expect(text).toContain(
        `Garuda does not connect to ${server.address} (127.0.0.1 is this computer (a loopback address)`,
      );
      expect(text).toContain(
        `add "${server.address}" to "projectServers": {"allowHosts": [...]} in ${garudaPaths(h.home).mcp}`,
      );
      expect(h.permissions).toHaveLength(0);
      expect(mcpTools(model)).toEqual([]);
      expect(server.seen).toEqual([]);
    } finally {
      server.stop();
    }
  });

  test(
    "negative control: listed in your ~/.garuda/mcp.json projectServers.allowHosts, " +
      "the same server is asked about, starts, and its tool runs",
    async () => {
      const server = await loopbackServer();
      try {
        const model = new FakeModelClient([
          fake.toolCall("mcp__local__echo", { text: "over http" }, { id: "toolu_http" }),
          fake.text("done"),
        ]);
        await using h = startHarness({ models: [model] });
        mkdirSync(join(h.home, ".garuda"), { recursive: true });
        writeFileSync(garudaPaths(h.home).mcp, JSON.stringify({ projectServers: { allowHosts: [server.address] } }));
        h.answer = answering("once");
        await h.initialize();
        const { sessionId } = await h.newSession({
          mcpServers: [{ type: "http", name: "local", url: server.url, headers: [] }],
        });
        await h.prompt(sessionId, "go");
        expect(h.permissions.map((p) => p.toolCall.toolCallId)).toEqual(["garuda-question-1", "toolu_http"]);
        expect(resultOf(h.updatesOf(sessionId), "toolu_http")).toContain("echo: over http");
        expect(server.seen.length).toBeGreaterThan(0);
      } finally {
        server.stop();
      }
    },
  );
});
