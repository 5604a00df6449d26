// A project's remote MCP server sends no secret without saying so, and every remote server is
// held to the egress rules sandboxed commands are. Real servers built with the official SDK on
// loopback, each counting the requests it gets (a refused server must get none).
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { fake } from "../../src/model/fake.ts";
import { answering, notices, place, results, session } from "../support/extensionHarness.ts";
import { buildFixtureServer } from "../fixtures/mcpServer.ts";

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

interface Remote {
  url: string;
  /** host:port */
  address: string;
  /** The Authorization header of every request it got. */
  seen: Array<string | null>;
}

/** A Streamable HTTP MCP server on `hostname` that records every request's Authorization header. */
async function remote(hostname = "127.0.0.1"): Promise<Remote> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() });
  await buildFixtureServer("remote").connect(transport);
  const seen: Array<string | null> = [];
  const http = Bun.serve({
    hostname,
    port: 0,
    fetch: (request) => {
      seen.push(request.headers.get("authorization"));
      return transport.handleRequest(request);
    },
  });
  stops.push(() => http.stop(true));
  return { url: `http://${hostname}:${http.port}/mcp`, address: `${hostname}:${http.port}`, seen };
}

/** A server that answers every request with a redirect to `to`. */
function redirecting(to: string): Remote {
  const seen: Array<string | null> = [];
  const http = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      seen.push(request.headers.get("authorization"));
      return new Response(null, { status: 307, headers: { location: to } });
    },
  });
  stops.push(() => http.stop(true));
  return { url: `http://127.0.0.1:${http.port}/mcp`, address: `127.0.0.1:${http.port}`, seen };
}

const userMcp = (config: object) => JSON.stringify(config);
const projectServer = (url: string, headers?: Record<string, string>) =>
  JSON.stringify({ servers: { remote: { url, ...(headers && { headers }) } } });

describe("a project's remote server and your secrets", () => {
  test(
    "${SECRET} in a header is not filled in unless you name SECRET: no question, no " +
      "request, a notice saying what to add",
    async () => {
      const server = await remote();
      using where = place();
      where.project(".garuda/mcp.json", projectServer(server.url, { Authorization: "Bearer ${SECRET}" }));
      where.user(".garuda/mcp.json", userMcp({ projectServers: { allowHosts: [server.address] } }));
      const approver = answering("once");
      await using s = await session(where, [fake.text("ok")], approver, { SECRET: "s3cret-value" });
      const { events } = await s.prompt("hello");
      const text = notices(events).join("\n");
      expect(text).toContain(
        'The project\'s MCP server "remote" was not started: it uses ${SECRET} from your environment',
      );
      expect(text).toContain(`add "SECRET" to "projectServers": {"allowEnv": [...]} in ${where.paths.mcp}`);
      expect(approver.asked).toHaveLength(0);
      expect(server.seen).toEqual([]);
    },
  );

  test(
    "named in your mcp.json, it is sent, and the question shows the header and the " + "variable, never its value",
    async () => {
      const server = await remote();
      using where = place();
      where.project(
        ".garuda/mcp.json",
        projectServer(server.url, { Authorization: "Bearer ${SECRET}", "X-Team": "core" }),
      );
      where.user(
        ".garuda/mcp.json",
        userMcp({ projectServers: { allowEnv: ["SECRET"], allowHosts: [server.address] } }),
      );
      writeFileSync(where.paths.policy, JSON.stringify({ permissions: { allow: ["mcp__remote__*"] } }));
      const approver = answering("once");
      await using s = await session(
        where,
        [fake.toolCall("mcp__remote__echo", { text: "hi" }), fake.text("ok")],
        approver,
        { SECRET: "s3cret-value" },
      );
      const { events } = await s.prompt("echo");
      expect(approver.asked).toHaveLength(1);
      const preview = approver.asked[0]?.preview ?? "";
      expect(preview).toContain("Headers: Authorization (from $SECRET), X-Team (a value written in the file)");
      expect(preview).toContain(`It sends the value of $SECRET, from your environment, to ${server.address}.`);
      expect(preview).not.toContain("s3cret-value");
      expect(preview).not.toContain("core");
      expect(results(events)[0]?.output).toContain("echo: hi");
      expect(server.seen.every((value) => value === "Bearer s3cret-value")).toBe(true);
    },
  );

  test("a project's local server cannot take ${VAR} either (args and env); yours can", async () => {
    using where = place();
    where.project(
      ".garuda/mcp.json",
      JSON.stringify({
        servers: { local: { command: "bun", args: ["--token", "${SECRET}"], env: { KEY: "${OTHER}" } } },
      }),
    );
    const approver = answering("once");
    await using s = await session(where, [fake.text("ok")], approver, { SECRET: "a", OTHER: "b" });
    const text = notices((await s.prompt("hello")).events).join("\n");
    expect(text).toContain(
      'The project\'s MCP server "local" was not started: it uses ${OTHER}, ${SECRET} from your environment',
    );
    expect(text).toContain('add "OTHER", "SECRET" to "projectServers": {"allowEnv": [...]}');
    expect(approver.asked).toHaveLength(0);
  });
});

describe("remote servers and the egress rules", () => {
  test(
    "a project server at 127.0.0.1, localhost or a metadata address is refused " +
      "before any question, saying what to add",
    async () => {
      const ip = await remote("127.0.0.1");
      const named = await remote("localhost");
      for (const [url, address, reason] of [
        [ip.url, ip.address, "127.0.0.1 is this computer (a loopback address)"],
        [named.url, named.address, "localhost is this computer (a loopback address)"],
        [
          "https://169.254.169.254/mcp",
          "169.254.169.254:443",
          "169.254.169.254 is a link-local or metadata address, where cloud credentials are served",
        ],
        ["https://[::1]:8443/mcp", "[::1]:8443", "::1 is this computer (a loopback address)"],
        [
          "https://203.0.113.7/mcp",
          "203.0.113.7:443",
          "IP address 203.0.113.7 is refused unless it is in the allowlist",
        ],
      ] as const) {
        using where = place();
        where.project(".garuda/mcp.json", projectServer(url));
        const approver = answering("once");
        await using s = await session(where, [fake.text("ok")], approver);
        const text = notices((await s.prompt("hello")).events).join("\n");
        expect(text).toContain(
          `The project's MCP server "remote" was not started: Garuda does not connect to ${address} (${reason}`,
        );
        expect(text).toContain(
          `If you trust it, add "${address}" to "projectServers": {"allowHosts": [...]} in ${where.paths.mcp}.`,
        );
        expect(approver.asked).toHaveLength(0);
      }
      expect(ip.seen).toEqual([]);
      expect(named.seen).toEqual([]);
    },
  );

  test("listed in your projectServers.allowHosts, the same servers start after the question", async () => {
    for (const hostname of ["127.0.0.1", "localhost"]) {
      const server = await remote(hostname);
      using where = place();
      where.project(".garuda/mcp.json", projectServer(server.url));
      where.user(".garuda/mcp.json", userMcp({ projectServers: { allowHosts: [server.address] } }));
      writeFileSync(where.paths.policy, JSON.stringify({ permissions: { allow: ["mcp__remote__*"] } }));
      const approver = answering("once");
      await using s = await session(
        where,
        [fake.toolCall("mcp__remote__echo", { text: hostname }), fake.text("ok")],
        approver,
      );
      const { events } = await s.prompt("echo");
      expect(approver.asked).toHaveLength(1);
      expect(results(events)[0]?.output).toContain(`echo: ${hostname}`);
      expect(server.seen.length).toBeGreaterThan(0);
    }
  });

  test(
    "the team policy binds your own servers too: blockedHosts, a strict allowlist, " + "a network deny rule",
    async () => {
      const policies: [object, string][] = [
        [{ network: { blockedHosts: ["127.0.0.1"] } }, "the team policy blocks 127.0.0.1"],
        [
          { network: { strictAllowlist: true, allow: ["registry.npmjs.org"] } },
          "the team policy's strict network allowlist does not list 127.0.0.1",
        ],
        [{ permissions: { deny: ["network(127.0.0.1)"] } }, "forbids this (network(127.0.0.1))"],
      ];
      for (const [policy, reason] of policies) {
        const server = await remote();
        using where = place();
        where.user(".garuda/mcp.json", userMcp({ servers: { mine: { url: server.url } } }));
        writeFileSync(where.paths.policy, JSON.stringify(policy));
        await using s = await session(where, [fake.text("ok")], answering());
        const text = notices((await s.prompt("hello")).events).join("\n");
        expect(text).toContain(`The MCP server "mine" was not started: Garuda does not connect to ${server.address} (`);
        expect(text).toContain(reason);
        expect(text).not.toContain("allowHosts");
        expect(server.seen).toEqual([]);
      }
    },
  );

  test("negative control: with no policy your own server on loopback starts", async () => {
    const server = await remote();
    using where = place();
    where.user(".garuda/mcp.json", userMcp({ servers: { mine: { url: server.url } } }));
    writeFileSync(where.paths.policy, JSON.stringify({ permissions: { allow: ["mcp__mine__*"] } }));
    await using s = await session(
      where,
      [fake.toolCall("mcp__mine__echo", { text: "mine" }), fake.text("ok")],
      answering(),
    );
    expect(results((await s.prompt("echo")).events)[0]?.output).toContain("echo: mine");
  });

  test("a redirect to another address is not followed, and the headers never reach it", async () => {
    const target = await remote();
    const hop = redirecting(target.url);
    using where = place();
    where.user(
      ".garuda/mcp.json",
      userMcp({ servers: { mine: { url: hop.url, headers: { Authorization: "Bearer ${TOKEN}" } } } }),
    );
    await using s = await session(where, [fake.text("ok")], answering(), { TOKEN: "tok-123" });
    const text = notices((await s.prompt("hello")).events).join("\n");
    expect(text).toContain('The MCP server "mine" could not start');
    expect(hop.seen.length).toBeGreaterThan(0);
    expect(target.seen).toEqual([]);
  });
});
