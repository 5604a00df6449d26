// Remote MCP servers on loopback, built with the official SDK: Streamable HTTP (with headers
// from Garuda's environment), the SSE fallback for a server that only speaks SSE, a project's
// remote server behind a consent, and a server that goes away mid-session.
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { fake } from "../../src/model/fake.ts";
import { buildFixtureServer } from "../fixtures/mcpServer.ts";
import { answering, notices, place, results, session } from "../support/extensionHarness.ts";

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** A Streamable HTTP MCP server on 127.0.0.1 that wants `Authorization: Bearer <token>`. */
async function streamableServer(token: string): Promise<{ url: string; stop: () => void }> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() });
  await buildFixtureServer("remote").connect(transport);
  const http = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) =>
      request.headers.get("authorization") === `Bearer ${token}`
        ? transport.handleRequest(request)
        : new Response("no", { status: 401 }),
  });
  const stop = () => http.stop(true);
  stops.push(stop);
  return { url: `http://127.0.0.1:${http.port}/mcp`, stop };
}

/** An MCP server that speaks only the older SSE transport (GET /sse, POST /messages). */
async function sseOnlyServer(): Promise<string> {
  const transports = new Map<string, SSEServerTransport>();
  const http: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      transports.set(transport.sessionId, transport);
      await buildFixtureServer("old").connect(transport);
      return;
    }
    const transport = transports.get(url.searchParams.get("sessionId") ?? "");
    if (req.method === "POST" && url.pathname === "/messages" && transport) {
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(405).end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  stops.push(() => {
    http.closeAllConnections();
    http.close();
  });
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/sse`;
}

describe("remote MCP servers", () => {
  test("Streamable HTTP on loopback, with a header from Garuda's environment", async () => {
    const remote = await streamableServer("s3cret");
    using where = place();
    where.user(
      ".garuda/mcp.json",
      JSON.stringify({
        servers: { remote: { url: remote.url, headers: { Authorization: "Bearer ${REMOTE_TOKEN}" } } },
      }),
    );
    const approver = answering("once");
    await using s = await session(
      where,
      [fake.toolCall("mcp__remote__echo", { text: "over http" }), fake.text("ok")],
      approver,
      { REMOTE_TOKEN: "s3cret" },
    );
    const { events } = await s.prompt("echo");
    expect(approver.asked.map((request) => request.title)).toEqual(["remote/echo"]);
    expect(results(events)[0]?.output).toBe('<mcp_result server="remote" tool="echo">\necho: over http\n</mcp_result>');
  });

  test("an SSE-only server is reached through the fallback", async () => {
    const url = await sseOnlyServer();
    using where = place();
    where.user(".garuda/mcp.json", JSON.stringify({ servers: { old: { url } } }));
    writeAllow(where.paths.policy, "mcp__old__*");
    await using s = await session(
      where,
      [fake.toolCall("mcp__old__echo", { text: "over sse" }), fake.text("ok")],
      answering(),
    );
    const { events } = await s.prompt("echo");
    expect(results(events)[0]?.output).toBe('<mcp_result server="old" tool="echo">\necho: over sse\n</mcp_result>');
  });

  test("a wrong token: the server does not start, with a notice naming both transports", async () => {
    const remote = await streamableServer("right");
    using where = place();
    where.user(
      ".garuda/mcp.json",
      JSON.stringify({ servers: { remote: { url: remote.url, headers: { Authorization: "Bearer wrong" } } } }),
    );
    await using s = await session(where, [fake.text("ok")], answering());
    const { stop, events } = await s.prompt("hello");
    expect(stop).toBe("done");
    const text = notices(events).join("\n");
    expect(text).toContain('The MCP server "remote" could not start: Streamable HTTP:');
    expect(text).toContain("SSE:");
  });

  test(
    "a project's remote server needs a yes to its address; a server that goes away " +
      "fails its calls, not the session",
    async () => {
      const remote = await streamableServer("t");
      using where = place();
      where.project(
        ".garuda/mcp.json",
        JSON.stringify({ servers: { remote: { url: remote.url, headers: { Authorization: "Bearer t" } } } }),
      );
      // A project's server on this computer: only where the user's own mcp.json allows it.
      where.user(".garuda/mcp.json", JSON.stringify({ projectServers: { allowHosts: [new URL(remote.url).host] } }));
      writeAllow(where.paths.policy, "mcp__remote__*");
      const approver = answering("once");
      await using s = await session(
        where,
        [
          fake.toolCall("mcp__remote__echo", { text: "a" }),
          fake.text("ok"),
          fake.toolCall("mcp__remote__echo", { text: "b" }),
          fake.text("the server is gone"),
        ],
        approver,
      );
      const { events } = await s.prompt("echo");
      expect(approver.asked).toHaveLength(1);
      expect(approver.asked[0]?.callId).toBeUndefined();
      expect(approver.asked[0]?.preview).toContain(`Address: ${remote.url} (Streamable HTTP)`);
      expect(approver.asked[0]?.preview).toContain("Headers: Authorization (a value written in the file)");
      expect(results(events)[0]?.output).toContain("echo: a");

      remote.stop();
      const after = await s.prompt("echo again");
      expect(after.stop).toBe("done");
      const failed = results(after.events)[0];
      expect(failed?.status).toBe("failed");
      expect(failed?.output).toStartWith('Error: the MCP server "remote" could not be reached (');
      expect(s.model.requests).toHaveLength(4);
      // The next turn says so, and the server's tools are gone.
      s.model.push(fake.text("fine"));
      const later = await s.prompt("and now?");
      expect(notices(later.events).join("\n")).toContain('The MCP server "remote" stopped (it could not be reached:');
      expect(s.model.requests[4]?.tools?.some((tool) => tool.name.startsWith("mcp__"))).toBe(false);
    },
  );

  test("a remote server that dies during a call: the call fails within seconds (not at " +
    "its timeout), and its tools go away", async () => {
    const remote = await streamableServer("t");
    using where = place();
    where.user(
      ".garuda/mcp.json",
      JSON.stringify({ servers: { remote: { url: remote.url, headers: { Authorization: "Bearer t" } } } }),
    );
    writeAllow(where.paths.policy, "mcp__remote__*");
    await using s = await session(
      where,
      [fake.toolCall("mcp__remote__sleep", { ms: 30_000 }), fake.text("it died")],
      answering(),
    );
    setTimeout(() => remote.stop(), 500);
    const started = performance.now();
    const { events } = await s.prompt("sleep");
    expect(performance.now() - started).toBeLessThan(15_000);
    const failed = results(events)[0];
    expect(failed?.status).toBe("failed");
    expect(failed?.output).toContain('the MCP server "remote"');
    s.model.push(fake.text("fine"));
    const later = await s.prompt("and now?");
    expect(notices(later.events).join("\n")).toContain('The MCP server "remote" stopped');
    expect(s.model.requests.at(-1)?.tools?.some((tool) => tool.name.startsWith("mcp__"))).toBe(false);
  }, 30_000);

  test("a remote server that takes a while (longer than the pings' interval) still " +
    "answers: the pings do not end it", async () => {
    const remote = await streamableServer("t");
    using where = place();
    where.user(
      ".garuda/mcp.json",
      JSON.stringify({ servers: { remote: { url: remote.url, headers: { Authorization: "Bearer t" } } } }),
    );
    writeAllow(where.paths.policy, "mcp__remote__*");
    await using s = await session(
      where,
      [fake.toolCall("mcp__remote__sleep", { ms: 7_000 }), fake.text("slept")],
      answering(),
    );
    const { events } = await s.prompt("sleep");
    expect(results(events)[0]?.status).toBe("completed");
  }, 30_000);

  test("a stateless server whose process exits during a call (its stream just ends): " +
    "the call fails within seconds", async () => {
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../fixtures/mcpHttpServer.ts")], {
      stdout: "pipe",
      stderr: "ignore",
    });
    stops.push(() => proc.kill());
    const reader = proc.stdout.getReader();
    const { value } = await reader.read();
    const port = /PORT (\d+)/.exec(new TextDecoder().decode(value))?.[1];
    using where = place();
    where.user(".garuda/mcp.json", JSON.stringify({ servers: { dying: { url: `http://127.0.0.1:${port}/mcp` } } }));
    writeAllow(where.paths.policy, "mcp__dying__*");
    await using s = await session(where, [fake.toolCall("mcp__dying__die", {}), fake.text("it died")], answering());
    const started = performance.now();
    const { events } = await s.prompt("die");
    expect(performance.now() - started).toBeLessThan(15_000);
    const failed = results(events)[0];
    expect(failed?.status).toBe("failed");
    expect(failed?.output).toContain('the MCP server "dying"');
    s.model.push(fake.text("fine"));
    const later = await s.prompt("and now?");
    expect(notices(later.events).join("\n")).toContain('The MCP server "dying" stopped');
    expect(s.model.requests.at(-1)?.tools?.some((tool) => tool.name.startsWith("mcp__"))).toBe(false);
  }, 60_000);

  test("a server on plain http to another computer is refused, the project's and yours alike", async () => {
    for (const write of ["project", "user"] as const) {
      using where = place();
      if (write === "project")
        where.project(".garuda/mcp.json", JSON.stringify({ servers: { far: { url: "http://example.com/mcp" } } }));
      else
        where.user(
          ".garuda/mcp.json",
          JSON.stringify({
            servers: { far: { url: "http://example.com/mcp", headers: { Authorization: "Bearer x" } } },
          }),
        );
      const approver = answering("once");
      await using s = await session(where, [fake.text("ok")], approver);
      const { events } = await s.prompt("hello");
      expect(approver.asked).toHaveLength(0);
      expect(notices(events).join("\n")).toContain(
        "uses plain http:// to another computer; a remote server must use https://",
      );
    }
  });
});

function writeAllow(policy: string, rule: string): void {
  writeFileSync(policy, JSON.stringify({ permissions: { allow: [rule] } }));
}
