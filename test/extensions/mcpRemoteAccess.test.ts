// The egress rules a remote MCP server's address is held to (the proxy's host policy), names
// that resolve to this computer or a metadata address, and the fetch every request goes through:
// it connects to the address it checked (a DNS rebinding, for real in a network namespace).
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RemoteServerConfig, ServerScope } from "../../src/extensions/mcp/config.ts";
import { type EgressRules, RemoteAccess } from "../../src/extensions/mcp/remoteAccess.ts";
import { tempDir } from "../support/tempDir.ts";

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

function server(url: string, scope: ServerScope = "project"): RemoteServerConfig {
  return {
    name: "remote",
    scope,
    file: "/p/.garuda/mcp.json",
    timeoutMs: 60_000,
    hash: "h",
    refusedEnv: [],
    transport: "http",
    url,
    headers: {},
    urlWritten: url,
    headerSources: {},
    urlSources: [],
  };
}

const open: EgressRules = { allow: [], blocked: [], strict: false };
const resolvingTo =
  (...addresses: string[]) =>
  async () =>
    addresses;
const reason = async (access: RemoteAccess, config: RemoteServerConfig) =>
  (await access.resolvedRefusal(config))?.reason;

describe("a remote server's address", () => {
  test(
    "a name that resolves to this computer or a metadata address is refused for a " +
      "project's server, unless you list it",
    async () => {
      const cases: [string[], string | undefined][] = [
        [["127.0.0.1"], "evil.test resolves to 127.0.0.1: this computer (a loopback address)"],
        [["::ffff:127.0.0.1"], "evil.test resolves to ::ffff:127.0.0.1: this computer (a loopback address)"],
        [
          ["::ffff:a9fe:a9fe"],
          "evil.test resolves to ::ffff:a9fe:a9fe: a link-local or metadata address, " +
            "where cloud credentials are served",
        ],
        [["93.184.216.34", "::1"], "evil.test resolves to ::1: this computer (a loopback address)"],
        [
          ["169.254.169.254"],
          "evil.test resolves to 169.254.169.254: a link-local or metadata address, where cloud credentials are served",
        ],
        [["93.184.216.34"], undefined],
      ];
      for (const [addresses, expected] of cases) {
        const access = new RemoteAccess({ ...open, resolve: resolvingTo(...addresses) }, []);
        expect(await reason(access, server("https://evil.test/mcp"))).toBe(expected);
        // Listed by you, or your own server: you named the address.
        expect(
          await reason(
            new RemoteAccess({ ...open, resolve: resolvingTo(...addresses) }, ["evil.test"]),
            server("https://evil.test/mcp"),
          ),
        ).toBeUndefined();
        expect(await reason(access, server("https://evil.test/mcp", "user"))).toBeUndefined();
      }
    },
  );

  test(
    "IP literals, loopback names and other ports need your " + "projectServers.allowHosts; a listed one passes",
    async () => {
      const refused: [string, string][] = [
        [
          "https://169.254.169.254/mcp",
          "169.254.169.254 is a link-local or metadata address, where cloud credentials are served",
        ],
        ["http://127.0.0.1:8080/mcp", "127.0.0.1 is this computer (a loopback address)"],
        ["http://localhost:8080/mcp", "localhost is this computer (a loopback address)"],
        ["https://api.localhost/mcp", "api.localhost is this computer (a loopback address)"],
        ["https://203.0.113.7/mcp", "IP address 203.0.113.7 is refused unless it is in the allowlist"],
        ["https://mcp.example.com:8443/mcp", "port 8443 is not allowed (only 80, 443, or a port listed with the host)"],
      ];
      const none = new RemoteAccess({ ...open, resolve: resolvingTo("93.184.216.34") }, []);
      for (const [url, why] of refused) {
        const refusal = await none.resolvedRefusal(server(url));
        expect(refusal).toMatchObject({ reason: why, byPolicy: false });
        const { host, port } = refusal ?? { host: "", port: 0 };
        const listed = new RemoteAccess({ ...open, resolve: resolvingTo("93.184.216.34") }, [
          host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`,
        ]);
        expect(await reason(listed, server(url))).toBeUndefined();
      }
      expect(await reason(none, server("https://mcp.example.com/mcp"))).toBeUndefined();
    },
  );

  test(
    "the team policy's blocked hosts and strict allowlist bind your own servers " +
      "too; nothing you list gets past them",
    async () => {
      const blocked = new RemoteAccess({ ...open, blocked: ["*.evil.test"] }, ["mcp.evil.test"]);
      expect(blocked.refusal(server("https://mcp.evil.test/mcp", "user"))).toMatchObject({
        reason: "the team policy blocks mcp.evil.test",
        byPolicy: true,
      });
      expect(blocked.refusal(server("https://mcp.evil.test/mcp"))).toMatchObject({ byPolicy: true });
      const strict = new RemoteAccess({ allow: ["mcp.example.com"], blocked: [], strict: true }, ["other.example.com"]);
      expect(strict.refusal(server("https://other.example.com/mcp", "user"))).toMatchObject({
        reason: "the team policy's strict network allowlist does not list other.example.com",
        byPolicy: true,
      });
      expect(strict.refusal(server("https://other.example.com/mcp"))).toMatchObject({ byPolicy: true });
      expect(strict.refusal(server("https://mcp.example.com/mcp", "user"))).toBeUndefined();
      const vetoed = new RemoteAccess(
        {
          ...open,
          veto: (host) =>
            host === "x.example" ? "A deny rule forbids this (network(x.example)). Do not retry." : undefined,
        },
        [],
      );
      expect(vetoed.refusal(server("https://x.example/mcp", "user"))).toMatchObject({
        reason: "A deny rule forbids this (network(x.example))",
        byPolicy: true,
      });
      // Negative control: with no policy, the same addresses pass.
      expect(new RemoteAccess(open, []).refusal(server("https://mcp.evil.test/mcp", "user"))).toBeUndefined();
    },
  );
});

describe("the fetch a remote server's transports use", () => {
  function loopback(): { origin: string; paths: string[] } {
    const paths: string[] = [];
    const http = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => {
        paths.push(new URL(request.url).pathname);
        return new URL(request.url).pathname === "/hop"
          ? new Response(null, { status: 307, headers: { location: "/mcp" } })
          : new Response("ok");
      },
    });
    stops.push(() => http.stop(true));
    return { origin: `http://127.0.0.1:${http.port}`, paths };
  }

  test("goes only to the approved origin, and follows no redirect itself", async () => {
    const site = loopback();
    const other = loopback();
    const fetch = new RemoteAccess(open, []).fetch(server(`${site.origin}/mcp`, "user"));
    const hop = await fetch(`${site.origin}/hop`);
    expect(hop.status).toBe(307);
    expect(site.paths).toEqual(["/hop"]);
    await expect(fetch(`${other.origin}/mcp`)).rejects.toThrow(
      `only to ${site.origin}, the address that was approved, not to ${other.origin}`,
    );
    expect(other.paths).toEqual([]);
  });

  test("checks every request again: a name that now resolves to this computer is refused (DNS rebinding)", async () => {
    const site = loopback();
    const port = new URL(site.origin).port;
    const answers = [["93.184.216.34"], ["127.0.0.1"]];
    // `*.test:port` opens the port without naming the host exactly, so where the name leads still counts.
    const access = new RemoteAccess({ ...open, resolve: async () => answers.shift() ?? ["127.0.0.1"] }, [
      `*.test:${port}`,
    ]);
    const config = server(`http://rebind.test:${port}/mcp`);
    expect(await access.resolvedRefusal(config)).toBeUndefined();
    await expect(access.fetch(config)(config.url)).rejects.toThrow(
      `Garuda refused rebind.test:${port}: rebind.test resolves to 127.0.0.1: this computer (a loopback address)`,
    );
    expect(site.paths).toEqual([]);
  });
});

const FIXTURE = join(import.meta.dir, "../fixtures/mcpRebind.ts");
/** A network and mount namespace of its own needs root and unshare(1). */
const canIsolate = process.getuid?.() === 0 && Bun.which("unshare") !== null && Bun.which("ip") !== null;

describe.if(canIsolate)("DNS rebinding, in a network namespace of its own", () => {
  test("the request connects to the address that was checked, with the name's Host and " +
    "TLS name, not to where the name resolves again", async () => {
    using dir = tempDir("garuda-rebind-");
    const cert = join(dir.path, "cert.pem");
    const key = join(dir.path, "key.pem");
    const made = Bun.spawnSync(
      ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=rebind.test"].concat([
        "-addext",
        "subjectAltName=DNS:rebind.test",
        "-keyout",
        key,
        "-out",
        cert,
      ]),
      { stderr: "pipe" },
    );
    expect(made.exitCode).toBe(0);
    // What the attacker's DNS answers the HTTP client: this computer.
    const hosts = join(dir.path, "hosts");
    writeFileSync(hosts, "127.0.0.1 localhost\n127.0.0.1 rebind.test\n");
    const setUp = [
      "ip link set lo up",
      "ip addr add 198.51.100.7/32 dev lo",
      `mount --bind ${hosts} /etc/hosts`,
      `exec ${process.execPath} ${FIXTURE} ${cert} ${key}`,
    ].join(" && ");
    const run = Bun.spawnSync(["unshare", "-n", "-m", "--propagation", "private", "sh", "-c", setUp], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NODE_EXTRA_CA_CERTS: cert },
      stdout: "pipe",
      stderr: "pipe",
      timeout: 60_000,
    });
    expect(run.stderr.toString()).toBe("");
    const { answers, reached, ports } = JSON.parse(run.stdout.toString()) as {
      answers: string[];
      reached: string[];
      ports: [number, number];
    };
    // Without the pinning both requests reach this computer's servers ("loopback …").
    expect(answers).toEqual(["public http", "public https"]);
    expect(reached).toEqual([`public http host=rebind.test:${ports[0]}`, `public https host=rebind.test:${ports[1]}`]);
  }, 60_000);
});
