import { describe, expect, test } from "bun:test";
import { type PolicyState, decideHost, isLocalAddress, parseHostRule } from "../../src/sandbox/proxyPolicy.ts";

const state = (overrides: Partial<PolicyState> = {}): PolicyState => ({
  allow: ["registry.npmjs.org", "*.githubusercontent.com", "localhost:8080", "10.0.0.5"].map(parseHostRule),
  block: ["evil.example", "*.tracker.example"].map(parseHostRule),
  session: [],
  ports: [80, 443],
  strict: false,
  canAsk: true,
  ...overrides,
});

const verdict = (s: PolicyState, host: string, port: number) => {
  const v = decideHost(s, host, port);
  return v.kind === "deny" ? `deny: ${v.reason}` : v.kind === "allow" ? `allow${v.listed ? " (exact)" : ""}` : "ask";
};

describe("decideHost", () => {
  test.each([
    ["registry.npmjs.org", 443, "allow (exact)"],
    ["REGISTRY.npmjs.org.", 443, "allow (exact)"],
    ["registry.npmjs.org", 22, "deny: port 22 is not allowed (only 80, 443, or a port listed with the host)"],
    ["raw.githubusercontent.com", 443, "allow"],
    ["githubusercontent.com", 443, "ask"],
    ["localhost", 8080, "allow (exact)"],
    ["localhost", 8081, "deny: port 8081 is not allowed (only 80, 443, or a port listed with the host)"],
    ["10.0.0.5", 443, "allow (exact)"],
    ["10.0.0.6", 443, "deny: IP address 10.0.0.6 is refused unless it is in the allowlist"],
    ["::1", 443, "deny: IP address ::1 is refused unless it is in the allowlist"],
    ["evil.example", 443, "deny: evil.example is blocked by policy"],
    ["a.tracker.example", 80, "deny: a.tracker.example is blocked by policy"],
    ["example.org", 443, "ask"],
    ["bad host", 443, 'deny: "bad host" is not a valid host name'],
  ])("%s:%d → %s", (host, port, expected) => {
    expect(verdict(state(), host, port)).toBe(expected);
  });

  test("strict: unknown hosts are refused without asking", () => {
    expect(verdict(state({ strict: true }), "example.org", 443)).toBe(
      "deny: example.org is not in the network allowlist",
    );
  });

  test("nobody to ask: refused", () => {
    expect(verdict(state({ canAsk: false }), "example.org", 443)).toBe(
      "deny: example.org is not in the network allowlist",
    );
  });

  test("a session answer allows the host from then on; the block list still wins", () => {
    const s = state({ session: [{ host: "example.org" }, { host: "evil.example" }] });
    expect(verdict(s, "example.org", 443)).toBe("allow");
    expect(verdict(s, "evil.example", 443)).toBe("deny: evil.example is blocked by policy");
  });

  test("* covers every name but no IP literal", () => {
    const s = state({ allow: [parseHostRule("*")] });
    expect(verdict(s, "anything.example", 443)).toBe("allow");
    expect(verdict(s, "1.2.3.4", 443)).toBe("deny: IP address 1.2.3.4 is refused unless it is in the allowlist");
  });
});

describe("parseHostRule", () => {
  test("patterns with and without ports", () => {
    expect(parseHostRule("Example.COM")).toEqual({ host: "example.com" });
    expect(parseHostRule("*.x.com:8443")).toEqual({ host: "*.x.com", port: 8443 });
    expect(parseHostRule("[::1]:8080")).toEqual({ host: "::1", port: 8080 });
  });

  test("garbage is refused", () => {
    expect(() => parseHostRule("http://x.com")).toThrow();
    expect(() => parseHostRule("x.com:99999")).toThrow();
    expect(() => parseHostRule("*.1.2.3.4")).toThrow();
  });
});

describe("isLocalAddress", () => {
  test.each([
    ["127.0.0.1", true],
    ["127.8.9.1", true],
    ["0.0.0.0", true],
    ["169.254.169.254", true],
    ["100.100.100.200", true],
    ["::1", true],
    ["::ffff:127.0.0.1", true],
    ["::ffff:7f00:1", true],
    ["0:0:0:0:0:ffff:a9fe:a9fe", true],
    ["::127.0.0.1", true],
    ["::ffff:a00:1", false],
    ["2001:db8::7f00:1", false],
    ["fe80::1", true],
    ["fd00:ec2::254", true],
    ["10.1.2.3", false],
    ["192.168.1.1", false],
    ["93.184.216.34", false],
    ["2606:4700::1111", false],
  ])("%s → %p", (ip, local) => {
    expect(isLocalAddress(ip)).toBe(local);
  });
});
