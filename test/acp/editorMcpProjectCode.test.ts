// The editor's MCP servers against a cloned project (issue 31.3), the compiled `garuda acp` as an
// editor drives it: the most common editor definition — `npx -y <package>` with a token, also
// as many configurations fill the token, through a shell (`sh -c "npx -y <package>"`) — does not
// run the project's copy of the package (node_modules/.bin, package.json) nor an npx in a PATH
// folder inside the project: every local server starts in /. A definition that names the
// project's script is asked about as the project's code.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { garudaBinary } from "../support/garudaBinary.ts";
import { expectOnlyProtocol, startAgent } from "../support/acpAgent.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { clonedProject } from "../support/clonedProject.ts";
import { describeSandbox } from "../support/sandboxSupport.ts";
import { makeTempDir } from "../support/tempDir.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-acp-editor-project-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describeSandbox("garuda acp, the compiled binary, with the editor's servers in a cloned project", () => {
  test("npx -y with the editor's token, bare or behind `sh -c`, does not run the " +
    "project's copy; naming the project's script asks as the project's code", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [{ steps: [{ type: "text", text: "Nothing to do." }] }],
    });
    const root = makeTempDir("root-", { under: work });
    clonedProject(root, "@garuda-test/server-github", "server-github");
    const { proc, agent, connection, permissions, lines, tail } = startAgent(binary, mock, root, work);
    await agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const github: acp.McpServer = {
      name: "github",
      command: "npx",
      args: ["-y", "@garuda-test/server-github"],
      env: [
        { name: "GITHUB_TOKEN", value: "editor-token-value" },
        { name: "MARK", value: join(root, "github-ran.txt") },
        { name: "PATH", value: `${join(root, "bin")}:${process.env.PATH}` },
        // No registry here: npm fails at once instead of retrying.
        { name: "npm_config_offline", value: "true" },
      ],
    };
    // A shell line: no rewrite of a command that IS npx can see this npx; starting in / keeps it out of the project.
    const shell: acp.McpServer = {
      name: "shell",
      command: "sh",
      args: ["-c", "npx -y @garuda-test/server-github"],
      env: [
        { name: "GITHUB_TOKEN", value: "editor-token-value" },
        { name: "MARK", value: join(root, "shell-ran.txt") },
        { name: "npm_config_offline", value: "true" },
      ],
    };
    const local: acp.McpServer = {
      name: "local",
      command: "node",
      args: [join(root, "node_modules/.bin/server-github")],
      env: [{ name: "MARK", value: join(root, "local-ran.txt") }],
    };
    const { sessionId } = await agent.request(acp.methods.agent.session.new, {
      cwd: root,
      mcpServers: [github, shell, local],
    });
    const { stopReason } = await agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hello" }],
    });
    expect(stopReason).toBe("end_turn");

    // Neither the project's package nor the project's npx ran with the editor's token.
    expect(existsSync(join(root, "github-ran.txt"))).toBe(false);
    expect(existsSync(join(root, "shell-ran.txt"))).toBe(false);
    expect(existsSync(join(root, "path-npx-ran.txt"))).toBe(false);
    // All were asked about (answered "once"); only the one that names the project's script says it is the project's
    // code.
    const asked = permissions.map((p) => JSON.stringify(p.toolCall));
    expect(asked).toHaveLength(3);
    expect(asked[0]).toContain("MCP server: github");
    expect(asked[0]).not.toContain("runs the project's code");
    expect(asked[0]).toContain("starts in /");
    expect(asked[0]).not.toContain("editor-token-value");
    expect(asked[1]).toContain("MCP server: shell");
    expect(asked[1]).not.toContain("runs the project's code");
    expect(asked[1]).toContain("starts in /");
    expect(asked[2]).toContain("MCP server: local (runs the project's code)");
    expect(asked[2]).toContain("node_modules/@garuda-test/server-github/cli.js");
    // The control: the definition that names the project's copy is the one that ran it.
    expect(existsSync(join(root, "local-ran.txt"))).toBe(true);
    // The attack: the same shell line in the project folder runs the project's copy with the token.
    const control = Bun.spawnSync(["sh", "-c", "npx -y @garuda-test/server-github"], {
      cwd: root,
      env: {
        ...process.env,
        GITHUB_TOKEN: "editor-token-value",
        MARK: join(root, "control.txt"),
        npm_config_offline: "true",
      },
    });
    expect(control.exitCode).toBe(0);
    expect(readFileSync(join(root, "control.txt"), "utf8")).toContain("token length 18");

    proc.stdin.end();
    expect(await proc.exited).toBe(0);
    connection.close();
    expectOnlyProtocol(lines, tail);
  }, 120_000);
});
