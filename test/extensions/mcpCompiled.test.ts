// The MCP client inside a `bun build --compile` binary: the SDK, imported lazily when a server
// starts, must be bundled; so must the tool descriptions beside the extension tools.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { buildFixtureServer } from "../fixtures/mcpServer.ts";
import { tempDir } from "../support/tempDir.ts";

const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() });
await buildFixtureServer("compiled").connect(transport);
const http = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => transport.handleRequest(request) });
afterAll(() => http.stop(true));

test("a compiled binary connects to an MCP server, lists and calls its tools", async () => {
  using dir = tempDir("garuda-mcp-compile-");
  const entry = join(dir.path, "entry.ts");
  const src = (path: string) => JSON.stringify(join(import.meta.dir, "../../src/extensions", path));
  await Bun.write(
    entry,
    `import { McpConnection } from ${src("mcp/connection.ts")};
import { ` +
      `skillToolDescription } from ${src("skillTool.ts")};
const config = { name: ` +
      `"remote", scope: "user", file: "mcp.json", timeoutMs: 10000, hash: ` +
      `"0".repeat(64), transport: "http", url: process.argv[2], headers: {} };
const ` +
      `connection = await McpConnection.open(config, { executor: {}, root: ` +
      `process.cwd(), sandbox: null }, new AbortController().signal);
const result = ` +
      `await connection.callTool("echo", { text: "from the binary" }, new ` +
      `AbortController().signal);
console.log(JSON.stringify({ tools: ` +
      `connection.tools.map((tool) => tool.name), result, described: ` +
      `skillToolDescription([]).startsWith("Loads a skill") }));
await ` +
      `connection.close();
`,
  );
  const binary = join(dir.path, "probe");
  const build = Bun.spawnSync([process.execPath, "build", "--compile", entry, "--outfile", binary], {
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(build.stderr.toString()).not.toContain("error");
  expect(build.exitCode).toBe(0);
  // Run from a folder with no sources or node_modules, asynchronously: the server lives in this process.
  const run = Bun.spawn([binary, `http://127.0.0.1:${http.port}/mcp`], {
    cwd: dir.path,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
    run.exited,
  ]);
  expect(err).toBe("");
  expect(code).toBe(0);
  expect(JSON.parse(out)).toEqual({
    tools: ["echo", "crash", "sleep", "touch", "grow"],
    result: { content: [{ type: "text", text: "echo: from the binary" }] },
    described: true,
  });
}, 60_000);
