// The editor's MCP servers (issue 18.2, 18.6) against the compiled binary: `garuda acp` gets a
// real stdio server on the official SDK (test/fixtures/mcpEditorServer.ts) in session/new, asks
// its consent, runs it inside the bubblewrap sandbox (its own pid namespace, no view of the
// user's ~/.ssh), passes a tool result back to the editor, and kills it when stdin closes. The
// editor's env value is searched for in every file under the agent's HOME and on every ACP line.
// Its own file, not process.test.ts: that one is near the size a file may have.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { descendants } from "../../src/sandbox/processTree.ts";
import { expectOnlyProtocol, startAgent, toolResultText } from "../support/acpAgent.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { alive, cmdline, until } from "../support/processes.ts";
import { describeSandbox } from "../support/sandboxSupport.ts";
import { makeTempDir } from "../support/tempDir.ts";
import { garudaBinary } from "../support/garudaBinary.ts";
import { EDITOR_SERVER } from "../support/mcpFixtures.ts";

const SECRET = "editor-secret-value-process-5d81e2";
/** Sent through the server's echo tool: a value Garuda does write, for the search's negative control. */
const ECHOED = "echoed-value-process-a94c07";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-acp-editor-mcp-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

/** The pids a process has in each pid namespace it is in, outermost first (/proc/<pid>/status NSpid). */
function namespacePids(pid: number): number[] {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("NSpid:"));
  return (line ?? "").slice("NSpid:".length).trim().split(/\s+/).map(Number);
}

describeSandbox("garuda acp, the compiled binary, with the editor's stdio MCP server", () => {
  test("asked, started in the sandbox, its tool result reaches the editor, gone when " +
    "stdin closes; the editor's env value is written nowhere", async () => {
    const tag = `editor-server-process-${process.pid}-${Date.now()}`;
    const home = makeTempDir("home-", { under: work });
    const key = join(home, ".ssh", "id_ed25519");
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(key, "PRIVATE KEY MATERIAL\n");
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [
        { steps: [{ type: "tool_use", name: "mcp__fix-tools__echo", id: "toolu_echo", input: { text: ECHOED } }] },
        { steps: [{ type: "tool_use", name: "mcp__fix-tools__token", id: "toolu_token", input: {} }] },
        { steps: [{ type: "tool_use", name: "mcp__fix-tools__read", id: "toolu_ssh", input: { path: key } }] },
        { steps: [{ type: "text", text: "Done with the editor's tools." }] },
      ],
    });
    const root = makeTempDir("root-", { under: work });
    const { proc, agent, connection, updates, permissions, lines, tail } = startAgent(
      binary,
      mock,
      root,
      work,
      "claude-sonnet-5",
      home,
    );
    await agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const server: acp.McpServer = {
      name: "Fix Tools",
      command: process.execPath,
      args: [EDITOR_SERVER, tag],
      env: [
        { name: "EDITOR_TOKEN", value: SECRET },
        { name: "FIXTURE_MARK", value: "started.txt" },
        // The project folder, as a real server is told it: every local server starts in /.
        { name: "FIXTURE_DIR", value: root },
      ],
    };
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [server] });
    expect(
      (
        await agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "Use the editor's tools." }],
        })
      ).stopReason,
    ).toBe("end_turn");

    // The consent came first (answered "once" by the client), with the env names, not the value.
    expect(permissions.map((p) => p.toolCall.toolCallId)).toEqual([
      "garuda-question-1",
      "toolu_echo",
      "toolu_token",
      "toolu_ssh",
    ]);
    const consent = JSON.stringify(permissions[0]?.toolCall.content);
    expect(consent).toContain("EDITOR_TOKEN");
    expect(consent).not.toContain(SECRET);
    expect(permissions.slice(1).map((p) => p.toolCall.title)).toEqual([
      "fix-tools/echo",
      "fix-tools/token",
      "fix-tools/read",
    ]);
    // The tool results reached the editor; the value reached the server (its length) only.
    expect(toolResultText(updates, "toolu_echo")).toContain(`echo: ${ECHOED}`);
    expect(toolResultText(updates, "toolu_token")).toContain(`token length ${SECRET.length}`);
    // Inside the sandbox: the user's ~/.ssh is not there for it…
    expect(toolResultText(updates, "toolu_ssh")).toContain("failed");
    expect(toolResultText(updates, "toolu_ssh")).not.toContain("PRIVATE KEY");
    expect(readFileSync(key, "utf8")).toBe("PRIVATE KEY MATERIAL\n");

    // …and it runs in a pid namespace below the agent's: one more NSpid level, and the pid it
    // wrote to $FIXTURE_MARK is its pid in that inner namespace, not the host's.
    const argv = `${process.execPath} ${EDITOR_SERVER} ${tag}`;
    const [serverPid] = await until(() => {
      const found = descendants(proc.pid).filter((pid) => cmdline(pid) === argv);
      return found.length > 0 ? found : undefined;
    }, "the editor's server below the agent");
    expect(serverPid).toBeDefined();
    const inner = namespacePids(serverPid as number);
    expect(inner.length).toBe(namespacePids(proc.pid).length + 1);
    expect(inner[0]).toBe(serverPid as number);
    expect(Number(readFileSync(join(root, "started.txt"), "utf8").trim())).toBe(inner.at(-1) as number);
    expect(inner.at(-1)).not.toBe(serverPid as number);
    const below = descendants(proc.pid);

    // stdin closes: exit 0, the server and everything else below the agent gone.
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
    connection.close();
    expect(alive(serverPid as number)).toBe(false);
    expect(below.filter(alive)).toEqual([]);

    // The editor's env value: in no file under HOME (audit log, session file, trust) and on no ACP line.
    const files = filesUnder(home);
    expect(files.some((path) => path.includes(join(".garuda", "audit")))).toBe(true);
    expect(files.some((path) => path.includes(join(".garuda", "sessions")))).toBe(true);
    for (const path of files)
      expect({ path, found: readFileSync(path, "utf8").includes(SECRET) }).toEqual({ path, found: false });
    expect(lines.some((line) => line.includes(SECRET))).toBe(false);
    expect(JSON.stringify(mock.requests.map((r) => r.body))).not.toContain(SECRET);
    // Negative control: the same searches find the value the server echoed (written by Garuda).
    expect(
      files.filter((path) => path.includes(join(".garuda", "sessions")) && readFileSync(path, "utf8").includes(ECHOED))
        .length,
    ).toBeGreaterThan(0);
    expect(lines.some((line) => line.includes(ECHOED))).toBe(true);
    expectOnlyProtocol(lines, tail);
  }, 120_000);
});
