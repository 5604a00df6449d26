// The session's network through prepareRuntime, with the real sandbox, egress proxy, permission
// engine and audit log, and a real HTTP server on loopback: a strict team allowlist is the whole
// list (a project cannot add to it), a deny rule refuses even an allowlisted host, revoking an
// "allow for this session" answer takes effect at the next connection, and every decision of the
// proxy is audited.
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { createPermissionEngine, type PermissionEngine } from "../../src/permission/engine.ts";
import { emptyTeamPolicy } from "../../src/permission/teamPolicy.ts";
import type { Approver } from "../../src/permission/types.ts";
import type { AgentEvent } from "../../src/core-types/events.ts";
import { startSessionNetwork } from "../../src/compose/network.ts";
import type { AuditEvent } from "../../src/store/auditEvents.ts";
import type { Runtime } from "../../src/runtime/runtime.ts";
import { answering, notices, type Place, place, prepareIn, results } from "../support/extensionHarness.ts";

const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("HELLO-FROM-SERVER\n") });
afterAll(() => server.stop(true));

/** curl through the sandbox's proxy (--noproxy '' so that localhost is proxied too). */
const CURL = `curl -s --noproxy '' -w ' status=%{http_code}' http://localhost:${server.port}/`;
const HOST_RULE = `localhost:${server.port}`;

interface Started {
  runtime: Runtime;
  engine: PermissionEngine;
  /** Runs one `curl` turn and returns the command's output. */
  curl(): Promise<{ output: string; events: AgentEvent[] }>;
  [Symbol.asyncDispose](): Promise<void>;
}

async function start(where: Place, approver?: Approver): Promise<Started> {
  const model = new FakeModelClient([]);
  let engine: PermissionEngine | undefined;
  const runtime = await prepareIn(where, model, {
    projectTrust: async () => true,
    onPrepared: (parts) => {
      engine = parts.engine;
    },
    ...(approver && { approver }),
  });
  return {
    runtime,
    engine: engine as PermissionEngine,
    async curl() {
      model.push(fake.toolCall("bash", { command: CURL }), fake.text("done"));
      const events: AgentEvent[] = [];
      await runtime.runTurn("fetch it", new AbortController().signal, (event) => events.push(event));
      return { output: results(events)[0]?.output ?? "", events };
    },
    [Symbol.asyncDispose]: () => runtime.close(),
  };
}

function auditLines(where: Place): string[] {
  const dir = where.paths.audit;
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((name) => name.endsWith(".jsonl"))
    .flatMap((name) => readFileSync(join(dir, name), "utf8").trim().split("\n"));
}

describe("the session's network (egress proxy) under the permission engine", () => {
  test("a project's trusted network.allow reaches the host; under a strict team allowlist it does not", async () => {
    using where = place();
    where.project(".garuda/settings.json", JSON.stringify({ network: { allow: [HOST_RULE] } }));
    {
      // Negative control: no strict policy, the project's host is reached without a question.
      await using s = await start(where);
      const { output } = await s.curl();
      expect(output).toContain("HELLO-FROM-SERVER");
      expect(output).toContain("status=200");
    }
    where.user(
      "no-managed-policy.json",
      JSON.stringify({ network: { strictAllowlist: true, allow: ["registry.npmjs.org"] } }),
    );
    {
      await using s = await start(where);
      const { output, events } = await s.curl();
      expect(output).not.toContain("HELLO-FROM-SERVER");
      expect(output).toContain("status=403");
      expect(notices(events).join("\n")).toContain(`the project's network.allow (${HOST_RULE}) is not used`);
    }
  });

  test("a deny rule refuses a host even when the allowlist names it", async () => {
    using where = place();
    where.project(".garuda/settings.json", JSON.stringify({ network: { allow: [HOST_RULE] } }));
    where.user(".garuda/policy.json", JSON.stringify({ permissions: { deny: ["network(localhost)"] } }));
    await using s = await start(where);
    const { output } = await s.curl();
    expect(output).not.toContain("HELLO-FROM-SERVER");
    expect(output).toContain("status=403");
    expect(
      auditLines(where).some(
        (line) =>
          line.includes('"type":"sandbox"') &&
          line.includes('"denied":true') &&
          line.includes(`localhost:${server.port}`),
      ),
    ).toBe(true);
  });

  test("'allow for this session' is the engine's session rule: revoked, the next connection asks again", async () => {
    using where = place();
    const approver = answering("session", "deny");
    const audited: AuditEvent[] = [];
    const engine = createPermissionEngine({ root: where.root, home: where.home, sandboxAvailable: true });
    const proxy = await startSessionNetwork({
      policy: emptyTeamPolicy(),
      projectAllow: [],
      engine,
      approver,
      audit: { record: (event) => audited.push(event) },
      mode: () => "build",
      signal: () => undefined,
      testing: { tcp: true, ports: [server.port as number], localAddresses: "any" },
    });
    try {
      const via = `http://garuda:${proxy.token}@127.0.0.1:${proxy.tcpPort}`;
      const get = () => fetch(`http://localhost:${server.port}/`, { proxy: via });
      const first = await get();
      expect(`${first.status} ${await first.text()}`).toBe("200 HELLO-FROM-SERVER\n");
      expect((await get()).status).toBe(200);
      expect(approver.asked.map((request) => request.tool)).toEqual(["network"]);
      const rule = engine.sessionRules().find((r) => r.pattern.startsWith("network("));
      expect(rule?.pattern).toBe("network(localhost)");
      expect(engine.revokeSessionRule(rule?.pattern as string)).toBe(true);
      const refused = await get();
      expect(refused.status).toBe(403);
      expect(approver.asked.map((request) => request.tool)).toEqual(["network", "network"]);
      const network = audited.flatMap((event) => (event.type === "sandbox" ? [event.detail] : []));
      expect(network).toEqual([
        `localhost:${server.port} allowed (session)`,
        `localhost:${server.port} allowed (session)`,
        `localhost:${server.port} refused: the user refused localhost`,
      ]);
    } finally {
      await proxy.close();
    }
  });
});
